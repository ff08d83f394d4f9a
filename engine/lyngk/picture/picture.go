// Package picture draws a LYNGK position as a picture: the 43 points on the
// board's real geometry, every stack with its pieces, the claims of both
// players and the last move. One drawing routine ([Draw]) paints on any
// gonum vg.Canvas, so the mails' PNG ([PNG]) and a web page's SVG ([SVG])
// are the same picture.
//
// The picture is Width×Height pixels (1 pt = 1 px). A stack is seen from
// above as concentric rings: the top piece is the disc in the middle, each
// piece below it one ring further out, so a taller stack is a wider one and
// its owner (the top colour) is always in the middle; stacks of two or more
// also carry their height as a number. Jokers, white on the real board, are gold here:
// white would hardly differ from ivory.
// The last move is an orange arrow from the emptied point to the stack it
// made. Column letters stand above and below the columns, every point has
// its name beside it, and the legend under the board gives each player's
// claimed colours and removed stacks.
//
// The package imports the rules (engine/lyngk); the rules never import it.
package picture

import (
	"bytes"
	"cmp"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"math"
	"slices"
	"strings"
	"sync"

	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"lyngk.example/lyngk/engine/lyngk"
)

// The picture's size in pixels.
const (
	Width  = 600
	Height = 600
)

// Layout: half the distance between two neighbours of a column is unit;
// columns are unit·√3 apart, so all six neighbours of a point are at the
// same distance (2·unit), as on the real board.
const (
	unit    = 34.0
	boardY0 = 130.0 // canvas y of lattice y = 0 (the canvas's origin is bottom left)
	inner   = 11.0  // radius of a stack's top piece
	ring    = 5.0   // width of each piece below it
)

var colDX = unit * math.Sqrt(3)

// boardX0 centres the nine columns.
var boardX0 = (Width - 8*colDX) / 2

// Colours of the pieces by board letter, and of the drawing.
var (
	pieceColor = map[byte]color.RGBA{
		'I': {0xF0, 0xE2, 0xB6, 0xFF}, // ivory
		'B': {0x1E, 0x5A, 0xB4, 0xFF},
		'R': {0xC8, 0x28, 0x28, 0xFF},
		'G': {0x2E, 0x8B, 0x3C, 0xFF},
		'K': {0x22, 0x22, 0x22, 0xFF}, // black
		'J': {0xE8, 0xB9, 0x23, 0xFF}, // joker: gold
	}
	background = color.RGBA{0xFF, 0xFF, 0xFF, 0xFF}
	boardFill  = color.RGBA{0xE6, 0xEC, 0xF2, 0xFF}
	lineColor  = color.RGBA{0xA8, 0xB4, 0xC0, 0xFF}
	labelColor = color.RGBA{0x5A, 0x66, 0x72, 0xFF}
	edgeColor  = color.RGBA{0x33, 0x33, 0x33, 0xFF}
	moveColor  = color.RGBA{0xFF, 0x7A, 0x00, 0xFF}
	textColor  = color.RGBA{0x11, 0x11, 0x11, 0xFF}
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
	return vg.Point{X: vg.Length(boardX0 + float64(x)*colDX), Y: vg.Length(boardY0 + float64(y)*unit)}
}

// Radius returns the radius in pixels of a stack of height h (the top
// piece's disc and one ring per piece below it).
func Radius(h int) float64 { return inner + float64(max(h-1, 0))*ring }

// fonts are Go's own (golang.org/x/image/font/gofont): embedded in the
// binary, nothing to install, the same in PNG and SVG.
var fonts = sync.OnceValues(func() (map[string]*opentype.Font, error) {
	m := map[string]*opentype.Font{}
	for name, ttf := range map[string][]byte{"regular": goregular.TTF, "bold": gobold.TTF} {
		f, err := opentype.Parse(ttf)
		if err != nil {
			return nil, fmt.Errorf("picture: font %s: %w", name, err)
		}
		m[name] = f
	}
	return m, nil
})

func face(name string, size float64) font.Face {
	fs, _ := fonts() // Draw's callers checked the error
	return font.Face{Font: font.Font{Typeface: "Go", Size: font.Length(size)}, Face: fs[name]}
}

