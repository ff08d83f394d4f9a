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
// its pieces and compressing the bands that changed.
package draw

import (
	"fmt"
	"math"
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
