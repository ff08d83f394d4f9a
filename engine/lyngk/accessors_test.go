package lyngk

import (
	"slices"
	"testing"

	"lyngk.example/lyngk/engine/games"
)

// TestAccessors checks Height, Top, Colors and Sees against Stack, Claims
// and the legal moves along random games, and their answers for empty
// points, no points and no colours.
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
				var wantColors uint8
				for i := range len(s) {
					if c := colorFromLetter(s[i]); c != Joker {
						wantColors |= 1 << c
					}
				}
				if g.Colors(p) != wantColors {
					t.Fatalf("board %d after %v: %v holds %q, Colors %08b", board, g.Moves(), p, s, g.Colors(p))
				}
				if s == "" && g.Sees(p) != 0 {
					t.Fatalf("board %d after %v: empty %v sees %x", board, g.Moves(), p, g.Sees(p))
				}
				for q := range Point(NumPoints) {
					if !p.valid() {
						break
					}
					if g.Sees(p)>>q&1 != g.Sees(q)>>p&1 || (g.Sees(p)>>q&1 == 1 && (q == p || g.Height(q) == 0)) {
						t.Fatalf("board %d after %v: Sees(%v) = %x, Sees(%v) = %x", board, g.Moves(), p, g.Sees(p), q, g.Sees(q))
					}
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
			for _, m := range buf {
				// A plain move of a stack not owned by the mover goes
				// straight to a stack it sees.
				if m.Claim == NoColor && g.Owner(g.Top(m.From)) == 0 && g.Sees(m.From)>>m.To&1 == 0 {
					t.Fatalf("board %d after %v: legal %v, but %v does not see %v", board, g.Moves(), m, m.From, m.To)
				}
			}
			if err := g.Apply(buf[r.intn(len(buf))]); err != nil {
				t.Fatal(err)
			}
		}
	}
}
