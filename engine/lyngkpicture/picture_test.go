package lyngkpicture

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"lyngk.example/lyngk/engine/draw"
	"lyngk.example/lyngk/engine/draw/drawtest"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/internal/cputime"
	"lyngk.example/lyngk/engine/lyngk"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// positions are the golden pictures: a start, a game in progress, a
// finished game, and a stack6 game won with jokers in tall stacks.
var positions = []struct {
	name    string
	board   int
	variant lyngk.Variant
	moves   string
}{
	{"start-101", 101, lyngk.Standard, ""},
	{"mid-102", 102, lyngk.Standard, "g5-g6 d5-d4 I,d3-e3 K,d2-d4 G,g1-g3 c3-e2 c5-c6 R,b3-b2 f2-h1 d6-e7 c2-b1 d1-b2 g2-e2 f4-f5"},
	{"over-106", 106, lyngk.Standard, "B,c5-d4 c2-c3 K,e6-f6 I,c3-b1 f1-g1 c6-c7 d6-e7 d3-c4 e4-f3 G,d4-c1 e5-e3 b1-d1 e3-f2 f6-f5 e7-b3 g5-h4 g1-g2 f3-g6 d5-g7 g6-c4 g7-g4 a1-b3 b4-g3 b3-b2 h1-h2 f4-c7 d2-h2 e2-e1 g4-h3 -- i1-f5 -- g3-h2"},
	{"stack6-104", 104, lyngk.Stack6, "G,g3-h1 I,b1-b2 K,f1-f3 R,f5-e6 c3-d3 f6-e4 d5-d4 g4-g5 b3-c6 h4-d4 e1-g2 g6-g7 c4-d2 g1-e2 c2-c1 c7-c6 c1-d1 h2-d3 g5-g2 f4-e3 c5-e6 c6-e5 f3-e3 d6-b4 f2-e2 h3-i1 e7-b4 d4-b2 d2-g2"},
}

