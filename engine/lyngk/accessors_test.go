package lyngk

import (
	"slices"
	"testing"

	"lyngk.example/lyngk/engine/games"
)

// TestAccessors checks Height, Top and Owner against Stack and Claims along
// random games, and their answers for empty points, no points and no colours.
func TestAccessors(t *testing.T) {
	r := rng(7)
	buf := make([]Move, 0, 2048)
	for board := 101; board < 111; board++ {
		g := New(board, Variant(board%2))
		for {
			for p := NoPoint; p <= NumPoints; p++ {
				s := g.Stack(p)
				wantTop := NoColor
				if s != "" {
					wantTop = colorFromLetter(s[0])
				}
				if g.Height(p) != len(s) || g.Top(p) != wantTop {
					t.Fatalf("board %d after %v: %v holds %q, Height %d Top %v", board, g.Moves(), p, s, g.Height(p), g.Top(p))
				}
			}
			for c := NoColor; c <= Joker+1; c++ {
				want := 0
				for pl := 1; pl <= 2; pl++ {
					if slices.Contains(g.Claims(pl), c) {
						want = pl
					}
				}
				if g.Owner(c) != want {
					t.Fatalf("board %d after %v: Owner(%d) = %d, want %d", board, g.Moves(), c, g.Owner(c), want)
				}
			}
			if g.Status() != games.Playing {
				break
			}
			buf = g.Legal(buf[:0])
			if err := g.Apply(buf[r.intn(len(buf))]); err != nil {
				t.Fatal(err)
			}
		}
	}
}
