package yinshpicture

import (
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine/draw/drawtest"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/internal/cputime"
	"lyngk.example/lyngk/engine/yinsh"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// game is a whole game (engine/yinsh's RandomTurn, seed 72): white wins
// 3-1 in 57 turns.
const game = "c5 e2 i9 j5 d5 g9 g5 i5 d3 f6 i9-i7 j5-j7 c5-a3 e2-d1 a3-c3 g9-d6 d5-f5 i5-h5 g5-f4 d6-b4 " +
	"c3-b3 j7-k7 i7-k9 b4-e7 d3-e4 f6-h8 k9-h9 h5-i6 f5-e5 i6-g4 e5-b2;xd5-h5;xe4 k7-k8 f4-f7 h8-j8 " +
	"h9-f9 k8-k10 f7-f8 e7-g7 b2-d2 d1-c1 f8-i8 g4-f3 b3-e3 c1-b1 e3-e1 f3-f5 d2-f2 f5-c2 " +
	"xa3-e3;xf9;i8-h7 g7-e5;xf3-f7;xe5 f2-j6 k10-j9 j6-h6 j9-j10 h6-e6 b1-b3 e6-e8;xc5-g9;xe1"

// positions are the golden pictures: the empty board, a placement, a
// ring move, a turn with a row and a ring removed, owed removals and a
// move, the end; and a blitz start.
var positions = []struct {
	name    string
	variant yinsh.Variant
	turns   int // of game
	marks   *[2]string
}{
	{"start", yinsh.Normal, 0, nil},
	{"placed", yinsh.Normal, 3, nil},
	{"moved", yinsh.Normal, 11, nil},
	{"row-removed", yinsh.Normal, 31, nil},
	{"owed-removed", yinsh.Normal, 49, nil},
	{"over", yinsh.Normal, 57, &[2]string{"won", "lost"}},
	{"blitz", yinsh.Blitz, 2, nil},
}

func play(t testing.TB, v yinsh.Variant, n int) yinsh.Game {
	t.Helper()
	g := yinsh.New(v)
	for _, s := range strings.Fields(game)[:n] {
		tn, _, err := yinsh.ParseTurn(s)
		if err == nil {
			err = g.Apply(tn)
		}
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return g
}

var names = [2]string{"alice", "bob"}

func picture(t testing.TB, v yinsh.Variant, n int, marks *[2]string) []byte {
	p, err := yinsh.Rules.New(1, yinsh.Rules.Variants[v])
	if err != nil {
		t.Fatal(err)
	}
	g := play(t, v, n)
	*mustOf(t, p) = g
	b, err := Pictures.PNG(p, names, marks)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustOf(t testing.TB, p games.Position) *yinsh.Game {
	g, ok := yinsh.Of(p)
	if !ok {
		t.Fatal("not a YINSH position")
	}
	return g
}

// TestPNGGolden compares each picture with its golden PNG pixel by pixel.
func TestPNGGolden(t *testing.T) {
	for _, tc := range positions {
		t.Run(tc.name, func(t *testing.T) {
			b := picture(t, tc.variant, tc.turns, tc.marks)
			drawtest.Golden(t, filepath.Join("testdata", tc.name+".png"), b, *update)
		})
	}
}

// TestPNGFigures checks the picture whatever the goldens say: its size,
// at most 100 KB, every marker a disc of its colour at its point, every
// ring a ring of its colour around its point (its stroke in the colour,
// its middle not), every vacant point free of both.
func TestPNGFigures(t *testing.T) {
	for _, tc := range positions {
		t.Run(tc.name, func(t *testing.T) {
			b := picture(t, tc.variant, tc.turns, tc.marks)
			if len(b) > 100<<10 {
				t.Errorf("PNG is %d bytes", len(b))
			}
			img := drawtest.Decode(t, b)
			if img.Bounds().Dx() != Width || img.Bounds().Dy() != Height {
				t.Errorf("PNG is %v", img.Bounds())
			}
			g := play(t, tc.variant, tc.turns)
			for p := range yinsh.Point(yinsh.NumPoints) {
				x, y := Center(p)
				pl, ring := g.Piece(p)
				switch {
				case pl == 0:
					for _, col := range pieceColor[1:] {
						if drawtest.Near(img.At(int(x)+5, int(y)+1), col) && drawtest.Near(img.At(int(x)-5, int(y)-1), col) {
							t.Errorf("vacant %s shows a piece", p)
						}
					}
				case ring:
					if got := img.At(int(x+ringR), int(y)); !drawtest.Near(got, pieceColor[pl]) {
						t.Errorf("ring on %s: stroke %v, want %v", p, got, pieceColor[pl])
					}
					if got := img.At(int(x)+4, int(y)+3); drawtest.Near(got, pieceColor[pl]) {
						t.Errorf("ring on %s is filled", p)
					}
				default:
					if got := img.At(int(x)+4, int(y)+3); !drawtest.Near(got, pieceColor[pl]) {
						t.Errorf("marker on %s: %v, want %v", p, got, pieceColor[pl])
					}
				}
			}
		})
	}
}

// TestSVG: the same drawing makes a well-formed SVG of the picture's size
// with the names, letters and numbers, and a circle for every piece.
func TestSVG(t *testing.T) {
	g := play(t, yinsh.Normal, 49)
	b, err := Drawing.SVG(&g, names)
	if err != nil {
		t.Fatal(err)
	}
	viewBox, all, circles := drawtest.SVG(t, b)
	if viewBox != "0 0 600 600" {
		t.Errorf("viewBox %q", viewBox)
	}
	for _, want := range []string{"alice", "bob", "A", "K", "11", "Pool: 22", "2 rings removed", "0 rings removed"} {
		if !strings.Contains(all, want) {
			t.Errorf("SVG texts lack %q: %s", want, all)
		}
	}
	pieces := len(g.Rings(1)) + len(g.Rings(2)) + len(g.Markers(1)) + len(g.Markers(2))
	if circles < pieces+yinsh.NumPoints {
		t.Errorf("SVG has %d circles for %d pieces and %d points", circles, pieces, yinsh.NumPoints)
	}
}

// TestSides: the colours and rings removed of each player.
func TestSides(t *testing.T) {
	p, _ := yinsh.Rules.New(1, "normal")
	*mustOf(t, p) = play(t, yinsh.Normal, 49)
	s := Pictures.Sides(p)
	if s[0].Count != 2 || s[1].Count != 0 || s[0].Labels[0].Name != "white" || s[1].Labels[0].Name != "black" {
		t.Errorf("sides %+v", s)
	}
	if w, h := (Pictures).Size(); w != Width || h != Height {
		t.Errorf("size %d×%d", w, h)
	}
}

// BenchmarkPNG draws the pictures of a whole game, one per position, as a
// server does after each turn (the renderer warm).
func BenchmarkPNG(b *testing.B) {
	var gs []yinsh.Game
	for n := range len(strings.Fields(game)) + 1 {
		gs = append(gs, play(b, yinsh.Normal, n))
	}
	size, i := 0, 0
	cpu := cputime.Now()
	for b.Loop() {
		out, err := Drawing.PNG(&gs[i%len(gs)], names)
		if err != nil {
			b.Fatal(err)
		}
		size += len(out)
		i++
	}
	cputime.Report(b, cpu)
	b.ReportMetric(float64(size)/float64(b.N), "bytes/picture")
}

// BenchmarkSVG draws one SVG of the middle game.
func BenchmarkSVG(b *testing.B) {
	g := play(b, yinsh.Normal, 31)
	cpu := cputime.Now()
	for b.Loop() {
		if _, err := Drawing.SVG(&g, names); err != nil {
			b.Fatal(err)
		}
	}
	cputime.Report(b, cpu)
}
