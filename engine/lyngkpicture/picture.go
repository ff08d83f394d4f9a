// Package lyngkpicture draws a LYNGK position as a picture: the 43 points on the
// board's real geometry, every stack with its pieces, the claims of both
// players and the last move. One drawing routine paints on any gonum
// vg.Canvas through engine/draw, so the mails' PNG and a web page's SVG
// ([Drawing]) are the same picture; this package holds only LYNGK's
// policy (the layout and what to draw), engine/draw the machinery.
//
// The picture is Width×Height pixels (1 pt = 1 px). A stack is seen from
// above as concentric rings: the top piece is the disc in the middle, each
// piece below it one ring further out, so a taller stack is a wider one and
// its owner (the top colour) is always in the middle; stacks of two or more
// also carry their height as a number. Jokers, white on the real board, are gold here:
// white would hardly differ from ivory.
// The last move is an orange arrow from the emptied point to the stack it
// made. Column letters stand above and below the columns, every point has
// its name on its left, and the legend under the board gives each player's
// claimed colours and removed stacks.
//
// Every text is at least draw.TextSize pixels (its font size), so that a
// picture shown 360 CSS px wide on a phone still has text of 11 CSS px.
//
// A PNG is composed, not drawn: the empty board (background, hexagon,
// lines, letters, point names) is drawn once; each stack, the last move's
// marks and each word of the legend are sprites drawn once per look (a
// bounded cache by what they show) and copied onto the board's palette
// indices; the encoder compresses only the bands of rows it has not
// compressed before (engine/draw).
//
// The package imports the rules (engine/lyngk); the rules never import it.
package lyngkpicture

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot/vg"

	"lyngk.example/lyngk/engine/draw"
	"lyngk.example/lyngk/engine/lyngk"
)

// The picture's size in pixels, every game's.
const Width, Height = draw.Size, draw.Size

// Layout: half the distance between two neighbours of a column is unit;
// columns are colDX apart (unit·√3 = 58.9, rounded so that every point
// is on a whole pixel), so all six neighbours of a point are at nearly the
// same distance, as on the real board.
const (
	unit    = 34
	colDX   = 59
	boardX0 = (Width - 8*colDX) / 2 // centres the nine columns
	boardY0 = 134                   // canvas y of lattice y = 0 (the canvas's origin is bottom left)
	inner   = 12.0                  // radius of a stack's top piece
	ring    = 5.0                   // width of each piece below it
)

// Colours of the pieces by board letter, and of the board (the others
// are engine/draw's).
var (
	pieceColor = map[byte]color.RGBA{
		'I': {0xF0, 0xE2, 0xB6, 0xFF}, // ivory
		'B': {0x1E, 0x5A, 0xB4, 0xFF},
		'R': {0xC8, 0x28, 0x28, 0xFF},
		'G': {0x2E, 0x8B, 0x3C, 0xFF},
		'K': {0x22, 0x22, 0x22, 0xFF}, // black
		'J': {0xE8, 0xB9, 0x23, 0xFF}, // joker: gold
	}
	boardFill = color.RGBA{0xE6, 0xEC, 0xF2, 0xFF}
	lineColor = color.RGBA{0xA8, 0xB4, 0xC0, 0xFF}
)

// Color returns the colour a piece of board letter c ('I', 'B', 'R', 'G',
// 'K', 'J') has in the picture; ok is false for any other byte.
func Color(c byte) (col color.RGBA, ok bool) {
	col, ok = pieceColor[c]
	return col, ok
}

// Center returns where point p is drawn, in pixels from the picture's top
// left corner.
func Center(p lyngk.Point) (x, y float64) {
	pt := center(p)
	return float64(pt.X), Height - float64(pt.Y)
}

func center(p lyngk.Point) vg.Point {
	x, y := p.Lattice()
	return vg.Point{X: vg.Length(boardX0 + x*colDX), Y: vg.Length(boardY0 + y*unit)}
}

// Radius returns the radius in pixels of a stack of height h (the top
// piece's disc and one ring per piece below it).
func Radius(h int) float64 { return inner + float64(max(h-1, 0))*ring }

