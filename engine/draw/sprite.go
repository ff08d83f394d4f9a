package draw

import (
	"image"
	"image/color"
	"math"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"

	"lyngk.example/lyngk/engine/bounded"
)

// A Painter paints the pieces of a picture. Piece paints what paint paints
// on a canvas whose origin is moved to at; key names what paint paints
// (the same key, the same pixels), and box, relative to at, is where it
// paints (anything outside is lost in a raster).
type Painter interface {
	Piece(key string, at vg.Point, box vg.Rectangle, paint func(c vg.Canvas))
}

// VG paints every piece directly on a vector canvas.
type VG struct{ C vg.Canvas }

// Piece implements Painter.
func (v VG) Piece(_ string, at vg.Point, _ vg.Rectangle, paint func(c vg.Canvas)) {
	v.C.Push()
	v.C.Translate(at)
	paint(v.C)
	v.C.Pop()
}

// Raster composes pieces onto a paletted picture (its origin at the top
// left, vg's at the bottom left), each piece from its sprite in Sprites,
// drawn on a miss. Piece positions are rounded to whole pixels, so that
// a sprite is the same wherever it lands.
type Raster struct {
	Img     *image.Paletted
	Pal     *Palette
	Sprites *bounded.Cache[*Sprite]
}

// Piece implements Painter.
func (r Raster) Piece(key string, at vg.Point, box vg.Rectangle, paint func(c vg.Canvas)) {
	s := r.Sprites.Get(key, func() *Sprite { return Render(r.Pal, box, paint) })
	s.Paint(r.Img, r.Pal, int(math.Round(float64(at.X))), r.Img.Rect.Dy()-int(math.Round(float64(at.Y))))
}

// A Sprite is a piece drawn once: by pixel, nothing where it is
// transparent, a palette index where it is opaque, and where it is partly
// transparent its colour (alpha-premultiplied) and, for palettes of up to
// 16 colours, the index it makes over each colour of the palette (so
// that painting it looks nothing up).
type Sprite struct {
	dx, dy, w, h int      // top left corner relative to the anchor; size
	spans        [][2]int // by row, the columns [from, to) not transparent
	px           []uint16 // by pixel: 0 transparent, 1+i index i, partial+k partial pixel k
	rgba         []color.RGBA
	over         [][16]uint8
}

const partial = 0x100 + 1

// Render paints paint within box (relative to the anchor, vg's
// coordinates) on a transparent canvas and makes it a sprite.
func Render(p *Palette, box vg.Rectangle, paint func(c vg.Canvas)) *Sprite {
	x0, y0 := math.Floor(float64(box.Min.X)), math.Floor(float64(box.Min.Y))
	x1, y1 := math.Ceil(float64(box.Max.X)), math.Ceil(float64(box.Max.Y))
	w, h := max(int(x1-x0), 1), max(int(y1-y0), 1)
	c := vgimg.NewWith(vgimg.UseWH(vg.Length(w), vg.Length(h)), vgimg.UseDPI(72), vgimg.UseBackgroundColor(color.Transparent))
	c.Translate(vg.Point{X: vg.Length(-x0), Y: vg.Length(-y0)})
	paint(c)
	return NewSprite(p, c.Image().(*image.RGBA), int(x0), -int(y1))
}

// NewSprite makes img (alpha-premultiplied) a sprite whose top left corner
// is (dx, dy) pixels from its anchor (y down).
func NewSprite(p *Palette, img *image.RGBA, dx, dy int) *Sprite {
	b := img.Bounds()
	s := &Sprite{dx: dx, dy: dy, w: b.Dx(), h: b.Dy()}
	s.px = make([]uint16, s.w*s.h)
	s.spans = make([][2]int, s.h)
	p.mu.Lock()
	defer p.mu.Unlock()
	for y := range s.h {
		span := [2]int{s.w, 0}
		for x := range s.w {
			o := img.PixOffset(b.Min.X+x, b.Min.Y+y)
			c := color.RGBA{img.Pix[o], img.Pix[o+1], img.Pix[o+2], img.Pix[o+3]}
			i := y*s.w + x
			switch c.A {
			case 0:
				continue
			case 0xFF:
				s.px[i] = 1 + uint16(p.index(pack(c)))
			default:
				s.px[i] = partial + uint16(len(s.rgba))
				s.rgba = append(s.rgba, c)
				if len(p.rgba) <= 16 {
					var over [16]uint8
					for d := range p.rgba {
						over[d] = p.index(pack(blend(c, p.rgba[d])))
					}
					s.over = append(s.over, over)
				}
			}
			span = [2]int{min(span[0], x), x + 1}
		}
		s.spans[y] = span
	}
	return s
}

// blend is src (alpha-premultiplied) over the opaque dst.
func blend(src, dst color.RGBA) color.RGBA {
	k := uint32(0xFF - src.A)
	return color.RGBA{
		uint8(uint32(src.R) + (uint32(dst.R)*k+0x7F)/0xFF),
		uint8(uint32(src.G) + (uint32(dst.G)*k+0x7F)/0xFF),
		uint8(uint32(src.B) + (uint32(dst.B)*k+0x7F)/0xFF),
		0xFF,
	}
}

// size is what a sprite costs in memory, roughly.
func (s *Sprite) size() int { return 64 + 2*len(s.px) + 16*len(s.spans) + 20*len(s.rgba) }

// Paint composes s onto img with its anchor at pixel (x, y); what falls
// outside img is clipped. img's palette must be p's.
func (s *Sprite) Paint(img *image.Paletted, p *Palette, x, y int) {
	x0, y0 := x+s.dx, y+s.dy
	b := img.Rect
	locked := false
	for sy := max(0, b.Min.Y-y0); sy < s.h && y0+sy < b.Max.Y; sy++ {
		o := img.PixOffset(0, y0+sy) // x = 0 may lie outside Rect; only [b.Min.X, b.Max.X) is touched
		sx0 := max(s.spans[sy][0], b.Min.X-x0)
		sx1 := min(s.spans[sy][1], b.Max.X-x0)
		for sx := sx0; sx < sx1; sx++ {
			v := s.px[sy*s.w+sx]
			switch {
			case v == 0:
			case v < partial:
				img.Pix[o+x0+sx] = uint8(v - 1)
			case s.over != nil:
				img.Pix[o+x0+sx] = s.over[v-partial][img.Pix[o+x0+sx]&0x0F]
			default:
				if !locked {
					p.mu.Lock()
					defer p.mu.Unlock()
					locked = true
				}
				img.Pix[o+x0+sx] = p.index(pack(blend(s.rgba[v-partial], p.rgba[img.Pix[o+x0+sx]])))
			}
		}
	}
}

// NewSprites makes a cache of sprites of about budget bytes.
func NewSprites(budget int) *bounded.Cache[*Sprite] {
	return bounded.New(budget, (*Sprite).size)
}