// PNG returns the picture of g as a PNG image; names are the players, names[0]
// player 1.
//
// The board without pieces is the same in every picture: it is drawn once,
// with its palette indices, and copied (Draw paints the same pixels). The
// canvases and the paletted images are reused across calls, so a picture
// allocates little more than its PNG bytes.
func PNG(g *lyngk.Game, names [2]string, opts ...Option) ([]byte, error) {
	r, err := pngRenderer()
	if err != nil {
		return nil, err
	}
	c, _ := r.canvases.Get().(*vgimg.Canvas)
	if c == nil {
		c = newPNGCanvas()
	}
	defer r.canvases.Put(c)
	img := c.Image().(*image.RGBA)
	copy(img.Pix, r.board.Pix)
	drawPosition(c, g, names, legendOf(opts))
	out, _ := r.images.Get().(*image.Paletted)
	if out == nil {
		out = image.NewPaletted(img.Bounds(), r.pal.pal)
	}
	defer r.images.Put(out)
	r.pal.convert(img, r.board, r.boardIdx, out)
	return r.encode(out)
}

// compression is the PNG's zlib level. image/png offers only its fastest
// level (29 KB for the middle game, 2.8 ms of CPU) and the default one
// (25 KB, 5.7 ms); level 4 makes 26 KB in the fastest one's time.
const compression = 4

// encode writes p as a PNG: 8-bit indexed colour, no filter (filters do
// not help indices), one IDAT chunk. image/png writes the same format but
// chooses among four zlib levels only.
func (r *renderer) encode(p *image.Paletted) ([]byte, error) {
	z, _ := r.zlibs.Get().(*zlibWriter)
	if z == nil {
		z = &zlibWriter{}
		w, err := zlib.NewWriterLevel(&z.buf, compression)
		if err != nil {
			return nil, fmt.Errorf("picture: png: %w", err)
		}
		z.w = w
	}
	defer r.zlibs.Put(z)
	z.buf.Reset()
	z.w.Reset(&z.buf)
	w, h := p.Rect.Dx(), p.Rect.Dy()
	for y := range h {
		// Each row is its filter type (0, None) and its indices.
		z.line = append(append(z.line[:0], 0), p.Pix[y*p.Stride:y*p.Stride+w]...)
		if _, err := z.w.Write(z.line); err != nil {
			return nil, fmt.Errorf("picture: png: %w", err)
		}
	}
	if err := z.w.Close(); err != nil {
		return nil, fmt.Errorf("picture: png: %w", err)
	}
	out := make([]byte, 0, len(pngSignature)+3*12+13+3*len(p.Palette)+z.buf.Len())
	out = append(out, pngSignature...)
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	ihdr = append(ihdr, 8, 3, 0, 0, 0) // bit depth 8, indexed colour, deflate, no filter, no interlace
	out = chunk(out, "IHDR", ihdr)
	plte := make([]byte, 0, 3*len(p.Palette))
	for _, c := range p.Palette {
		rgba := color.RGBAModel.Convert(c).(color.RGBA)
		plte = append(plte, rgba.R, rgba.G, rgba.B)
	}
	out = chunk(out, "PLTE", plte)
	out = chunk(out, "IDAT", z.buf.Bytes())
	return chunk(out, "IEND", nil), nil
}

const pngSignature = "\x89PNG\r\n\x1a\n"

// chunk appends a PNG chunk to b.
func chunk(b []byte, kind string, data []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(data)))
	start := len(b)
	b = append(b, kind...)
	b = append(b, data...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
}

// zlibWriter is a reusable zlib stream and its output buffer.
type zlibWriter struct {
	buf  bytes.Buffer
	w    *zlib.Writer
	line []byte
}

// renderer holds what every PNG shares: the empty board, its palette
// indices, the palette, and pools of canvases, paletted images and zlib
// writers.
type renderer struct {
	board    *image.RGBA
	boardIdx []uint8
	pal      *indexed
	canvases sync.Pool
	images   sync.Pool
	zlibs    sync.Pool
}

