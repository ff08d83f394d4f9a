package drawtest

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"
)

func pngOf(t *testing.T, c color.RGBA, x int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(x, 1, c)
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestHelpers: the helpers tell what the pictures' tests rely on them to
// tell: one pixel of another colour, or elsewhere, makes two PNGs differ;
// a colour 7 levels off is not near; an SVG's texts, circles and viewBox.
func TestHelpers(t *testing.T) {
	red := color.RGBA{0xC8, 0x28, 0x28, 0xFF}
	a := pngOf(t, red, 1)
	if !SamePixels(t, a, pngOf(t, red, 1)) || SamePixels(t, a, pngOf(t, red, 2)) || SamePixels(t, a, pngOf(t, color.RGBA{0xC8, 0x28, 0x29, 0xFF}, 1)) {
		t.Error("SamePixels: one pixel of another colour or place must differ, the same picture not")
	}
	if got := Decode(t, a).At(1, 1); !Near(got, color.RGBA{0xC2, 0x2E, 0x28, 0xFF}) || Near(got, color.RGBA{0xC1, 0x28, 0x28, 0xFF}) {
		t.Errorf("Near: 6 levels off is near, 7 not (%v)", got)
	}
	svg := []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 60 40">` +
		`<path d="M 1 1 A 2 2 0 0 0 3 3"/><path d="M 1 1 L 2 2"/><text>alice</text><g><text>e4</text></g>bare</svg>`)
	if viewBox, texts, circles := SVG(t, svg); viewBox != "0 0 60 40" || texts != "alice e4" || circles != 1 {
		t.Errorf("SVG = %q, %q, %d; want \"0 0 60 40\", \"alice e4\", 1", viewBox, texts, circles)
	}
}
