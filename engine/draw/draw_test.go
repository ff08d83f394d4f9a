package draw

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"hash/adler32"
	"image"
	"image/color"
	"image/png"
	"io"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/plot/vg"
)

// grey returns a palette of n greys.
func grey(n int) *Palette {
	var must []color.RGBA
	for i := range n {
		v := uint8(i * 255 / max(n-1, 1))
		must = append(must, color.RGBA{v, v, v, 0xFF})
	}
	return NewPalette(n, must, nil)
}

// picture returns a w×h picture of the palette p with a few rectangles of
// random colours on colour 0.
func picture(rng *rand.Rand, p *Palette, w, h int) *image.Paletted {
	img := image.NewPaletted(image.Rect(0, 0, w, h), p.Colors())
	for range 6 {
		x0, y0 := rng.IntN(w), rng.IntN(h)
		x1, y1 := x0+rng.IntN(w-x0)+1, y0+rng.IntN(h-y0)+1
		c := uint8(rng.IntN(p.Len()))
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				img.Pix[y*img.Stride+x] = c
			}
		}
	}
	return img
}

// check decodes b as a PNG and its IDAT as a zlib stream (which checks
// the Adler-32), and compares the indices with want's.
func check(t *testing.T, b []byte, want *image.Paletted) {
	t.Helper()
	got, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("png.Decode: %v", err)
	}
	pg, ok := got.(*image.Paletted)
	if !ok {
		t.Fatalf("decoded as %T, want *image.Paletted", got)
	}
	if pg.Rect != want.Rect || len(pg.Palette) != len(want.Palette) {
		t.Fatalf("decoded %v with %d colours, want %v with %d", pg.Rect, len(pg.Palette), want.Rect, len(want.Palette))
	}
	for y := range want.Rect.Dy() {
		if !bytes.Equal(pg.Pix[y*pg.Stride:y*pg.Stride+want.Rect.Dx()], want.Pix[y*want.Stride:y*want.Stride+want.Rect.Dx()]) {
			t.Fatalf("row %d differs", y)
		}
	}
	// The IDAT: the bytes after the PLTE chunk's, up to IEND.
	i := bytes.Index(b, []byte("IDAT"))
	n := int(b[i-4])<<24 | int(b[i-3])<<16 | int(b[i-2])<<8 | int(b[i-1])
	zr, err := zlib.NewReader(bytes.NewReader(b[i+4 : i+4+n]))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(zr); err != nil {
		t.Fatalf("zlib stream: %v", err)
	}
}

// TestEncoder writes pictures of every bit depth, odd widths and bands of
// any height as PNG and decodes them back, the zlib checksum included.
func TestEncoder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{2, 3, 4, 16, 17, 256} {
		for _, w := range []int{1, 7, 8, 33, 600} {
			for _, band := range [][2]int{{1, 1}, {7, 34}, {34, 34}, {1000, 5}} {
				t.Run(fmt.Sprintf("%dcolours-%dwide-band%v", n, w, band), func(t *testing.T) {
					p := grey(n)
					img := picture(rng, p, w, 70)
					e := NewEncoder(band[0], band[1], 1, 1<<20)
					b, err := e.Encode(img)
					if err != nil {
						t.Fatal(err)
					}
					if got, want := int(b[24]), Depth(n); got != want {
						t.Errorf("bit depth %d, want %d", got, want)
					}
					check(t, b, img)
				})
			}
		}
	}
}

// TestEncoderReuse: a band already compressed is not compressed again,
// whatever picture shows it; a picture that differs from one seen in one
// band costs one band.
func TestEncoderReuse(t *testing.T) {
	p := grey(16)
	img := picture(rand.New(rand.NewPCG(3, 4)), p, 600, 600)
	for y := range 600 { // every band unlike the others
		img.Pix[y*img.Stride+y] = uint8(1 + y%15)
	}
	e := NewEncoder(7, 34, 4, 8<<20)
	first, err := e.Encode(img)
	if err != nil {
		t.Fatal(err)
	}
	if _, compressed := e.Bands(); compressed != 19 {
		t.Fatalf("first picture: %d bands compressed, want 19 (7 rows, then 34 each)", compressed)
	}
	again, err := e.Encode(img)
	if err != nil {
		t.Fatal(err)
	}
	if reused, compressed := e.Bands(); reused != 19 || compressed != 19 {
		t.Errorf("same picture again: %d reused, %d compressed in all; want 19 and 19", reused, compressed)
	}
	if !bytes.Equal(first, again) {
		t.Error("the same picture encodes differently")
	}
	img.Pix[300*img.Stride+10] ^= 1 // row 300: band 1 + (300-7)/34 = 9
	b, err := e.Encode(img)
	if err != nil {
		t.Fatal(err)
	}
	if _, compressed := e.Bands(); compressed != 20 {
		t.Errorf("one pixel changed: %d bands compressed in all, want 20", compressed)
	}
	check(t, b, img)
}