func newPNGCanvas() *vgimg.Canvas {
	return vgimg.NewWith(vgimg.UseWH(Width, Height), vgimg.UseDPI(72), vgimg.UseBackgroundColor(background))
}

// pngRenderer draws the empty board and computes the palette, once.
var pngRenderer = sync.OnceValues(func() (*renderer, error) {
	if _, err := fonts(); err != nil {
		return nil, err
	}
	pal, err := palette()
	if err != nil {
		return nil, err
	}
	c := newPNGCanvas()
	drawBoardOnly(c)
	r := &renderer{board: c.Image().(*image.RGBA), pal: pal}
	empty := image.NewPaletted(r.board.Bounds(), pal.pal)
	pal.convert(r.board, nil, nil, empty)
	r.boardIdx = empty.Pix
	return r, nil
})

// An Option changes what the legend of a picture says.
type Option func(*legend)

// legend is what the legend says beyond the position.
type legend struct {
	over  bool
	marks [2]string // by each player's name when over
}

// Over says the game is over: the legend writes marks[i] by the name of
// player i+1 (e.g. "resigned" and "won", or "cancelled" for both) instead
// of whose turn it is. The position alone cannot tell a game ended by a
// resignation, a forfeit, an agreed draw or a cancellation: its rules
// status still says the game goes on, and a player is to move.
func Over(marks [2]string) Option {
	return func(l *legend) { l.over, l.marks = true, marks }
}

func legendOf(opts []Option) legend {
	var l legend
	for _, o := range opts {
		o(&l)
	}
	return l
}

// SVG returns the picture of g as an SVG document (Width×Height pt).
func SVG(g *lyngk.Game, names [2]string, opts ...Option) ([]byte, error) {
	c := vgsvg.New(Width, Height)
	if err := Draw(c, g, names, opts...); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("picture: svg: %w", err)
	}
	return b.Bytes(), nil
}

// Draw paints the picture of g on c, which must be Width×Height points with
// its origin at the bottom left (every vg canvas is).
func Draw(c vg.Canvas, g *lyngk.Game, names [2]string, opts ...Option) error {
	if _, err := fonts(); err != nil {
		return err
	}
	drawBoardOnly(c)
	drawPosition(c, g, names, legendOf(opts))
	return nil
}

// drawBoardOnly paints what every picture has: the background, the board,
// its lines and labels.
func drawBoardOnly(c vg.Canvas) {
	c.SetColor(background)
	c.Fill(rect(0, 0, Width, Height))
	drawBoard(c)
	drawLabels(c)
}

// drawPosition paints the stacks, the last move and the legend of g.
func drawPosition(c vg.Canvas, g *lyngk.Game, names [2]string, l legend) {
	for p := range lyngk.Point(lyngk.NumPoints) {
		if s := g.Stack(p); s != "" {
			drawStack(c, center(p), s)
		}
	}
	drawLastMove(c, g)
	drawLegend(c, g, names, l)
}