// paletteSize is the most colours the PNGs have: 16, four bits a pixel.
// The drawing's eleven flat colours are exact; then come the commonest
// other colours of a middle game that are not rare or near one already
// chosen (engine/draw): the black pieces, the legend's text and the
// lines' anti-aliasing blend, 14 in all; each other blend takes the
// nearest colour.
const paletteSize = 16

// Sizes of the caches: sprites (a disc, a word, an arrow: 1–40 KB each)
// and compressed
// bands of rows (about 1 KB each).
const (
	spriteBudget = 8 << 20
	bandBudget   = 8 << 20
)

// The PNG's bands are two steps of the lattice (68 rows) high and begin
// half a step above a point, so that a stack of one or two pieces is in
// one band and a move changes few bands (34 rows made more bands to
// compress for the same CPU and 2% more bytes).
const (
	bandRows  = 2 * unit
	bandFirst = (Height - boardY0 + unit/2) % bandRows
)

// compression is the bands' deflate level (klauspost/compress/flate,
// engine/draw): in BenchmarkPNG/server level 6 makes pictures of 18.4 KB
// for about 0.9-1 ms of CPU, level 1 21.3 KB for 0.78 ms, level 7 18.0 KB
// for 1.2 ms, level 8 17.0 KB for 1.55 ms; Go's own compress/flate at
// level 1 (before) made 21.1 KB for the same CPU as level 6 here.
const compression = 6

// Drawing is the picture of LYNGK positions: PNG for the mails, SVG for
// the web pages, Draw on any vg canvas. Its palette is that of a middle
// game: the flat colours first, then the commonest blends of the middle
// game of board 102 (both players' claims, a 5-stack, jokers, the last
// move).
var Drawing = draw.NewPicture(draw.Scene{
	Width: Width, Height: Height, Background: draw.Background,
	Board: drawBoard,
	// Black is not among the pieces: it is the edges' near twin, and
	// text's.
	Must:    append([]color.RGBA{draw.Background, boardFill, lineColor, draw.LabelColor, draw.EdgeColor, draw.MoveColor}, pieces("IBRGJ")...),
	Colors:  paletteSize,
	Sprites: spriteBudget, Bands: bandBudget,
	BandFirst: bandFirst, BandRows: bandRows, Level: compression,
}, func() (lyngk.Game, error) {
	return lyngk.Rules.Replay(102, lyngk.Standard, strings.Fields("g5-g6 d5-d4 I,d3-e3 K,d2-d4 G,g1-g3 c3-e2 c5-c6 R,b3-b2 f2-h1 d6-e7 c2-b1 d1-b2 g2-e2 f4-f5")...)
}, drawPosition)

// pieces are the colours of the pieces of board letters ls.
func pieces(ls string) []color.RGBA {
	var out []color.RGBA
	for _, l := range []byte(ls) {
		out = append(out, pieceColor[l])
	}
	return out
}

// drawBoard paints what every picture has on its background: the board's
// hexagon, the lines between neighbours, a dot on every point, the column
// letters above and below each column and the name of every point on its
// left.
func drawBoard(c vg.Canvas) {
	draw.Board(c, hexagon(), boardFill, lineColor)
	for p := range lyngk.Point(lyngk.NumPoints) {
		px, py := p.Lattice()
		for _, d := range [][2]int{{0, 2}, {1, 1}, {1, -1}} {
			if q, ok := at(px+d[0], py+d[1]); ok {
				c.Stroke(draw.Line(center(p), center(q)))
			}
		}
	}
	for p := range lyngk.Point(lyngk.NumPoints) {
		c.Fill(draw.Circle(center(p), 3))
	}

	big := draw.Face("bold", draw.TextSize+1)
	small := draw.Face("regular", draw.TextSize)
	c.SetColor(draw.LabelColor)
	// Column letters stand outside the hexagon, above and below their
	// column.
	for col := range 9 {
		letter := string(rune('A' + col))
		x := vg.Length(boardX0 + col*colDX)
		top, bottom := hexEdges(x)
		draw.Centred(c, big, vg.Point{X: x, Y: top + 5}, letter)
		draw.Centred(c, big, vg.Point{X: x, Y: bottom - 20}, letter)
	}
	// A point's name is in the middle of the triangle on its left, which
	// no other point's name uses.
	for p := range lyngk.Point(lyngk.NumPoints) {
		pt := center(p)
		draw.Centred(c, small, vg.Point{X: pt.X - 39, Y: pt.Y - 7}, p.String())
	}
}

