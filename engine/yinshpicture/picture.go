// Package yinshpicture draws a YINSH position as a picture: the 85 points of the
// triangular grid with its lines, rings as rings and markers as discs, the
// last turn marked, and a legend with each player's colour, rings removed
// and the markers left in the pool. It is YINSH's policy on the shared
// drawing machinery of engine/draw, the same code path as LYNGK's picture:
// one drawing routine paints on any gonum vg.Canvas, so the mails' PNG
// and a web page's SVG ([Drawing]) are the same picture, and a PNG is
// composed from sprites onto the empty board's palette indices.
//
// The picture is Width×Height pixels (1 pt = 1 px). Column letters stand
// under the lowest point of each column, numbers left of the lowest point
// of each line of constant number. The last turn is marked in orange: a
// placement by a circle around its ring; a ring move by a dashed circle on
// the point it left (where its marker now lies) and an arrow to the ring;
// each row removed by a dashed outline around its five points (a band, not
// a line, so that it never reads as part of a move's arrow); each ring
// removed by a cross on its point.
//
// The package imports the rules (engine/yinsh); the rules never import it.
package yinshpicture

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"sync"

	"gonum.org/v1/plot/vg"

	"lyngk.example/lyngk/engine/draw"
	"lyngk.example/lyngk/engine/yinsh"
)

// The picture's size in pixels, every game's.
const Width, Height = draw.Size, draw.Size

// Layout: a point (i, n) is drawn at column i, half-step 2n-i (-2 .. 16):
// half a step is unit, columns are colDX apart (unit·√3, rounded), so the
// six neighbours of a point are at nearly the same distance.
const (
	unit    = 25
	colDX   = 43
	boardX0 = (Width - 10*colDX) / 2 // centres the eleven columns
	boardY0 = 170                    // canvas y of half-step 0 (the canvas's origin is bottom left)
	ringR   = 11.0                   // a ring's radius (to the middle of its stroke)
	ringW   = 5.0                    // a ring's stroke
	markerR = 9.0                    // a marker's radius
)

// Colours of the board and the pieces (the others are engine/draw's).
var (
	boardFill = color.RGBA{0xE9, 0xE4, 0xD4, 0xFF}
	lineColor = color.RGBA{0xA6, 0x9C, 0x86, 0xFF}
	// White's and black's pieces.
	pieceColor = [3]color.RGBA{{}, {0xFA, 0xFA, 0xF6, 0xFF}, {0x22, 0x22, 0x22, 0xFF}}
)

// Center returns where point p is drawn, in pixels from the picture's top
// left corner.
func Center(p yinsh.Point) (x, y float64) {
	pt := center(p)
	return float64(pt.X), Height - float64(pt.Y)
}

func center(p yinsh.Point) vg.Point {
	i, n := p.Column(), p.Number()
	return vg.Point{X: vg.Length(boardX0 + i*colDX), Y: vg.Length(boardY0 + (2*n-i)*unit)}
}

// paletteSize is the most colours the PNGs have: 16, four bits a pixel
// (the flat colours and the commonest blends that are not rare or near
// one of them: 10 in all, engine/draw).
const paletteSize = 16

// Sizes of the caches of sprites and of compressed bands.
const (
	spriteBudget = 4 << 20
	bandBudget   = 4 << 20
	bandRows     = 2 * unit
	bandFirst    = (Height - boardY0 + unit/2) % bandRows
	compression  = 6
)

// Drawing is the picture of YINSH positions: PNG for the mails, SVG for
// the web pages, Draw on any vg canvas. Its palette is that of a middle
// game (the GIPF notation page's placements and a few moves).
var Drawing = draw.NewPicture(draw.Scene{
	Width: Width, Height: Height, Background: draw.Background,
	Board:   drawBoard,
	Must:    []color.RGBA{draw.Background, boardFill, lineColor, draw.LabelColor, draw.EdgeColor, draw.MoveColor, pieceColor[1]},
	Colors:  paletteSize,
	Sprites: spriteBudget, Bands: bandBudget,
	BandFirst: bandFirst, BandRows: bandRows, Level: compression,
}, func() (yinsh.Game, error) {
	return yinsh.Rules.Replay(0, yinsh.Normal, "e3", "a5", "b5", "c6", "d6", "e4", "h7", "g2", "g3", "g8", "h7-g7", "a5-a3", "g7-e7", "g8-c4")
}, drawPosition)

