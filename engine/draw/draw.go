// Package draw is the drawing machinery a game's picture is made with,
// whatever the game: vector primitives and fonts on any gonum vg.Canvas
// (the SVG of the web pages and the PNG alike), a fixed palette with a fast
// nearest-colour lookup, sprites (pieces drawn once, composed many times
// onto a paletted picture) kept in a bounded cache (engine/bounded), and
// a PNG encoder that compresses a picture in bands and never compresses
// the same band twice.
//
// A game's picture package keeps only its policy: the layout and what to
// draw. It describes its picture as a static background (drawn once) and
// pieces, each with a key that names what the piece looks like, painted
// through a [Painter]: [VG] paints them directly on a vector canvas (the
// SVG), a [Raster] looks each key up in a cache of sprites and composes
// them onto the background's palette indices (the PNG). The same drawing
// code thus makes both formats, and a PNG costs little more than copying
// its pieces and compressing the bands that changed. A game describes its
// picture once as a [Scene] (size, board, palette reference, caches) and
// a function that paints a position's pieces and legend; [NewPicture]
// makes of them its [Picture]: the PNG, the SVG and the painting on any
// canvas, and the legend's options ([Over]), which both games share. A
// [Renderer] holds what all its PNGs share. The small pieces both games draw (an arrow, a word, a name cut to
// fit) are here too.
package draw

import (
	"fmt"
	"image/color"
	"math"
	"strconv"
	"sync"

	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// fonts are Go's own (golang.org/x/image/font/gofont): embedded in the
// binary, nothing to install, the same in PNG and SVG.
var fonts = sync.OnceValues(func() (map[string]*opentype.Font, error) {
	m := map[string]*opentype.Font{}
	for name, ttf := range map[string][]byte{"regular": goregular.TTF, "bold": gobold.TTF} {
		f, err := opentype.Parse(ttf)
		if err != nil {
			return nil, fmt.Errorf("draw: font %s: %w", name, err)
		}
		m[name] = f
	}
	return m, nil
})

// Fonts parses the fonts once; Face may be called only after it returned
// no error.
func Fonts() error {
	_, err := fonts()
	return err
}

// Face is Go's regular or bold font ("regular", "bold") at size points.
func Face(name string, size float64) font.Face {
	fs, _ := fonts()
	return font.Face{Font: font.Font{Typeface: "Go", Size: font.Length(size)}, Face: fs[name]}
}

// Rect is the path of the rectangle between (x0, y0) and (x1, y1).
func Rect(x0, y0, x1, y1 vg.Length) vg.Path {
	var p vg.Path
	p.Move(vg.Point{X: x0, Y: y0})
	p.Line(vg.Point{X: x1, Y: y0})
	p.Line(vg.Point{X: x1, Y: y1})
	p.Line(vg.Point{X: x0, Y: y1})
	p.Close()
	return p
}

// Circle is the path of the circle of radius r around pt.
func Circle(pt vg.Point, r vg.Length) vg.Path {
	var p vg.Path
	p.Move(vg.Point{X: pt.X + r, Y: pt.Y})
	p.Arc(pt, r, 0, 2*math.Pi)
	p.Close()
	return p
}

// Capsule is the closed outline at distance r around the segment from the
// origin to d: two straight sides joined by half circles around both ends.
// It encloses a line of points (a row removed) as an area, which no
// arrow's line along the same points can be mistaken for.
func Capsule(d vg.Point, r vg.Length) vg.Path {
	u := d.Scale(1 / vg.Length(math.Hypot(float64(d.X), float64(d.Y))))
	n := vg.Point{X: -u.Y, Y: u.X}
	a := math.Atan2(float64(n.Y), float64(n.X))
	var p vg.Path
	p.Move(n.Scale(r))
	p.Line(d.Add(n.Scale(r)))
	p.Arc(d, r, a, -math.Pi)
	p.Line(n.Scale(-r))
	p.Arc(vg.Point{}, r, a+math.Pi, -math.Pi)
	p.Close()
	return p
}

// Polygon is the closed path through pts.
func Polygon(pts []vg.Point) vg.Path {
	var p vg.Path
	for i, pt := range pts {
		if i == 0 {
			p.Move(pt)
		} else {
			p.Line(pt)
		}
	}
	p.Close()
	return p
}

// Square is the box of half side r around the origin.
func Square(r vg.Length) vg.Rectangle {
	return vg.Rectangle{Min: vg.Point{X: -r, Y: -r}, Max: vg.Point{X: r, Y: r}}
}

// Arrow strokes and fills, in the canvas's colour, an arrow along d from
// the origin: its shaft, 3 wide, starts start along d; its head, head long
// and 12 wide, has its tip end short of d.
func Arrow(c vg.Canvas, d vg.Point, start, end, head vg.Length) {
	u := d.Scale(1 / vg.Length(math.Hypot(float64(d.X), float64(d.Y))))
	tip := d.Sub(u.Scale(end))
	c.SetLineWidth(3)
	c.Stroke(Line(u.Scale(start), tip.Sub(u.Scale(6))))
	n := vg.Point{X: -u.Y, Y: u.X}
	c.Fill(Polygon([]vg.Point{tip, tip.Sub(u.Scale(head)).Add(n.Scale(6)), tip.Sub(u.Scale(head)).Sub(n.Scale(6))}))
}

// Line is the path from a to b.
func Line(a, b vg.Point) vg.Path {
	var p vg.Path
	p.Move(a)
	p.Line(b)
	return p
}

// Centred writes s centred on pt.X with its baseline at pt.Y.
func Centred(c vg.Canvas, f font.Face, pt vg.Point, s string) {
	c.FillString(f, vg.Point{X: pt.X - f.Width(s)/2, Y: pt.Y}, s)
}

// Left writes s from pt.X on, its baseline at pt.Y.
func Left(c vg.Canvas, f font.Face, pt vg.Point, s string) { c.FillString(f, pt, s) }

// Right writes s ending at pt.X, its baseline at pt.Y.
func Right(c vg.Canvas, f font.Face, pt vg.Point, s string) {
	c.FillString(f, vg.Point{X: pt.X - f.Width(s), Y: pt.Y}, s)
}

// TextBox is the box, relative to the start of its baseline, that s
// written in f stays within (with a pixel to spare for anti-aliasing).
func TextBox(f font.Face, s string) vg.Rectangle {
	e := f.Extents()
	return vg.Rectangle{
		Min: vg.Point{X: -2, Y: -e.Descent - 2},
		Max: vg.Point{X: f.Width(s) + 2, Y: e.Ascent + 2},
	}
}

// Fit cuts s to at most w wide in f, ending it in "…" when cut.
func Fit(f font.Face, s string, w vg.Length) string {
	if f.Width(s) <= w {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && f.Width(string(r)+"…") > w {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}

// Word paints s in colour col and font face ("regular", "bold") at size,
// from at (its baseline's start) on, as a piece of its own.
func Word(pt Painter, face string, size float64, col color.RGBA, at vg.Point, s string) {
	f := Face(face, size)
	// The key is "word FACE SIZE RRGGBB S", appended rather than
	// formatted: a word is painted many times a picture.
	k := append(make([]byte, 0, 64), "word "...)
	k = append(append(k, face...), ' ')
	k = strconv.AppendFloat(k, size, 'g', -1, 64)
	k = fmt.Appendf(k, " %02x%02x%02x ", col.R, col.G, col.B)
	pt.Piece(string(append(k, s...)), at, TextBox(f, s), func(c vg.Canvas) {
		c.SetColor(col)
		Left(c, f, vg.Point{}, s)
	})
}