// hexagon is the board's outline: the six corner points, pushed out.
func hexagon() []vg.Point {
	var h []vg.Point
	for _, name := range []string{"a1", "c7", "g7", "i1", "g1", "c1"} {
		p, _ := lyngk.ParsePoint(name)
		pt := center(p)
		mid := vg.Point{X: Width / 2, Y: vg.Length(boardY0 + 6*unit)}
		d := pt.Sub(mid)
		l := vg.Length(vgLen(d))
		h = append(h, mid.Add(d.Scale((l+44)/l)))
	}
	return h
}

// hexEdges returns where the vertical line at x meets the hexagon, above
// and below.
func hexEdges(x vg.Length) (top, bottom vg.Length) {
	h := hexagon()
	top, bottom = 0, Height
	for i, a := range h {
		b := h[(i+1)%len(h)]
		if a.X == b.X || x < min(a.X, b.X) || x > max(a.X, b.X) {
			continue
		}
		y := a.Y + (b.Y-a.Y)*(x-a.X)/(b.X-a.X)
		top, bottom = max(top, y), min(bottom, y)
	}
	return top, bottom
}

func vgLen(d vg.Point) float64 {
	x, y := float64(d.X), float64(d.Y)
	return math.Hypot(x, y)
}

// at finds the point at lattice (x, y).
func at(x, y int) (lyngk.Point, bool) {
	for p := range lyngk.Point(lyngk.NumPoints) {
		if px, py := p.Lattice(); px == x && py == y {
			return p, true
		}
	}
	return lyngk.NoPoint, false
}

// drawPosition paints the stacks, the last move and the legend of g.
func drawPosition(pt draw.Painter, g *lyngk.Game, names [2]string, l draw.Legend) {
	for p := range lyngk.Point(lyngk.NumPoints) {
		if s := g.Stack(p); s != "" {
			drawStack(pt, center(p), s)
		}
	}
	drawLastMove(pt, g)
	drawLegend(pt, g, names, l)
}

// drawStack paints the stack s (top piece first) centred on at: a disc
// per piece, the bottom one first, each a piece of its own (one per
// colour and height, whatever the stack), then its height.
func drawStack(pt draw.Painter, at vg.Point, s string) {
	h := len(s)
	for i := h - 1; i >= 0; i-- {
		r := vg.Length(Radius(i + 1))
		col := s[i]
		pt.Piece(fmt.Sprintf("disc %c %d", col, i), at, draw.Square(r+2), func(c vg.Canvas) {
			c.SetColor(pieceColor[col])
			c.Fill(draw.Circle(vg.Point{}, r))
			c.SetColor(draw.EdgeColor)
			c.SetLineWidth(0.8)
			c.Stroke(draw.Circle(vg.Point{}, r))
		})
	}
	if h > 1 {
		ink := color.RGBA{0xFF, 0xFF, 0xFF, 0xFF}
		if s[0] == 'I' || s[0] == 'J' {
			ink = draw.TextColor
		}
		digit := fmt.Sprint(h)
		f := draw.Face("bold", draw.TextSize)
		pt.Piece(fmt.Sprintf("height %s %v", digit, ink == draw.TextColor), at, draw.Square(inner), func(c vg.Canvas) {
			c.SetColor(ink)
			draw.Centred(c, f, vg.Point{Y: -7}, digit)
		})
	}
}

