// Package drawtest is what the games' picture tests share: a PNG decoded,
// two PNGs compared pixel by pixel (and with a golden file), a colour
// within the palette's shift,
// and an SVG document read for its size, texts and circles. Only tests
// import it.
package drawtest

import (
	"bytes"
	"encoding/xml"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Decode decodes the PNG b, failing t if it is not one.
func Decode(t testing.TB, b []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// SamePixels reports whether the PNGs a and b have the same size and the
// same colour at every pixel.
func SamePixels(t testing.TB, a, b []byte) bool {
	t.Helper()
	ia, ib := Decode(t, a), Decode(t, b)
	if ia.Bounds() != ib.Bounds() {
		return false
	}
	for y := ia.Bounds().Min.Y; y < ia.Bounds().Max.Y; y++ {
		for x := ia.Bounds().Min.X; x < ia.Bounds().Max.X; x++ {
			if color.RGBAModel.Convert(ia.At(x, y)) != color.RGBAModel.Convert(ib.At(x, y)) {
				return false
			}
		}
	}
	return true
}

// Golden compares the PNG b with the golden PNG at path pixel by pixel
// (not byte by byte: a better encoder may compress the same pixels
// differently), after rewriting the file with b when update is set (go
// test -update). A picture that differs is kept in a new temporary
// directory (left for the developer to look at), named in the error.
func Golden(t *testing.T, path string, b []byte, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !SamePixels(t, b, want) {
		// Not t.TempDir: it is removed when the test ends.
		dir, err := os.MkdirTemp("", "drawtest-")
		if err != nil {
			t.Fatal(err)
		}
		got := filepath.Join(dir, filepath.Base(path))
		if err := os.WriteFile(got, b, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Errorf("picture differs from %s; got is %s (go test -update rewrites it)", path, got)
	}
}

// Near reports whether c is want within the few levels (6 of 255 in R, G
// and B) the palette may shift a colour.
func Near(c color.Color, want color.RGBA) bool {
	r, g, b, _ := c.RGBA()
	d := func(a uint32, b uint8) int { return max(int(a>>8)-int(b), int(b)-int(a>>8)) }
	return d(r, want.R) <= 6 && d(g, want.G) <= 6 && d(b, want.B) <= 6
}

// SVG reads the SVG document b, failing t if it is not well-formed XML:
// the viewBox of its svg element, its texts joined by spaces, and the
// number of its paths with an arc (the circles).
func SVG(t testing.TB, b []byte) (viewBox, texts string, circles int) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	var all []string
	inText := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			for _, a := range tok.Attr {
				switch {
				case tok.Name.Local == "svg" && a.Name.Local == "viewBox":
					viewBox = a.Value
				case tok.Name.Local == "path" && a.Name.Local == "d" && strings.Contains(a.Value, "A"):
					circles++
				}
			}
			inText = tok.Name.Local == "text"
		case xml.CharData:
			if inText {
				all = append(all, string(tok))
			}
		case xml.EndElement:
			inText = false
		}
	}
	return viewBox, strings.Join(all, " "), circles
}