// drawBoard paints the board's hexagon, the lines between neighbours and a
// dot on every point.
func drawBoard(c vg.Canvas) {
	// The hexagon's corners are the six corner points, pushed out.
	corners := []string{"a1", "c7", "g7", "i1", "g1", "c1"}
	var hex vg.Path
	for i, name := range corners {
		p, _ := lyngk.ParsePoint(name)
		pt := center(p)
		mid := vg.Point{X: Width / 2, Y: vg.Length(boardY0 + 6*unit)}
		d := pt.Sub(mid)
		l := math.Hypot(float64(d.X), float64(d.Y))
		pt = mid.Add(d.Scale(vg.Length((l + 44) / l)))
		if i == 0 {
			hex.Move(pt)
		} else {
			hex.Line(pt)
		}
	}
	hex.Close()
	c.SetColor(boardFill)
	c.Fill(hex)

	c.SetColor(lineColor)
	c.SetLineWidth(1.5)
	for p := range lyngk.Point(lyngk.NumPoints) {
		px, py := p.Lattice()
		for _, d := range [][2]int{{0, 2}, {1, 1}, {1, -1}} {
			if q, ok := at(px+d[0], py+d[1]); ok {
				c.Stroke(line(center(p), center(q)))
			}
		}
	}
	for p := range lyngk.Point(lyngk.NumPoints) {
		c.Fill(circle(center(p), 3))
	}
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

// drawLabels writes the column letters above and below each column and the
// name of every point beside it.
func drawLabels(c vg.Canvas) {
	big := face("bold", 17)
	small := face("regular", 10)
	c.SetColor(labelColor)
	for col := 0; col < 9; col++ {
		letter := string(rune('A' + col))
		var top, bottom vg.Point
		for p := range lyngk.Point(lyngk.NumPoints) {
			if x, _ := p.Lattice(); x == col {
				pt := center(p)
				if top == (vg.Point{}) || pt.Y > top.Y {
					top = pt
				}
				if bottom == (vg.Point{}) || pt.Y < bottom.Y {
					bottom = pt
				}
			}
		}
		text(c, big, vg.Point{X: top.X, Y: top.Y + 38}, letter)
		text(c, big, vg.Point{X: bottom.X, Y: bottom.Y - 50}, letter)
	}
	for p := range lyngk.Point(lyngk.NumPoints) {
		pt := center(p)
		text(c, small, vg.Point{X: pt.X - 27, Y: pt.Y - 21}, p.String())
	}
}

// drawStack paints the stack s (top piece first) centred on pt.
func drawStack(c vg.Canvas, pt vg.Point, s string) {
	h := len(s)
	// Outermost ring first: the bottom piece.
	for i := h - 1; i >= 0; i-- {
		r := vg.Length(Radius(i + 1))
		col := pieceColor[s[i]]
		c.SetColor(col)
		c.Fill(circle(pt, r))
		c.SetColor(edgeColor)
		c.SetLineWidth(0.8)
		c.Stroke(circle(pt, r))
	}
	if h > 1 {
		ink := color.RGBA{0xFF, 0xFF, 0xFF, 0xFF}
		if s[0] == 'I' || s[0] == 'J' {
			ink = textColor
		}
		c.SetColor(ink)
		text(c, face("bold", 13), vg.Point{X: pt.X, Y: pt.Y - 5}, fmt.Sprint(h))
	}
}

// drawLastMove marks the last move that was not a pass: a dashed circle on
// the point it left, an arrow to the stack it made, a ring around that.
func drawLastMove(c vg.Canvas, g *lyngk.Game) {
	moves := g.Moves()
	var m lyngk.Move
	for i := len(moves) - 1; i >= 0; i-- {
		if !moves[i].IsPass() {
			m = moves[i]
			break
		}
	}
	if m.From == m.To {
		return
	}
	from, to := center(m.From), center(m.To)
	c.SetColor(moveColor)
	c.SetLineWidth(2.5)
	c.SetLineDash([]vg.Length{5, 4}, 0)
	c.Stroke(circle(from, inner))
	c.SetLineDash(nil, 0)
	rTo := vg.Length(Radius(len(g.Stack(m.To))) + 4)
	d := to.Sub(from)
	l := vg.Length(math.Hypot(float64(d.X), float64(d.Y)))
	u := d.Scale(1 / l)
	start := from.Add(u.Scale(inner + 3))
	tip := to.Sub(u.Scale(rTo + 1))
	c.SetLineWidth(3)
	c.Stroke(line(start, tip.Sub(u.Scale(6))))
	n := vg.Point{X: -u.Y, Y: u.X}
	var head vg.Path
	head.Move(tip)
	head.Line(tip.Sub(u.Scale(12)).Add(n.Scale(6)))
	head.Line(tip.Sub(u.Scale(12)).Sub(n.Scale(6)))
	head.Close()
	c.Fill(head)
	c.Stroke(circle(to, rTo))
}

// drawLegend writes, under the board, each player's claimed colours and
// removed stacks, who is to move or how each ended, and the colours still
// free.
func drawLegend(c vg.Canvas, g *lyngk.Game, names [2]string, l legend) {
	f := face("regular", 15)
	b := face("bold", 15)
	y := vg.Length(56)
	for i, name := range names {
		x := vg.Length(24)
		if i == 1 {
			x = Width / 2
		}
		c.SetColor(textColor)
		left(c, b, vg.Point{X: x, Y: y}, name)
		switch {
		case l.over:
			c.SetColor(labelColor)
			left(c, f, vg.Point{X: x + b.Width(name) + 8, Y: y}, l.marks[i])
		case g.Turn() == i+1:
			c.SetColor(labelColor)
			left(c, f, vg.Point{X: x + b.Width(name) + 8, Y: y}, "to move")
		}
		claims := g.Claims(i + 1)
		cx := x + 8
		if len(claims) == 0 {
			c.SetColor(labelColor)
			left(c, f, vg.Point{X: cx, Y: y - 26}, "no colour claimed")
		}
		for _, col := range claims {
			swatch(c, vg.Point{X: cx + 8, Y: y - 21}, col.Letter())
			c.SetColor(textColor)
			left(c, f, vg.Point{X: cx + 22, Y: y - 26}, col.Name())
			cx += 22 + f.Width(col.Name()) + 14
		}
		c.SetColor(textColor)
		stacks := "stacks"
		if g.Removed(i+1) == 1 {
			stacks = "stack"
		}
		left(c, f, vg.Point{X: x + 8, Y: y - 48}, fmt.Sprintf("%d %s removed", g.Removed(i+1), stacks))
	}
	if free := g.Free(); len(free) > 0 {
		var s []string
		for _, col := range free {
			s = append(s, string(col.Letter()))
		}
		c.SetColor(labelColor)
		left(c, face("regular", 12), vg.Point{X: 24, Y: Height - 20}, "Free: "+strings.Join(s, " "))
	}
	swatch(c, vg.Point{X: Width - 80, Y: 25}, 'J')
	c.SetColor(textColor)
	left(c, f, vg.Point{X: Width - 66, Y: 20}, "Joker")
	if g.Variant() == lyngk.Stack6 {
		c.SetColor(labelColor)
		right(c, face("regular", 12), vg.Point{X: Width - 24, Y: Height - 20}, "Stack6")
	}
}

// swatch is a piece of colour letter l, for the legend.
func swatch(c vg.Canvas, pt vg.Point, l byte) {
	c.SetColor(pieceColor[l])
	c.Fill(circle(pt, 8))
	c.SetColor(edgeColor)
	c.SetLineWidth(0.8)
	c.Stroke(circle(pt, 8))
}

// indexed is the palette of the PNGs: the paletteSize most frequent colours
// of a reference picture (every flat colour of the drawing and the commonest
// anti-aliasing blends), each other pixel taking the nearest of them. The
// drawing has a dozen flat colours, so nothing visible is lost, and the
// PNG is a third of the size of an RGB one and quicker to write. Nearest
// colours are remembered across pictures, in a table of cacheSlots
// (a colour that meets another's slot replaces it).
type indexed struct {
	pal   color.Palette
	mu    sync.Mutex
	cache [cacheSlots]slot
}

// slot is a remembered colour (RGBA packed in a uint32) and its index.
type slot struct {
	rgba uint32
	idx  uint8
	used bool
}

const cacheBits = 14

const cacheSlots = 1 << cacheBits

// paletteSize is the number of colours of the PNGs. 64 keep the
// anti-aliased edges smooth (each blend takes the nearest of the commonest
// ones; 32 made the rings' edges visibly harder) and, with zlib level 4,
// make a picture of 24–28 KB where 256 colours made 33–38 KB.
const paletteSize = 64

// palette is computed once, from the middle game of board 102 (both
// players' claims, a 5-stack, jokers, the last move).
var palette = sync.OnceValues(func() (*indexed, error) {
	g := lyngk.New(102, lyngk.Standard)
	for _, s := range strings.Fields("g5-g6 d5-d4 I,d3-e3 K,d2-d4 G,g1-g3 c3-e2 c5-c6 R,b3-b2 f2-h1 d6-e7 c2-b1 d1-b2 g2-e2 f4-f5") {
		m, _, err := lyngk.ParseMove(s)
		if err == nil {
			err = g.Apply(m)
		}
		if err != nil {
			return nil, fmt.Errorf("picture: palette: %w", err)
		}
	}
	c := newPNGCanvas()
	if err := Draw(c, &g, [2]string{"alice", "bob"}); err != nil {
		return nil, err
	}
	img := c.Image().(*image.RGBA)
	count := map[color.RGBA]int{}
	for i := 0; i < len(img.Pix); i += 4 {
		count[color.RGBA{img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3]}]++
	}
	for _, col := range pieceColor {
		count[col] += len(img.Pix) // the pieces' colours exactly, always
	}
	cols := make([]color.RGBA, 0, len(count))
	for c := range count {
		cols = append(cols, c)
	}
	// Most frequent first; ties by value, so the palette is deterministic.
	slices.SortFunc(cols, func(a, b color.RGBA) int {
		if d := count[b] - count[a]; d != 0 {
			return d
		}
		return cmp.Compare(uint32(a.R)<<24|uint32(a.G)<<16|uint32(a.B)<<8|uint32(a.A),
			uint32(b.R)<<24|uint32(b.G)<<16|uint32(b.B)<<8|uint32(b.A))
	})
	p := &indexed{}
	for _, c := range cols[:min(len(cols), paletteSize)] {
		p.pal = append(p.pal, c)
	}
	return p, nil
})