// drawLastMove marks the last move that was not a pass: a dashed circle on
// the point it left, an arrow to the stack it made, a ring around that.
// Each is a piece of its own: the arrow one per direction and length, the
// ring one per height.
func drawLastMove(pt draw.Painter, g *lyngk.Game) {
	m, ok := draw.LastPlayed(g.Moves())
	if !ok || m.From == m.To {
		return
	}
	from, to := center(m.From), center(m.To)
	d := to.Sub(from)
	h := len(g.Stack(m.To))
	rTo := vg.Length(Radius(h) + 4)
	pt.Piece("left", from, draw.Square(inner+3), func(c vg.Canvas) {
		c.SetColor(draw.MoveColor)
		c.SetLineWidth(2.5)
		c.SetLineDash([]vg.Length{5, 4}, 0)
		c.Stroke(draw.Circle(vg.Point{}, inner))
	})
	box := vg.Rectangle{
		Min: vg.Point{X: min(0, d.X) - 10, Y: min(0, d.Y) - 10},
		Max: vg.Point{X: max(0, d.X) + 10, Y: max(0, d.Y) + 10},
	}
	pt.Piece(fmt.Sprintf("arrow %v %v %v", d.X, d.Y, rTo), from, box, func(c vg.Canvas) {
		c.SetColor(draw.MoveColor)
		draw.Arrow(c, d, inner+3, rTo+1, 12)
	})
	pt.Piece(fmt.Sprintf("made %v", rTo), to, draw.Square(rTo+3), func(c vg.Canvas) {
		c.SetColor(draw.MoveColor)
		c.SetLineWidth(3)
		c.Stroke(draw.Circle(vg.Point{}, rTo))
	})
}

// drawLegend writes, under the board, each player's claimed colours and
// removed stacks, who is to move or how each ended, and, above it, the
// colours still free.
func drawLegend(pt draw.Painter, g *lyngk.Game, names [2]string, l draw.Legend) {
	const regular = "regular"
	f := draw.Face(regular, draw.TextSize)
	y := vg.Length(54)
	for i, name := range names {
		x := draw.Column(Width, i)
		draw.Player(pt, vg.Point{X: x, Y: y}, name, i, g.Turn(), l)
		claims := g.Claims(i + 1)
		cx := x + 4
		if len(claims) == 0 {
			draw.Word(pt, regular, draw.TextSize, draw.LabelColor, vg.Point{X: cx, Y: y - 24}, "no colour claimed")
		}
		for _, col := range claims {
			swatch(pt, vg.Point{X: cx + 8, Y: y - 18}, col.Letter())
			draw.Word(pt, regular, draw.TextSize, draw.TextColor, vg.Point{X: cx + 20, Y: y - 24}, col.Name())
			cx += 20 + f.Width(col.Name()) + 10
		}
		stacks := "stacks"
		if g.Removed(i+1) == 1 {
			stacks = "stack"
		}
		draw.Word(pt, regular, draw.TextSize, draw.TextColor, vg.Point{X: x + 4, Y: y - 48}, fmt.Sprintf("%d %s removed", g.Removed(i+1), stacks))
	}
	if free := g.Free(); len(free) > 0 {
		var s []string
		for _, col := range free {
			s = append(s, string(col.Letter()))
		}
		draw.Word(pt, regular, draw.TextSize, draw.LabelColor, vg.Point{X: 12, Y: Height - 24}, "Free: "+strings.Join(s, " "))
	}
	swatch(pt, vg.Point{X: Width - 78, Y: 16}, 'J')
	draw.Word(pt, regular, draw.TextSize, draw.TextColor, vg.Point{X: Width - 66, Y: 10}, "Joker")
	if g.Variant() == lyngk.Stack6 {
		s := "Stack6"
		draw.Word(pt, regular, draw.TextSize, draw.LabelColor, vg.Point{X: Width - 12 - f.Width(s), Y: Height - 24}, s)
	}
}

// swatch is a piece of colour letter l, for the legend.
func swatch(pt draw.Painter, at vg.Point, l byte) {
	pt.Piece("swatch "+string(l), at, draw.Square(10), func(c vg.Canvas) {
		c.SetColor(pieceColor[l])
		c.Fill(draw.Circle(vg.Point{}, 8))
		c.SetColor(draw.EdgeColor)
		c.SetLineWidth(0.8)
		c.Stroke(draw.Circle(vg.Point{}, 8))
	})
}