// play returns the position after moves (passes are automatic, "--" skipped).
func play(t testing.TB, board int, v lyngk.Variant, moves string) lyngk.Game {
	t.Helper()
	g := lyngk.New(board, v)
	for _, s := range strings.Fields(moves) {
		if s == "--" {
			continue
		}
		m, _, err := lyngk.ParseMove(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Apply(m); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return g
}

var names = [2]string{"alice", "bob"}

// TestPNGGolden compares each picture with its golden PNG pixel by pixel
// (not byte by byte: a better PNG encoder may compress the same pixels
// differently).
func TestPNGGolden(t *testing.T) {
	for _, tc := range positions {
		t.Run(tc.name, func(t *testing.T) {
			g := play(t, tc.board, tc.variant, tc.moves)
			b, err := Drawing.PNG(&g, names)
			if err != nil {
				t.Fatal(err)
			}
			drawtest.Golden(t, filepath.Join("testdata", tc.name+".png"), b, *update)
		})
	}
}

// TestPNGFigures checks what is asked of the picture whatever the
// golden files say: 480-720 pixels wide, at most 100 KB, and every stack's
// top piece in its colour where the stack is drawn, each piece below it in
// its ring, every empty point without a piece.
func TestPNGFigures(t *testing.T) {
	for _, tc := range positions {
		t.Run(tc.name, func(t *testing.T) {
			g := play(t, tc.board, tc.variant, tc.moves)
			b, err := Drawing.PNG(&g, names)
			if err != nil {
				t.Fatal(err)
			}
			if len(b) > 100<<10 {
				t.Errorf("PNG is %d bytes, over 100 KB", len(b))
			}
			img := drawtest.Decode(t, b)
			if w := img.Bounds().Dx(); w < 480 || w > 720 || w != Width || img.Bounds().Dy() != Height {
				t.Errorf("PNG is %v, want %dx%d within 480-720 px wide", img.Bounds(), Width, Height)
			}
			for p := range lyngk.Point(lyngk.NumPoints) {
				s := g.Stack(p)
				x, y := Center(p)
				for i := range len(s) {
					// The top piece is sampled between the centre and
					// the height digit's top; each lower piece in the middle
					// of its ring, on the left of the centre.
					px, py := x, y+8
					if i > 0 {
						px, py = x-(Radius(i)+Radius(i+1))/2, y
					}
					want, _ := Color(s[i])
					if got := img.At(int(px), int(py)); !drawtest.Near(got, want) {
						t.Errorf("%s piece %d of %q at (%.0f,%.0f): colour %v, want %v", p, i, s, px, py, got, want)
					}
				}
				if s == "" {
					for _, c := range "IBRGKJ" {
						col, _ := Color(byte(c))
						if drawtest.Near(img.At(int(x)+8, int(y)), col) {
							t.Errorf("empty point %s shows a piece of colour %c", p, c)
						}
					}
				}
			}
		})
	}
}

// TestSVG checks that the same drawing makes a well-formed SVG document of
// the picture's size, with every stack's pieces and the labels in it.
func TestSVG(t *testing.T) {
	g := play(t, 102, lyngk.Standard, positions[1].moves)
	b, err := Drawing.SVG(&g, names)
	if err != nil {
		t.Fatal(err)
	}
	viewBox, all, circles := drawtest.SVG(t, b)
	if viewBox != "0 0 600 600" {
		t.Errorf("viewBox %q", viewBox)
	}
	for _, want := range []string{"alice", "bob", "A", "I", "c7", "e4", "Ivory", "blacK"} {
		if !strings.Contains(all, want) {
			t.Errorf("SVG texts lack %q: %s", want, all)
		}
	}
	pieces := 0
	for p := range lyngk.Point(lyngk.NumPoints) {
		pieces += len(g.Stack(p))
	}
	if circles < pieces {
		t.Errorf("SVG has %d circles for %d pieces", circles, pieces)
	}
}

// BenchmarkPNG reports the CPU time of one picture (cpu-ns/op, what the
// machine pays; wall time drifts on a shared machine) and its size.
// server draws what a server draws: n games played at once, a picture of
// each position once, move after move (serverPositions), from a renderer
// started empty (the cost of drawing its sprites and compressing its
// first bands included). Each golden position is also drawn again and
// again (everything cached).
func BenchmarkPNG(b *testing.B) {
	b.Run("server", func(b *testing.B) {
		seq := serverPositions(b, 40)
		var size int
		var r *draw.Renderer
		start := cputime.Now()
		i := 0
		for b.Loop() {
			if i%len(seq) == 0 {
				var err error
				if r, err = Drawing.NewRenderer(); err != nil {
					b.Fatal(err)
				}
			}
			png, err := r.PNG(func(pt draw.Painter) { drawPosition(pt, &seq[i%len(seq)], names, draw.Legend{}) })
			if err != nil {
				b.Fatal(err)
			}
			size += len(png)
			i++
		}
		cputime.Report(b, start)
		b.ReportMetric(float64(size)/float64(i), "png-bytes")
	})
	for _, p := range positions {
		b.Run(p.name, func(b *testing.B) {
			g := play(b, p.board, p.variant, p.moves)
			var size int
			start := cputime.Now()
			for b.Loop() {
				png, err := Drawing.PNG(&g, names)
				if err != nil {
					b.Fatal(err)
				}
				size = len(png)
			}
			cputime.Report(b, start)
			b.ReportMetric(float64(size), "png-bytes")
		})
	}
}

// serverPositions returns the positions of n games of random legal moves
// (boards 200, 201...), their first moves first, then their second...
func serverPositions(t testing.TB, n int) []lyngk.Game {
	rng := rand.New(rand.NewPCG(1, 2))
	gs := make([]lyngk.Game, n)
	for i := range gs {
		gs[i] = lyngk.New(200+i, lyngk.Standard)
	}
	var seq []lyngk.Game
	var buf []lyngk.Move
	for moved := true; moved; {
		moved = false
		for i := range gs {
			buf = gs[i].Legal(buf[:0])
			if gs[i].Status() != games.Playing || len(buf) == 0 {
				continue
			}
			if err := gs[i].Apply(buf[rng.IntN(len(buf))]); err != nil {
				t.Fatal(err)
			}
			seq = append(seq, gs[i])
			moved = true
		}
	}
	return seq
}

func BenchmarkSVG(b *testing.B) {
	g := play(b, 102, lyngk.Standard, positions[1].moves)
	start := cputime.Now()
	defer cputime.Report(b, start)
	for b.Loop() {
		if _, err := Drawing.SVG(&g, names); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPNGLikeDraw checks that the composed PNG (the empty board drawn
// once, each stack, mark and word a sprite copied onto it) shows what the
// vector drawing paints on a fresh canvas, as near as the palette allows:
// at most 0.5% of the pixels may differ by more than a blend step (the
// sprites' edges are blended over palette colours, not over the exact
// ones, and text starts on whole pixels).
func TestPNGLikeDraw(t *testing.T) {
	for _, tc := range positions {
		g := play(t, tc.board, tc.variant, tc.moves)
		b, err := Drawing.PNG(&g, names)
		if err != nil {
			t.Fatal(err)
		}
		got := drawtest.Decode(t, b)
		c := draw.Canvas(Width, Height, draw.Background)
		if err := Drawing.Draw(c, &g, names); err != nil {
			t.Fatal(err)
		}
		want := c.Image()
		far := 0
		for y := range Height {
			for x := range Width {
				r1, g1, b1, _ := got.At(x, y).RGBA()
				r2, g2, b2, _ := want.At(x, y).RGBA()
				d := max(absDiff(r1, r2), absDiff(g1, g2), absDiff(b1, b2)) >> 8
				if d > 64 {
					far++
				}
			}
		}
		if share := float64(far) / (Width * Height); share > 0.005 {
			t.Errorf("%s: %d pixels (%.2f%%) differ from the drawing by more than 64 levels", tc.name, far, 100*share)
		}
	}
}

func absDiff(a, b uint32) uint32 { return max(a, b) - min(a, b) }

// TestPNGBytes: the pictures, with their larger text, are smaller than
// the 64-colour ones of before (24303, 26343, 26495 and 27607 bytes); and
// the bound on its bytes: every picture of 20 games of random moves, drawn in
// their order by one renderer as the server draws them, is at most
// maxPNG bytes, and they average at most avgPNG (now 20,556 and 18,505;
// before the 14-colour palette and klauspost's deflate at level 6, 24,605
// and 22,195).
func TestPNGBytes(t *testing.T) {
	before := map[string]int{"start-101": 24303, "mid-102": 26343, "over-106": 26495, "stack6-104": 27607}
	for _, tc := range positions {
		g := play(t, tc.board, tc.variant, tc.moves)
		b, err := Drawing.PNG(&g, names)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) >= before[tc.name] {
			t.Errorf("%s: %d bytes, not fewer than the %d of before", tc.name, len(b), before[tc.name])
		}
	}
	const maxPNG, avgPNG = 21000, 19000
	r, err := Drawing.NewRenderer()
	if err != nil {
		t.Fatal(err)
	}
	seq := serverPositions(t, 20)
	sum, most := 0, 0
	for i := range seq {
		b, err := r.PNG(func(pt draw.Painter) { drawPosition(pt, &seq[i], names, draw.Legend{}) })
		if err != nil {
			t.Fatal(err)
		}
		sum += len(b)
		most = max(most, len(b))
	}
	t.Logf("%d pictures: %d bytes on average, %d at most", len(seq), sum/len(seq), most)
	if most > maxPNG || sum/len(seq) > avgPNG {
		t.Errorf("%d pictures: %d bytes on average, %d at most; want at most %d and %d", len(seq), sum/len(seq), most, avgPNG, maxPNG)
	}
}

// TestTextSize measures the smallest text of the picture, the point
// names: the ink of a name must be at least as tall as the same name in a
// font of 11 CSS px when the picture is shown 360 px wide (a font of
// 11 × 600/360 = 18.3 picture pixels). Before, the names were a 10 px
// font, 7 px of ink: 4 CSS px.
func TestTextSize(t *testing.T) {
	c := draw.Canvas(Width, Height, draw.Background)
	drawBoard(c)
	e4, _ := lyngk.ParsePoint("e4")
	x, y := Center(e4)
	// The name is on the left of its point, half a column away.
	got := inkHeight(c.Image(), int(x)-55, int(y)-30, int(x)-20, int(y)+30)

	ref := draw.Canvas(Width, Height, draw.Background)
	ref.SetColor(draw.LabelColor)
	draw.Left(ref, draw.Face("regular", 11.0*Width/360), vg.Point{X: 100, Y: 300}, "e4")
	want := inkHeight(ref.Image(), 90, 270, 160, 320)
	if got < want || want < 12 {
		t.Errorf("the name of e4 is %d px tall, want ≥ %d (the ink of an 11 CSS px font at 360 px wide)", got, want)
	}
	t.Logf("point names: font %d px (%.1f CSS px at 360 px wide), ink %d px (%d px at 11 CSS px)", draw.TextSize, float64(draw.TextSize)*360/Width, got, want)
}

// inkHeight is the number of rows between the first and the last that
// hold a text's ink (darker than the board's lines) in the box.
func inkHeight(img image.Image, x0, y0, x1, y1 int) int {
	top, bottom := -1, -2
	for py := y0; py < y1; py++ {
		for px := x0; px < x1; px++ {
			r, g, b, _ := img.At(px, py).RGBA()
			if r>>8 < 0x90 && g>>8 < 0x90 && b>>8 < 0x90 {
				if top < 0 {
					top = py
				}
				bottom = py
			}
		}
	}
	return bottom - top + 1
}

// TestPNGConcurrent draws the golden positions from several goroutines at
// once (the canvases, images and zlib writers are pooled): each picture is
// byte for byte the one drawn alone.
func TestPNGConcurrent(t *testing.T) {
	want := make([][]byte, len(positions))
	gs := make([]lyngk.Game, len(positions))
	for i, tc := range positions {
		gs[i] = play(t, tc.board, tc.variant, tc.moves)
		b, err := Drawing.PNG(&gs[i], names)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = b
	}
	errs := make(chan error, 4*len(positions))
	for range 4 {
		for i := range positions {
			go func() {
				b, err := Drawing.PNG(&gs[i], names)
				if err == nil && !bytes.Equal(b, want[i]) {
					err = fmt.Errorf("%s: concurrent picture differs", positions[i].name)
				}
				errs <- err
			}()
		}
	}
	for range 4 * len(positions) {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