// outline is the board's shape: the convex hull of the points, pushed out
// by 22 px from the middle.
var outline = sync.OnceValue(func() []vg.Point {
	var pts []vg.Point
	for p := range yinsh.Point(yinsh.NumPoints) {
		pts = append(pts, center(p))
	}
	slices.SortFunc(pts, func(a, b vg.Point) int {
		if a.X != b.X {
			return int(a.X - b.X)
		}
		return int(a.Y - b.Y)
	})
	cross := func(o, a, b vg.Point) vg.Length { return (a.X-o.X)*(b.Y-o.Y) - (a.Y-o.Y)*(b.X-o.X) }
	var hull []vg.Point
	for pass := range 2 {
		start := len(hull)
		for _, p := range pts {
			for len(hull) >= start+2 && cross(hull[len(hull)-2], hull[len(hull)-1], p) <= 0 {
				hull = hull[:len(hull)-1]
			}
			hull = append(hull, p)
		}
		hull = hull[:len(hull)-1]
		if pass == 0 {
			slices.Reverse(pts)
		}
	}
	mid := center(yinsh.Point(42)) // f6, the middle point
	for i, p := range hull {
		d := p.Sub(mid)
		l := vg.Length(math.Hypot(float64(d.X), float64(d.Y)))
		hull[i] = mid.Add(d.Scale((l + 22) / l))
	}
	return hull
})

// drawBoard paints what every picture has on its background: the board,
// the lines between neighbours, a dot on every point, the column letters and
// the numbers.
func drawBoard(c vg.Canvas) {
	draw.Board(c, outline(), boardFill, lineColor)
	for p := range yinsh.Point(yinsh.NumPoints) {
		for _, d := range [][2]int{{0, 1}, {1, 0}, {1, 1}} {
			if q, ok := at(p.Column()+d[0], p.Number()+d[1]); ok {
				c.Stroke(draw.Line(center(p), center(q)))
			}
		}
	}
	for p := range yinsh.Point(yinsh.NumPoints) {
		c.Fill(draw.Circle(center(p), 2.5))
	}

	f := draw.Face("bold", draw.TextSize)
	c.SetColor(draw.LabelColor)
	// Each column's letter under its lowest point; each number left of the
	// lowest-column point of its line.
	for i := range 11 {
		low := yinsh.NoPoint
		for p := range yinsh.Point(yinsh.NumPoints) {
			if p.Column() == i && (low == yinsh.NoPoint || p.Number() < low.Number()) {
				low = p
			}
		}
		pt := center(low)
		draw.Centred(c, f, vg.Point{X: pt.X, Y: pt.Y - 34}, string(rune('A'+i)))
	}
	for n := 1; n <= 11; n++ {
		first := yinsh.NoPoint
		for p := range yinsh.Point(yinsh.NumPoints) {
			if p.Number() == n && (first == yinsh.NoPoint || p.Column() < first.Column()) {
				first = p
			}
		}
		pt := center(first)
		draw.Right(c, f, vg.Point{X: pt.X - 24, Y: pt.Y + 6}, fmt.Sprint(n))
	}
}

// at finds the point of column i and number n.
func at(i, n int) (yinsh.Point, bool) {
	if i < 0 || i > 10 || n < 1 || n > 11 {
		return yinsh.NoPoint, false
	}
	p, ok := yinsh.ParsePoint(fmt.Sprintf("%c%d", 'a'+i, n))
	return p, ok
}

// drawPosition paints the markers, the rings, the last turn and the
// legend.
func drawPosition(pt draw.Painter, g *yinsh.Game, names [2]string, l draw.Legend) {
	for p := range yinsh.Point(yinsh.NumPoints) {
		switch pl, ring := g.Piece(p); {
		case pl == 0:
		case ring:
			drawRing(pt, center(p), pl)
		default:
			drawMarker(pt, center(p), pl)
		}
	}
	drawLastTurn(pt, g)
	drawLegend(pt, g, names, l)
}

func drawRing(pt draw.Painter, at vg.Point, pl int) {
	pt.Piece(fmt.Sprint("ring ", pl), at, draw.Square(ringR+ringW), func(c vg.Canvas) {
		c.SetColor(draw.EdgeColor)
		c.SetLineWidth(ringW + 2)
		c.Stroke(draw.Circle(vg.Point{}, ringR))
		c.SetColor(pieceColor[pl])
		c.SetLineWidth(ringW)
		c.Stroke(draw.Circle(vg.Point{}, ringR))
	})
}

func drawMarker(pt draw.Painter, at vg.Point, pl int) {
	pt.Piece(fmt.Sprint("marker ", pl), at, draw.Square(markerR+2), func(c vg.Canvas) {
		c.SetColor(pieceColor[pl])
		c.Fill(draw.Circle(vg.Point{}, markerR))
		c.SetColor(draw.EdgeColor)
		c.SetLineWidth(1)
		c.Stroke(draw.Circle(vg.Point{}, markerR))
	})
}

