package draw

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"sync"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"lyngk.example/lyngk/engine/bounded"
)

// A Scene is what a game's pictures are made of, as its Renderer needs
// it: the size, the static board, a reference picture for the palette,
// and the sizes of the caches.
type Scene struct {
	Width, Height int
	Background    color.RGBA
	// Board paints what every picture has on the Background; a PNG
	// starts from its palette indices.
	Board func(c vg.Canvas)
	// Reference paints a typical whole picture (a middle game), whose
	// commonest blends the palette takes after Must (NewPicture sets it).
	Reference func(c vg.Canvas) error
	// Must are the colours the palette holds exactly; Colors is the most
	// colours it has (see NewPalette).
	Must   []color.RGBA
	Colors int
	// Sprites and Bands are the budgets in bytes of the caches of
	// sprites and of compressed bands (see NewSprites and NewEncoder).
	Sprites, Bands int
	// BandFirst and BandRows are the heights of the first band and of
	// the others, Level the deflate level (see NewEncoder).
	BandFirst, BandRows, Level int
}

// A Renderer makes the PNGs of one game's pictures: it holds the palette,
// the empty board's indices, the sprites and the encoder that every
// picture shares, and a pool of pictures to compose on. It is safe for
// concurrent use.
type Renderer struct {
	width, height int
	pal           *Palette
	board         []uint8
	sprites       *bounded.Cache[*Sprite]
	enc           *Encoder
	images        sync.Pool
}

// NewRenderer draws the reference picture and the empty board of s once,
// and computes the palette from the reference.
func NewRenderer(s Scene) (*Renderer, error) {
	if err := Fonts(); err != nil {
		return nil, err
	}
	ref := Canvas(s.Width, s.Height, s.Background)
	if err := s.Reference(ref); err != nil {
		return nil, err
	}
	pal := NewPalette(s.Colors, s.Must, ref.Image().(*image.RGBA))
	empty := Canvas(s.Width, s.Height, s.Background)
	s.Board(empty)
	return &Renderer{
		width:   s.Width,
		height:  s.Height,
		pal:     pal,
		board:   pal.Convert(empty.Image().(*image.RGBA)).Pix,
		sprites: NewSprites(s.Sprites),
		enc:     NewEncoder(s.BandFirst, s.BandRows, s.Level, s.Bands),
	}, nil
}

// PNG composes a picture, the pieces paint paints onto the empty board,
// and encodes it.
func (r *Renderer) PNG(paint func(Painter)) ([]byte, error) {
	img, _ := r.images.Get().(*image.Paletted)
	if img == nil {
		img = image.NewPaletted(image.Rect(0, 0, r.width, r.height), r.pal.Colors())
	}
	defer r.images.Put(img)
	copy(img.Pix, r.board)
	paint(Raster{Img: img, Pal: r.pal, Sprites: r.sprites})
	return r.enc.Encode(img)
}

// Canvas is a raster canvas of width×height pixels (1 pt = 1 px) filled
// with background.
func Canvas(width, height int, background color.RGBA) *vgimg.Canvas {
	return vgimg.NewWith(vgimg.UseWH(vg.Length(width), vg.Length(height)), vgimg.UseDPI(72), vgimg.UseBackgroundColor(background))
}

// SVG returns what paint paints on a canvas of width×height points as an
// SVG document.
func SVG(width, height int, paint func(c vg.Canvas) error) ([]byte, error) {
	c := vgsvg.New(vg.Length(width), vg.Length(height))
	if err := paint(c); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("draw: svg: %w", err)
	}
	return b.Bytes(), nil
}