// convert maps img onto the palette, into out (of img's bounds). Where
// img has the pixel of board (the empty board, when not nil), the index
// is boardIdx's: only the pixels the position painted are looked up.
func (p *indexed) convert(img, board *image.RGBA, boardIdx []uint8, out *image.Paletted) {
	b := img.Bounds()
	p.mu.Lock()
	defer p.mu.Unlock()
	last, li := uint32(0), p.index(0)
	for y := range b.Dy() {
		o := y * img.Stride
		row := img.Pix[o : o+4*b.Dx()]
		var brow []uint8
		if board != nil {
			brow = board.Pix[o : o+4*b.Dx()]
		}
		orow := out.Pix[y*out.Stride : y*out.Stride+b.Dx()]
		for x := 0; x < len(row); x += 4 {
			if brow != nil && binary.LittleEndian.Uint32(row[x:]) == binary.LittleEndian.Uint32(brow[x:]) {
				orow[x/4] = boardIdx[y*b.Dx()+x/4]
				continue
			}
			if c := binary.LittleEndian.Uint32(row[x:]); c != last {
				last, li = c, p.index(c)
			}
			orow[x/4] = li
		}
	}
}

// index returns the palette index of the colour c (R, G, B, A from the
// low byte up). p.mu must be held.
func (p *indexed) index(c uint32) uint8 {
	s := &p.cache[(c*0x9E3779B1)>>(32-cacheBits)]
	if !s.used || s.rgba != c {
		i := p.pal.Index(color.RGBA{uint8(c), uint8(c >> 8), uint8(c >> 16), uint8(c >> 24)})
		*s = slot{rgba: c, idx: uint8(i), used: true}
	}
	return s.idx
}

