package draw

import (
	"cmp"
	"encoding/binary"
	"image"
	"image/color"
	"maps"
	"slices"
	"sync"
)

// Palette is the fixed set of colours of a picture: the colours its
// drawing must show exactly, then the commonest other colours of a
// reference drawing (the anti-aliasing blends) that are neither rare nor
// near a colour already chosen, each other colour taking the nearest of
// them. Nearest colours are remembered, in a table of
// cacheSlots (a colour that meets another's slot replaces it); a Palette
// is safe for concurrent use.
type Palette struct {
	colors color.Palette
	rgba   []color.RGBA
	mu     sync.Mutex
	cache  [cacheSlots]slot
}

// slot is a remembered colour (RGBA packed in a uint32) and its index.
type slot struct {
	rgba uint32
	idx  uint8
	used bool
}

const cacheBits = 14

const cacheSlots = 1 << cacheBits

// A colour of the reference takes a slot of the palette only if it covers
// at least 1/rare of the reference's pixels and differs by more than near
// in R, G, B or A from every colour already chosen. A rare or near colour
// would show nothing an eye can tell from its neighbour's, but scattering
// a second index among the first's costs the PNG bytes: in LYNGK's
// picture the rasteriser's near-white (253, 254, 254) and near-line (169,
// 181, 193) pixels were two of the 16 colours, and the two blends that
// would take their slots cover 0.04% of the picture each; without them
// the PNGs are 4-5% smaller (TestPaletteSlots, BenchmarkPNG).
const (
	rare = 1000
	near = 4
)

// NewPalette makes a palette of at most n (≤ 256) colours: must first,
// in their order, then the commonest colours of ref (ties by value, so
// the palette is deterministic) that cover at least 1/rare of ref and
// differ by more than near from each colour before them.
func NewPalette(n int, must []color.RGBA, ref *image.RGBA) *Palette {
	p := &Palette{}
	seen := map[color.RGBA]bool{}
	for _, c := range must {
		if !seen[c] && len(p.rgba) < n {
			seen[c] = true
			p.rgba = append(p.rgba, c)
		}
	}
	count := map[color.RGBA]int{}
	if ref != nil {
		for i := 0; i < len(ref.Pix); i += 4 {
			count[color.RGBA{ref.Pix[i], ref.Pix[i+1], ref.Pix[i+2], ref.Pix[i+3]}]++
		}
	}
	cols := slices.SortedFunc(maps.Keys(count), func(a, b color.RGBA) int {
		if d := count[b] - count[a]; d != 0 {
			return d
		}
		return cmp.Compare(pack(a), pack(b))
	})
	for _, c := range cols {
		if len(p.rgba) == n || count[c]*rare < len(ref.Pix)/4 {
			break
		}
		if !slices.ContainsFunc(p.rgba, func(o color.RGBA) bool { return isNear(c, o) }) {
			p.rgba = append(p.rgba, c)
		}
	}
	for _, c := range p.rgba {
		p.colors = append(p.colors, c)
	}
	return p
}

// isNear says whether a and b differ by at most near in each of R, G, B
// and A.
func isNear(a, b color.RGBA) bool {
	d := func(x, y uint8) int { return max(int(x)-int(y), int(y)-int(x)) }
	return max(d(a.R, b.R), d(a.G, b.G), d(a.B, b.B), d(a.A, b.A)) <= near
}

func pack(c color.RGBA) uint32 {
	return uint32(c.R) | uint32(c.G)<<8 | uint32(c.B)<<16 | uint32(c.A)<<24
}

// Colors returns the palette's colours, for an image.Paletted.
func (p *Palette) Colors() color.Palette { return p.colors }

// Len is the number of colours.
func (p *Palette) Len() int { return len(p.rgba) }

// index returns the index of the colour c (R, G, B, A from the low byte
// up). p.mu must be held.
func (p *Palette) index(c uint32) uint8 {
	s := &p.cache[(c*0x9E3779B1)>>(32-cacheBits)]
	if !s.used || s.rgba != c {
		i := p.colors.Index(color.RGBA{uint8(c), uint8(c >> 8), uint8(c >> 16), uint8(c >> 24)})
		*s = slot{rgba: c, idx: uint8(i), used: true}
	}
	return s.idx
}

// Convert maps img onto the palette.
func (p *Palette) Convert(img *image.RGBA) *image.Paletted {
	b := img.Bounds()
	out := image.NewPaletted(image.Rect(0, 0, b.Dx(), b.Dy()), p.colors)
	p.mu.Lock()
	defer p.mu.Unlock()
	for y := range b.Dy() {
		o := y * img.Stride
		row := img.Pix[o : o+4*b.Dx()]
		orow := out.Pix[y*out.Stride : y*out.Stride+b.Dx()]
		for x := 0; x < len(row); x += 4 {
			orow[x/4] = p.index(binary.LittleEndian.Uint32(row[x:]))
		}
	}
	return out
}