// drawLastTurn marks the last turn that was not a pass (see the package
// comment).
func drawLastTurn(pt draw.Painter, g *yinsh.Game) {
	t, _ := draw.LastPlayed(g.Moves())
	dashed := func(c vg.Canvas) {
		c.SetColor(draw.MoveColor)
		c.SetLineWidth(3)
		c.SetLineDash([]vg.Length{6, 5}, 0)
	}
	removals := append(append([]yinsh.Removal(nil), t.Pre[:t.NPre]...), t.Post[:t.NPost]...)
	for _, r := range removals {
		// The row is outlined as a band around its five points, apart
		// from the move's arrow: a line along the row, in line with the
		// ring's move, read as one arrow from the row's far end.
		from, to := center(r.From), center(r.To)
		d := to.Sub(from)
		const band = markerR + 6
		box := vg.Rectangle{Min: vg.Point{X: min(0, d.X) - band - 3, Y: min(0, d.Y) - band - 3},
			Max: vg.Point{X: max(0, d.X) + band + 3, Y: max(0, d.Y) + band + 3}}
		pt.Piece(fmt.Sprintf("row %v %v", d.X, d.Y), from, box, func(c vg.Canvas) {
			dashed(c)
			c.SetLineWidth(2)
			c.Stroke(draw.Capsule(d, band))
		})
		pt.Piece("ring removed", center(r.Ring), draw.Square(10), func(c vg.Canvas) {
			c.SetColor(draw.MoveColor)
			c.SetLineWidth(3)
			c.Stroke(draw.Line(vg.Point{X: -7, Y: -7}, vg.Point{X: 7, Y: 7}))
			c.Stroke(draw.Line(vg.Point{X: -7, Y: 7}, vg.Point{X: 7, Y: -7}))
		})
	}
	switch t.Action {
	case yinsh.Place:
		pt.Piece("placed", center(t.To), draw.Square(ringR+10), func(c vg.Canvas) {
			c.SetColor(draw.MoveColor)
			c.SetLineWidth(3)
			c.Stroke(draw.Circle(vg.Point{}, ringR+6))
		})
	case yinsh.Move:
		from, to := center(t.From), center(t.To)
		d := to.Sub(from)
		pt.Piece("left", from, draw.Square(markerR+6), func(c vg.Canvas) {
			dashed(c)
			c.SetLineWidth(2.5)
			c.Stroke(draw.Circle(vg.Point{}, markerR+3))
		})
		box := vg.Rectangle{Min: vg.Point{X: min(0, d.X) - 10, Y: min(0, d.Y) - 10}, Max: vg.Point{X: max(0, d.X) + 10, Y: max(0, d.Y) + 10}}
		pt.Piece(fmt.Sprintf("arrow %v %v", d.X, d.Y), from, box, func(c vg.Canvas) {
			c.SetColor(draw.MoveColor)
			draw.Arrow(c, d, markerR+5, ringR+ringW, 11)
		})
	}
}

// ringStep is how far apart the legend's removed rings are: a ring and
// its edge are 2·(ringR+ringW/2+1) = 29 px wide.
const ringStep = 31

// removedLine lays out a legend's line of n rings removed from at (the
// text's baseline): a ring for each, then the text. The rings come first
// so that the text never runs into them, however wide the font a browser
// draws the SVG's text in (its own, when it lacks Go's).
func removedLine(at vg.Point, n int) (icons []vg.Point, text vg.Point) {
	for k := range n {
		icons = append(icons, vg.Point{X: at.X + ringStep/2 + vg.Length(k)*ringStep, Y: at.Y + 7})
	}
	return icons, vg.Point{X: at.X + vg.Length(n)*ringStep + min(vg.Length(n), 1)*4, Y: at.Y}
}

// drawLegend writes, under the board, each player's colour, name, whether
// he is to move (or how the game ended for him) and his rings removed; in
// the top corners the markers in the pool and the variant.
func drawLegend(pt draw.Painter, g *yinsh.Game, names [2]string, l draw.Legend) {
	const regular = "regular"
	f := draw.Face(regular, draw.TextSize)
	y := vg.Length(44)
	for i, name := range names {
		pl := i + 1
		x := draw.Column(Width, i)
		drawMarker(pt, vg.Point{X: x + 9, Y: y + 7}, pl)
		draw.Player(pt, vg.Point{X: x + 24, Y: y}, name, i, g.Turn(), l)
		rings := "rings"
		if g.Removed(pl) == 1 {
			rings = "ring"
		}
		icons, text := removedLine(vg.Point{X: x + 24, Y: y - 28}, g.Removed(pl))
		for _, at := range icons {
			drawRing(pt, at, pl)
		}
		draw.Word(pt, regular, draw.TextSize, draw.TextColor, text, fmt.Sprintf("%d %s removed", g.Removed(pl), rings))
	}
	draw.Word(pt, regular, draw.TextSize, draw.LabelColor, vg.Point{X: 12, Y: Height - 26}, fmt.Sprintf("Pool: %d", g.Pool()))
	if g.Variant() == yinsh.Blitz {
		s := "Blitz"
		draw.Word(pt, regular, draw.TextSize, draw.LabelColor, vg.Point{X: Width - 12 - f.Width(s), Y: Height - 26}, s)
	}
}