// TestAdlerCombine: the Adler-32 of two byte strings put together is the
// combination of theirs, at every length around the modulus.
func TestAdlerCombine(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n1 := range []int{0, 1, 5552, 65520, 65521, 65522, 200000} {
		for _, n2 := range []int{0, 1, 3, 65521, 65522, 131043, 300001} {
			a, b := make([]byte, n1), make([]byte, n2)
			for i := range a {
				a[i] = byte(rng.Uint32())
			}
			for i := range b {
				b[i] = 0xFF - byte(rng.IntN(3))
			}
			want := adler32.Checksum(append(a, b...))
			if got := adlerCombine(adler32.Checksum(a), adler32.Checksum(b), n2); got != want {
				t.Errorf("%d+%d bytes: %08x, want %08x", n1, n2, got, want)
			}
		}
	}
}

// TestSprite: a sprite's opaque pixels take their palette index, its
// transparent ones leave the picture as it was, a half-transparent one
// the nearest colour to the blend; what falls outside the picture is
// clipped.
func TestSprite(t *testing.T) {
	p := grey(16) // index i is grey 17·i
	src := image.NewRGBA(image.Rect(0, 0, 3, 1))
	copy(src.Pix, []byte{
		0xFF, 0xFF, 0xFF, 0xFF, // opaque white
		0, 0, 0, 0, // transparent
		0x80, 0x80, 0x80, 0x80, // white at half alpha (premultiplied)
	})
	s := NewSprite(p, src, -1, 0)
	for _, x := range []int{-2, 0, 1, 2, 3, 4, 5} {
		img := image.NewPaletted(image.Rect(0, 0, 4, 1), p.Colors())
		s.Paint(img, p, x, 0) // the sprite's pixels land at x-1, x, x+1
		want := []uint8{0, 0, 0, 0}
		for i, v := range []uint8{15, 0, 8} { // white; black; 0x80 is grey 136 = 8·17
			if at := x - 1 + i; at >= 0 && at < 4 {
				want[at] = v
			}
		}
		if !bytes.Equal(img.Pix, want) {
			t.Errorf("painted at %d: %v, want %v", x, img.Pix, want)
		}
	}
	// The same through Render: a grey square in a box.
	r := Render(p, vg.Rectangle{Min: vg.Point{X: -2, Y: -2}, Max: vg.Point{X: 2, Y: 2}}, func(c vg.Canvas) {
		c.SetColor(color.RGBA{0x88, 0x88, 0x88, 0xFF})
		c.Fill(Rect(-1, -1, 1, 1))
	})
	img := image.NewPaletted(image.Rect(0, 0, 10, 10), p.Colors())
	r.Paint(img, p, 5, 5)
	for y := range 10 {
		for x := range 10 {
			want := uint8(0)
			if x >= 4 && x < 6 && y >= 4 && y < 6 {
				want = 8
			}
			if got := img.Pix[y*10+x]; got != want {
				t.Errorf("rendered square: (%d,%d) is %d, want %d", x, y, got, want)
			}
		}
	}
}

// TestPaletteMust: the colours a drawing must show exactly come first,
// then the commonest of the reference.
func TestPaletteMust(t *testing.T) {
	ref := image.NewRGBA(image.Rect(0, 0, 10, 1))
	for x := range 10 {
		v := uint8(10)
		if x < 3 {
			v = 20
		}
		ref.Set(x, 0, color.RGBA{v, v, v, 0xFF})
	}
	p := NewPalette(3, []color.RGBA{{1, 2, 3, 0xFF}}, ref)
	want := color.Palette{color.RGBA{1, 2, 3, 0xFF}, color.RGBA{10, 10, 10, 0xFF}, color.RGBA{20, 20, 20, 0xFF}}
	if fmt.Sprint(p.Colors()) != fmt.Sprint(want) {
		t.Errorf("palette %v, want %v", p.Colors(), want)
	}
}

// TestPaletteSlots: a colour of the reference takes a slot only if it
// covers at least 1/rare of it and is more than near from every colour
// already in the palette; the palette is then shorter than asked.
func TestPaletteSlots(t *testing.T) {
	white := color.RGBA{0xFF, 0xFF, 0xFF, 0xFF}
	grey := color.RGBA{0x80, 0x80, 0x80, 0xFF}
	for _, tc := range []struct {
		name  string
		other color.RGBA
		count int // pixels of other among 10,000
		want  int // colours in the palette
	}{
		{"distinct and common", color.RGBA{0x40, 0x40, 0x40, 0xFF}, 100, 3},
		{"exactly 1/rare", color.RGBA{0x40, 0x40, 0x40, 0xFF}, 10000 / rare, 3},
		{"rare", color.RGBA{0x40, 0x40, 0x40, 0xFF}, 10000/rare - 1, 2},
		{"near white", color.RGBA{0xFF - near, 0xFF, 0xFE, 0xFF}, 5000, 2},
		{"just beyond near white", color.RGBA{0xFF - near - 1, 0xFF, 0xFF, 0xFF}, 5000, 3},
		{"near grey", color.RGBA{0x80 + near, 0x80 - near, 0x80, 0xFF}, 100, 2},
	} {
		ref := image.NewRGBA(image.Rect(0, 0, 100, 100))
		for i := range 10000 {
			c := white
			if i < tc.count {
				c = tc.other
			}
			ref.SetRGBA(i%100, i/100, c)
		}
		p := NewPalette(16, []color.RGBA{white, grey}, ref)
		if p.Len() != tc.want {
			t.Errorf("%s: palette %v, want %d colours", tc.name, p.Colors(), tc.want)
		}
	}
}