func rect(x0, y0, x1, y1 vg.Length) vg.Path {
	var p vg.Path
	p.Move(vg.Point{X: x0, Y: y0})
	p.Line(vg.Point{X: x1, Y: y0})
	p.Line(vg.Point{X: x1, Y: y1})
	p.Line(vg.Point{X: x0, Y: y1})
	p.Close()
	return p
}

func circle(pt vg.Point, r vg.Length) vg.Path {
	var p vg.Path
	p.Move(vg.Point{X: pt.X + r, Y: pt.Y})
	p.Arc(pt, r, 0, 2*math.Pi)
	p.Close()
	return p
}

func line(a, b vg.Point) vg.Path {
	var p vg.Path
	p.Move(a)
	p.Line(b)
	return p
}

// text writes s centred on pt.X with its baseline at pt.Y.
func text(c vg.Canvas, f font.Face, pt vg.Point, s string) {
	c.FillString(f, vg.Point{X: pt.X - f.Width(s)/2, Y: pt.Y}, s)
}

func left(c vg.Canvas, f font.Face, pt vg.Point, s string) { c.FillString(f, pt, s) }

func right(c vg.Canvas, f font.Face, pt vg.Point, s string) {
	c.FillString(f, vg.Point{X: pt.X - f.Width(s), Y: pt.Y}, s)
}
