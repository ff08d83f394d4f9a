package draw

import (
	"fmt"
	"image/color"
	"sync"

	"gonum.org/v1/plot/vg"
)

// Legend is what a picture's legend says beyond the position: whether the
// game is over and, then, the mark by each player's name. The position
// alone cannot tell a game ended by a resignation, a forfeit, an agreed
// draw or a cancellation: its rules still say the game goes on.
type Legend struct {
	Over  bool
	Marks [2]string // by the name of player i+1 when Over
}

// An Option changes what the legend of a picture says.
type Option func(*Legend)

// Over says the game is over: the legend writes marks[i] by the name of
// player i+1 (e.g. "resigned" and "won", or "cancelled" for both) instead
// of whose turn it is.
func Over(marks [2]string) Option {
	return func(l *Legend) { l.Over, l.Marks = true, marks }
}

func legendOf(opts []Option) Legend {
	var l Legend
	for _, o := range opts {
		o(&l)
	}
	return l
}

// A Picture is one game's picture of its positions G: the game gives its
// Scene (the empty board, the palette, the caches) and how a position is
// painted on it, and the Picture makes of them the PNG of the mails, the
// SVG of the web pages and a painting on any vg canvas, all by the same
// painting code. Its Renderer is made at the first PNG. It is safe for
// concurrent use.
type Picture[G any] struct {
	scene    Scene
	position func(pt Painter, g *G, names [2]string, l Legend)
	renderer func() (*Renderer, error)
}

// NewPicture returns the picture of scene s (whose Reference it sets: a
// picture of the position reference returns, with players "alice" and
// "bob") on which position paints the pieces, marks and legend of a
// position g, names[0] being player 1.
func NewPicture[G any](s Scene, reference func() (G, error), position func(pt Painter, g *G, names [2]string, l Legend)) *Picture[G] {
	p := &Picture[G]{scene: s, position: position}
	p.scene.Reference = func(c vg.Canvas) error {
		g, err := reference()
		if err != nil {
			return fmt.Errorf("draw: the palette's position: %w", err)
		}
		return p.Draw(c, &g, [2]string{"alice", "bob"})
	}
	p.renderer = sync.OnceValues(p.NewRenderer)
	return p
}

// NewRenderer makes a renderer of the picture's scene of its own, with
// empty caches (PNG shares one).
func (p *Picture[G]) NewRenderer() (*Renderer, error) { return NewRenderer(p.scene) }

// PNG returns the picture of g as a PNG image.
func (p *Picture[G]) PNG(g *G, names [2]string, opts ...Option) ([]byte, error) {
	r, err := p.renderer()
	if err != nil {
		return nil, err
	}
	l := legendOf(opts)
	return r.PNG(func(pt Painter) { p.position(pt, g, names, l) })
}

// SVG returns the picture of g as an SVG document (Width×Height pt).
func (p *Picture[G]) SVG(g *G, names [2]string, opts ...Option) ([]byte, error) {
	return SVG(p.scene.Width, p.scene.Height, func(c vg.Canvas) error { return p.Draw(c, g, names, opts...) })
}

// Draw paints the picture of g on c, which must be Width×Height points
// with its origin at the bottom left (every vg canvas is).
func (p *Picture[G]) Draw(c vg.Canvas, g *G, names [2]string, opts ...Option) error {
	if err := Fonts(); err != nil {
		return err
	}
	c.SetColor(p.scene.Background)
	c.Fill(Rect(0, 0, vg.Length(p.scene.Width), vg.Length(p.scene.Height)))
	p.scene.Board(c)
	p.position(VG{C: c}, g, names, legendOf(opts))
	return nil
}

// The colours every game's picture shares, so that the pictures of two
// games read alike: the background, the pieces' edges, the marks of the
// last move, the legend's text and its labels.
var (
	Background = color.RGBA{0xFF, 0xFF, 0xFF, 0xFF}
	EdgeColor  = color.RGBA{0x33, 0x33, 0x33, 0xFF}
	MoveColor  = color.RGBA{0xFF, 0x7A, 0x00, 0xFF}
	TextColor  = color.RGBA{0x11, 0x11, 0x11, 0xFF}
	LabelColor = color.RGBA{0x5A, 0x66, 0x72, 0xFF}
)

// Size is the side of every game's picture in pixels (1 pt = 1 px): a
// square that a mail program shows whole and a phone 360 px wide.
const Size = 600

// TextSize is the font size of a picture's smallest text: 11 CSS px when
// the picture is shown 360 px wide on a phone (600 × 11 / 360 = 18.3).
const TextSize = 19

// Board paints a board's ground: its outline filled in fill; and readies
// c for its lines, in colour line and 1.5 px wide.
func Board(c vg.Canvas, outline []vg.Point, fill, line color.RGBA) {
	c.SetColor(fill)
	c.Fill(Polygon(outline))
	c.SetColor(line)
	c.SetLineWidth(1.5)
}

// maxName is the widest a player's name is written: longer names are cut
// and end in "…", so that the two players' columns never meet.
const maxName = 150

// Column is where the legend's column of player i+1 begins in a picture
// width wide: player 1's at the left, player 2's right of the middle.
func Column(width, i int) vg.Length {
	if i == 1 {
		return vg.Length(width)/2 + 8
	}
	return 16
}

// Player writes the legend's line of player i+1 from at: his name in
// bold, cut to fit its column, and by it what l marks him with when the
// game is over, else "to move" when turn is his.
func Player(pt Painter, at vg.Point, name string, i, turn int, l Legend) {
	b := Face("bold", TextSize)
	name = Fit(b, name, maxName)
	Word(pt, "bold", TextSize, TextColor, at, name)
	mark := vg.Point{X: at.X + b.Width(name) + 8, Y: at.Y}
	switch {
	case l.Over:
		Word(pt, "regular", TextSize, LabelColor, mark, l.Marks[i])
	case turn == i+1:
		Word(pt, "regular", TextSize, LabelColor, mark, "to move")
	}
}

// LastPlayed is the last of moves that is not a pass, the one a picture
// marks; ok is false when there is none.
func LastPlayed[M interface{ IsPass() bool }](moves []M) (m M, ok bool) {
	for i := len(moves) - 1; i >= 0; i-- {
		if !moves[i].IsPass() {
			return moves[i], true
		}
	}
	return m, false
}