// TestRenderer: a PNG is the empty board with the pieces painted on it,
// in the board's palette; the next PNG starts from the empty board again
// (the pooled picture does not keep the last one's pieces).
func TestRenderer(t *testing.T) {
	white, grey, black := color.RGBA{0xFF, 0xFF, 0xFF, 0xFF}, color.RGBA{0x80, 0x80, 0x80, 0xFF}, color.RGBA{0, 0, 0, 0xFF}
	board := func(c vg.Canvas) {
		c.SetColor(white)
		c.Fill(Rect(0, 0, 40, 30))
		c.SetColor(grey)
		c.Fill(Rect(0, 0, 20, 30))
	}
	dot := func(pt Painter) {
		pt.Piece("dot", vg.Point{X: 30, Y: 20}, Square(3), func(c vg.Canvas) {
			c.SetColor(black)
			c.Fill(Rect(-2, -2, 2, 2))
		})
	}
	r, err := NewRenderer(Scene{
		Width: 40, Height: 30, Background: white,
		Board:     board,
		Reference: func(c vg.Canvas) error { board(c); dot(VG{C: c}); return nil },
		Must:      []color.RGBA{white, grey, black}, Colors: 4,
		Sprites: 1 << 10, Bands: 1 << 10, BandFirst: 7, BandRows: 10, Level: 6,
	})
	if err != nil {
		t.Fatal(err)
	}
	at := func(b []byte, x, y int) color.RGBA {
		t.Helper()
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if img.Bounds() != image.Rect(0, 0, 40, 30) {
			t.Fatalf("bounds %v, want 40×30", img.Bounds())
		}
		return color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
	}
	with, err := r.PNG(dot)
	if err != nil {
		t.Fatal(err)
	}
	without, err := r.PNG(func(Painter) {})
	if err != nil {
		t.Fatal(err)
	}
	// The dot is 4 px square around (30, 20) from the bottom left: rows
	// 8 to 11 from the top.
	for _, tc := range []struct {
		b    []byte
		x, y int
		want color.RGBA
	}{
		{with, 30, 10, black}, {with, 10, 10, grey}, {with, 35, 25, white},
		{without, 30, 10, white}, {without, 10, 10, grey},
	} {
		if got := at(tc.b, tc.x, tc.y); got != tc.want {
			t.Errorf("(%d, %d) is %v, want %v", tc.x, tc.y, got, tc.want)
		}
	}
	svg, err := SVG(40, 30, func(c vg.Canvas) error { board(c); dot(VG{C: c}); return nil })
	if err != nil || !bytes.HasPrefix(svg, []byte("<?xml")) || !bytes.Contains(svg, []byte(`width="40pt"`)) {
		t.Errorf("SVG: %v\n%.200s", err, svg)
	}
}

// keys records the keys of the pieces painted.
type keys []string

func (k *keys) Piece(key string, _ vg.Point, _ vg.Rectangle, _ func(vg.Canvas)) {
	*k = append(*k, key)
}

// TestWordKeys: a word's sprite is named by all that changes its pixels
// (face, size, colour, text), so that no two looks share a sprite.
func TestWordKeys(t *testing.T) {
	if err := Fonts(); err != nil {
		t.Fatal(err)
	}
	var k keys
	ink := color.RGBA{0x11, 0x22, 0x33, 0xFF}
	Word(&k, "regular", 19, ink, vg.Point{}, "to move")
	Word(&k, "bold", 19, ink, vg.Point{}, "to move")
	Word(&k, "regular", 19.5, ink, vg.Point{}, "to move")
	Word(&k, "regular", 19, color.RGBA{0x11, 0x22, 0x34, 0xFF}, vg.Point{}, "to move")
	Word(&k, "regular", 19, ink, vg.Point{X: 5}, "to move")
	want := keys{
		"word regular 19 112233 to move", "word bold 19 112233 to move", "word regular 19.5 112233 to move",
		"word regular 19 112234 to move", "word regular 19 112233 to move",
	}
	if fmt.Sprint(k) != fmt.Sprint(want) {
		t.Errorf("keys %q, want %q", k, want)
	}
}
