package yinsh

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine/games"
)

// colouredMarkers returns the points as markers coloured so that no five of
// one colour lie on a line: white where (column+number) mod 3 is 0 or 2,
// black where it is 1. Along a column or a row that value steps by 1, along
// a diagonal by 2, so a line never holds three of one colour in a row.
func colouredMarkers(t testing.TB, names string) (white, black string) {
	t.Helper()
	var w, b []string
	seen := map[string]bool{}
	for _, n := range strings.Fields(names) {
		if seen[n] {
			continue
		}
		seen[n] = true
		p := pt(t, n)
		if (p.Column()+p.Number())%3 == 1 {
			b = append(b, n)
		} else {
			w = append(w, n)
		}
	}
	return strings.Join(w, " "), strings.Join(b, " ")
}

// destinations lists the legal destinations of the ring on from.
func destinations(g *Game, from string) []string {
	var out []string
	for _, t := range g.Legal(nil) {
		if t.Action == Move && t.From.String() == from && t.NPre == 0 {
			out = append(out, t.To.String())
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// others are rings parked in the corners so both players can always move.
const (
	whiteParked = "k10 k9"
	blackParked = "a2 a3"
)

func TestRingMoves(t *testing.T) {
	tests := []struct {
		name   string
		s      setup
		from   string
		want   []string // legal destinations
		refuse map[string]string
	}{
		{
			name: "vacant points in six directions up to the edge",
			s:    setup{wr: "e5 " + whiteParked, br: blackParked},
			from: "e5",
			want: []string{"a5", "b2", "b5", "c3", "c5", "d4", "d5", "e1", "e10", "e2", "e3", "e4", "e6", "e7", "e8", "e9", "f5", "f6", "g5", "g7", "h5", "h8", "i5", "i9", "j10", "j5"},
		},
		{
			name: "over vacant points, then one run of markers, landing just after it",
			s:    setup{wr: "e2 " + whiteParked, br: blackParked, bm: "e4 e5", wm: "e8"},
			from: "e2",
			want: []string{"b2", "c2", "d1", "d2", "e1", "e3", "e6", "f2", "f3", "g2", "g4", "h5", "i6", "j7", "k8"},
			refuse: map[string]string{
				"e7": "after jumping markers a ring stops on the first vacant point, e6",
				"e5": "e5 is not vacant",
				"e9": "after jumping markers a ring stops on the first vacant point, e6",
				"f4": "f4 is not on a straight line from e2",
			},
		},
		{
			name: "never over a ring, nor onto one",
			s:    setup{wr: "e2 " + whiteParked, br: "e5 " + blackParked, wm: "f3", bm: "g4"},
			from: "e2",
			want: []string{"b2", "c2", "d1", "d2", "e1", "e3", "e4", "f2", "g2", "h5"},
			refuse: map[string]string{
				"e6": "the ring on e5 is in the way",
				"e5": "e5 is not vacant",
			},
		},
		{
			name: "markers up to the edge or a ring leave no landing",
			s:    setup{wr: "a5 " + whiteParked, br: "c5 " + blackParked, wm: "a4", bm: "b5"},
			from: "a5",
			want: []string{"b6", "c7", "d8", "e9", "f10", "g11"},
			refuse: map[string]string{
				"a4": "a4 is not vacant",
				"a3": "a3 is not vacant",
				"c5": "c5 is not vacant",
				"d5": "the ring on c5 is in the way",
			},
		},
		{
			name: "a ring with no move cannot be chosen",
			s:    setup{wr: "a2 " + whiteParked, br: "a3 b2 b3"},
			from: "a2",
			want: nil,
			refuse: map[string]string{
				"b1": "the ring on a2 cannot move",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := build(t, tt.s)
			got := destinations(&g, tt.from)
			if !slices.Equal(got, tt.want) {
				t.Errorf("destinations from %s = %v, want %v", tt.from, got, tt.want)
			}
			for _, to := range got {
				h := g
				if err := h.Apply(Turn{Action: Move, From: pt(t, tt.from), To: pt(t, to)}); err != nil {
					t.Errorf("%s-%s refused: %v", tt.from, to, err)
				}
			}
			for to, why := range tt.refuse {
				q, ok := ParsePoint(to)
				if !ok {
					q = NoPoint
				}
				h := g
				err := h.Apply(Turn{Action: Move, From: pt(t, tt.from), To: q})
				if err == nil || !strings.Contains(err.Error(), why) || !errors.Is(err, ErrIllegalTurn) {
					t.Errorf("%s-%s: error %v, want one containing %q", tt.from, to, err, why)
				}
				if h != g {
					t.Errorf("%s-%s: a refused turn changed the game", tt.from, to)
				}
			}
		})
	}
}

func TestFlips(t *testing.T) {
	// e2 jumps e4 (black), e5 (white), e6 (black) and lands on e7; e3 is
	// passed over vacant. The marker put in the ring stays white.
	g := build(t, setup{wr: "e2 " + whiteParked, br: blackParked, bm: "e4 e6 d4", wm: "e5"})
	mustApply(t, &g, "e2-e7")
	wantW := "e2 e4 e6"
	wantB := "d4 e5"
	if got := names(g.Markers(1)); got != wantW {
		t.Errorf("white markers %s, want %s", got, wantW)
	}
	if got := names(g.Markers(2)); got != wantB {
		t.Errorf("black markers %s, want %s", got, wantB)
	}
	if got := names(g.Rings(1)); got != "e7 k9 k10" {
		t.Errorf("white rings %s", got)
	}
	if g.Pool() != PoolMarkers-5 {
		t.Errorf("pool %d, want %d", g.Pool(), PoolMarkers-5)
	}
	if g.Turn() != 2 {
		t.Errorf("turn %d", g.Turn())
	}
}

func names(ps []Point) string {
	var s []string
	for _, p := range ps {
		s = append(s, p.String())
	}
	return strings.Join(s, " ")
}

// TestRows covers G1-G5: a row of five, of six (two choices), two rows
// that intersect (one removal), two that do not (both, with two rings),
// the short form, and the refusals.
func TestRows(t *testing.T) {
	tests := []struct {
		name  string
		s     setup
		move  string
		legal []string // every legal turn starting with move
		good  map[string]string
		bad   map[string]string
	}{
		{
			name:  "a row of five, one of three rings",
			s:     setup{wr: "c6 " + whiteParked, br: blackParked, wm: "c2 c3 c4 c5"},
			move:  "c6-d6",
			legal: []string{"c6-d6;xc2-c6;xd6", "c6-d6;xc2-c6;xk10", "c6-d6;xc2-c6;xk9"},
			good:  map[string]string{"c6-d6;xc6-c2;xk9": "c6-d6;xc2-c6;xk9", "C6-D6;xk9": "c6-d6;xc2-c6;xk9"},
			bad: map[string]string{
				"c6-d6":              "you have a row to remove after your move: xc2-c6",
				"c6-d6;xc2-c6;xa2":   "there is no ring of yours on a2",
				"c6-d6;xc1-c5;xk9":   "the row xc1-c5 is not five markers of your colour; your rows: xc2-c6",
				"c6-d6;xc2-d6;xk9":   "xc2-d6 is not five points in a straight line",
				"c6-d6;xc2-c6;xk9;x": "no point",
			},
		},
		{
			name: "a row of six: either five",
			s:    setup{wr: "c5 " + whiteParked, br: blackParked, wm: "c1 c2 c3 c4 c6"},
			move: "c5-d5",
			legal: []string{
				"c5-d5;xc1-c5;xd5", "c5-d5;xc1-c5;xk10", "c5-d5;xc1-c5;xk9",
				"c5-d5;xc2-c6;xd5", "c5-d5;xc2-c6;xk10", "c5-d5;xc2-c6;xk9",
			},
			bad: map[string]string{
				"c5-d5;xk9":                    "2 rows can be removed at that point (xc1-c5, xc2-c6): name the row",
				"c5-d5;xc1-c5;xk9;xc6-c2;xk10": "you have no row of your colour to remove after your move",
			},
		},
		{
			name: "intersecting rows: one removal breaks the other",
			s:    setup{wr: "c6 " + whiteParked, br: blackParked, wm: "c2 c3 c4 c5 d6 e6 f6 g6"},
			move: "c6-c7",
			legal: []string{
				"c6-c7;xc2-c6;xc7", "c6-c7;xc2-c6;xk10", "c6-c7;xc2-c6;xk9",
				"c6-c7;xc6-g6;xc7", "c6-c7;xc6-g6;xk10", "c6-c7;xc6-g6;xk9",
			},
			bad: map[string]string{
				"c6-c7;xc2-c6;xk9;xc6-g6;xk10": "you have no row of your colour to remove after your move",
			},
		},
		{
			name: "two rows that do not intersect: both, in either order, two rings",
			// e3 jumps e4, e5, e6 (black) to e7: rows a4-e4 and e6-i6.
			s:    setup{wr: "e3 " + whiteParked, br: blackParked, wm: "a4 b4 c4 d4 f6 g6 h6 i6", bm: "e4 e5 e6"},
			move: "e3-e7",
			legal: []string{
				"e3-e7;xa4-e4;xe7;xe6-i6;xk10", "e3-e7;xa4-e4;xe7;xe6-i6;xk9",
				"e3-e7;xa4-e4;xk10;xe6-i6;xe7", "e3-e7;xa4-e4;xk10;xe6-i6;xk9",
				"e3-e7;xa4-e4;xk9;xe6-i6;xe7", "e3-e7;xa4-e4;xk9;xe6-i6;xk10",
				"e3-e7;xe6-i6;xe7;xa4-e4;xk10", "e3-e7;xe6-i6;xe7;xa4-e4;xk9",
				"e3-e7;xe6-i6;xk10;xa4-e4;xe7", "e3-e7;xe6-i6;xk10;xa4-e4;xk9",
				"e3-e7;xe6-i6;xk9;xa4-e4;xe7", "e3-e7;xe6-i6;xk9;xa4-e4;xk10",
			},
			good: map[string]string{"e3-e7;xi6-e6;xk9;xk10": "e3-e7;xe6-i6;xk9;xa4-e4;xk10"},
			bad: map[string]string{
				"e3-e7;xa4-e4;xk9":     "you have a row to remove after your move: xe6-i6",
				"e3-e7;xk9;xk10":       "2 rows can be removed at that point (xa4-e4, xe6-i6)",
				"e3-e7;xa4-e4;xk9;xk9": "there is no ring of yours on k9",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := build(t, tt.s)
			var got []string
			for _, s := range legalStrings(&g) {
				if strings.HasPrefix(s, tt.move+";") || s == tt.move {
					got = append(got, s)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.legal) {
				t.Errorf("legal turns with %s:\n%s\nwant\n%s", tt.move, strings.Join(got, "\n"), strings.Join(tt.legal, "\n"))
			}
			for _, s := range tt.legal {
				h := g
				mustApply(t, &h, s)
				if last, _ := h.LastTurn(); last.String() != s {
					t.Errorf("%s recorded as %s", s, last)
				}
				if h.b.hasRow(0) {
					t.Errorf("%s leaves a white row", s)
				}
			}
			for in, want := range tt.good {
				h := g
				mustApply(t, &h, in)
				if last, _ := h.LastTurn(); last.String() != want {
					t.Errorf("%s recorded as %s, want %s", in, last, want)
				}
			}
			for in, why := range tt.bad {
				h := g
				tn, _, err := ParseTurn(in)
				if err == nil {
					err = h.Apply(tn)
				}
				if err == nil || !strings.Contains(err.Error(), why) {
					t.Errorf("%s: error %v, want one containing %q", in, err, why)
				}
				if h != g {
					t.Errorf("%s: a refused turn changed the game", in)
				}
			}
		})
	}
}

// bothRows: e3 jumps e4 (black, becomes white) and e5 (white, becomes
// black) to e6: white's row a4-e4 and black's row e5-i5 at once.
func bothRows(removed [2]uint8, v Variant) setup {
	return setup{
		variant: v, removed: removed,
		wr: "e3 k10 k9", br: "a2 a3 b7",
		wm: "a4 b4 c4 d4 e5", bm: "e4 f5 g5 h5 i5",
	}
}

// TestBothPlayersRows covers G6-G7: the mover removes his row; the
// opponent's row stays and is removed, with a ring, at the start of his
// next turn, before his move.
func TestBothPlayersRows(t *testing.T) {
	g := build(t, bothRows([2]uint8{}, Normal))
	mustApply(t, &g, "e3-e6;xk9")
	if last, _ := g.LastTurn(); last.String() != "e3-e6;xa4-e4;xk9" {
		t.Errorf("recorded %s", last)
	}
	if g.Turn() != 2 || g.Removed(1) != 1 || g.Removed(2) != 0 {
		t.Fatalf("turn %d, removed %d %d", g.Turn(), g.Removed(1), g.Removed(2))
	}
	if !g.b.hasRow(1) {
		t.Fatal("black's row is gone")
	}
	for _, s := range legalStrings(&g) {
		if !strings.HasPrefix(s, "xe5-i5;x") {
			t.Fatalf("black's turn %s does not start with the removal owed", s)
		}
	}
	for in, why := range map[string]string{
		"b7-b6":            "you have a row to remove before your move: xe5-i5",
		"b7-b6;xe5-i5;xa2": "you have a row to remove before your move: xe5-i5",
		"xe5-i5;xe6":       "there is no ring of yours on e6",
		"xe5-i5;xa2":       "after the removals you owe, you must move a ring",
		"--":               "nobody passes by choice",
	} {
		h := g
		tn, _, err := ParseTurn(in)
		if err == nil {
			err = h.Apply(tn)
		}
		if err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%s: error %v, want one containing %q", in, err, why)
		}
	}
	mustApply(t, &g, "xa2;b7-b6")
	if last, _ := g.LastTurn(); last.String() != "xe5-i5;xa2;b7-b6" {
		t.Errorf("recorded %s", last)
	}
	if g.Removed(2) != 1 || g.Turn() != 1 || g.Pool() != PoolMarkers-2 {
		t.Errorf("removed %d, turn %d, pool %d", g.Removed(2), g.Turn(), g.Pool())
	}
}

// TestThirdRing covers H: the third ring (blitz: the first) wins at once,
// in the middle of a turn, before the opponent's row counts; and a player
// owing his third row wins by its removal, before moving.
func TestThirdRing(t *testing.T) {
	for _, v := range []Variant{Normal, Blitz} {
		removed := [2]uint8{2, 2}
		if v == Blitz {
			removed = [2]uint8{}
		}
		t.Run(Rules.Variants[v], func(t *testing.T) {
			g := build(t, bothRows(removed, v))
			want := "e3-e6;xa4-e4;xk9"
			got := legalStrings(&g)
			if !slices.Contains(got, want) {
				t.Fatalf("%s not legal", want)
			}
			mustApply(t, &g, want)
			if g.Status() != games.Won || g.Winner() != 1 || g.Turn() != 0 || len(g.Legal(nil)) != 0 {
				t.Errorf("status %v winner %d turn %d", g.Status(), g.Winner(), g.Turn())
			}
			if err := g.Apply(mustTurn(t, "xe5-i5;xa2")); !errors.Is(err, ErrGameOver) {
				t.Errorf("a turn after the end: %v", err)
			}

			// Black owes the row of a move white made without a row of
			// his own: its removal wins before any move.
			g = build(t, bothRows(removed, v))
			g.b.markers[0].del(pt(t, "a4"))
			mustApply(t, &g, "e3-e6")
			legal := legalStrings(&g)
			wantLegal := []string{"xe5-i5;xa2", "xe5-i5;xa3", "xe5-i5;xb7"}
			if !slices.Equal(legal, wantLegal) {
				t.Errorf("black's turns %v, want %v", legal, wantLegal)
			}
			h := g
			if err := h.Apply(mustTurn(t, "xe5-i5;xa2;b7-b6")); err == nil || !strings.Contains(err.Error(), "wins the game (rulebook H): the turn ends there") {
				t.Errorf("a move after the winning removal: %v", err)
			}
			mustApply(t, &g, "xa2")
			if g.Status() != games.Won || g.Winner() != 2 {
				t.Errorf("status %v winner %d", g.Status(), g.Winner())
			}
		})
	}
}

// poolSetup leaves one marker in the pool: markers on the first 50 free
// points, coloured so that no row exists; white's k7-j7 takes the last.
func poolSetup(t testing.TB, removed [2]uint8) Game {
	wr, br := "k7 k8 k9 j5 j6", "j9 j10 j11 i11 i10"
	used := map[string]bool{}
	for _, n := range strings.Fields(wr + " " + br) {
		used[n] = true
	}
	var ms []string
	for p := range Point(NumPoints) {
		if len(ms) == PoolMarkers-1 {
			break
		}
		if !used[p.String()] {
			ms = append(ms, p.String())
		}
	}
	wm, bm := colouredMarkers(t, strings.Join(ms, " "))
	g := build(t, setup{wr: wr, br: br, wm: wm, bm: bm, removed: removed})
	if g.Pool() != 1 || g.b.hasRow(0) || g.b.hasRow(1) {
		t.Fatalf("pool %d", g.Pool())
	}
	return g
}

// TestEmptyPool covers H: a turn that ends with the pool empty ends the
// game; more rings removed wins, equal is a tie.
func TestEmptyPool(t *testing.T) {
	for _, tt := range []struct {
		removed [2]uint8
		status  games.Outcome
		winner  int
	}{
		{[2]uint8{1, 0}, games.Won, 1},
		{[2]uint8{0, 2}, games.Won, 2},
		{[2]uint8{1, 1}, games.Tie, 0},
	} {
		g := poolSetup(t, tt.removed)
		mustApply(t, &g, "k7-j7")
		if g.Pool() != 0 || g.Status() != tt.status || g.Winner() != tt.winner || g.Turn() != 0 {
			t.Errorf("removed %v: pool %d status %v winner %d turn %d", tt.removed, g.Pool(), g.Status(), g.Winner(), g.Turn())
		}
	}
}

// blockedSetup: black's rings a2, k10, k7 and the extra ones cannot move
// (with k8 a marker or a ring)
// (white rings and runs of markers up to the edge); white's a3, b2, b3
// have moves.
func blockedSetup(t testing.TB, removed [2]uint8, wr, br, markers, bm string) Game {
	wm, cm := colouredMarkers(t, "k9 j10 i10 h10 g10 f10 e10 j9 i8 h7 g6 f5 e4 d3 c2 b1 "+
		"j7 i7 g7 f7 e7 d7 c7 b7 j6 i5 h4 g3 f2 e1 "+markers)
	return build(t, setup{wr: "a3 b2 b3 " + wr, br: "a2 k10 k7 " + br, wm: wm, bm: cm + " " + bm, removed: removed})
}

// TestPasses covers the decisions on players who cannot move: an automatic
// pass "--" for one who owes nothing; removals alone for one who owes a
// row; the end of the game when neither can move.
func TestPasses(t *testing.T) {
	t.Run("pass", func(t *testing.T) {
		g := blockedSetup(t, [2]uint8{2, 2}, "", "", "k8", "")
		mustApply(t, &g, "a3-a4")
		if g.Turn() != 1 {
			t.Fatalf("turn %d, want white again", g.Turn())
		}
		ms := g.Moves()
		if len(ms) != 2 || ms[1].String() != "--" || !ms[1].IsPass() {
			t.Errorf("record %v, want a3-a4 then --", ms)
		}
		if err := g.Apply(Pass); err == nil || !strings.Contains(err.Error(), "nobody passes by choice") {
			t.Errorf("a pass by choice: %v", err)
		}
	})
	t.Run("neither can move", func(t *testing.T) {
		// White's only move is a3-a4; then his rings are blocked too.
		g := blockedSetup(t, [2]uint8{2, 2}, "", "", "k8 a5 b4 c4 d4 e4 f4 g4 h4 i4 b5 c6 d7 e8 f9 g10 h11 d2 e2 g2 c3 d4 e5 f6 g7 h8 i9 "+
			"b6 d3 e3 f3 h3 d5 e6 f7 g8 h9 i10 j11 c5 d6 e7 f8 g9 h10 i11", "")
		if got := legalStrings(&g); !slices.Equal(got, []string{"a3-a4"}) {
			t.Fatalf("white's turns %v, want [a3-a4]", got)
		}
		mustApply(t, &g, "a3-a4")
		if g.Status() != games.Tie || g.Turn() != 0 || g.MoveCount() != 1 || g.Pool() == 0 {
			t.Errorf("status %v turn %d pool %d moves %v", g.Status(), g.Turn(), g.Pool(), g.Moves())
		}
	})
	t.Run("removals alone", func(t *testing.T) {
		// Black owes the row d9-h9. Removing it with the ring a2 leaves
		// his rings blocked: that is his whole turn. Removing k10 (or k8)
		// frees k8 (or k10), which must then move.
		g := blockedSetup(t, [2]uint8{1, 1}, "a5", "k8", "j8 h8 g8 f8 e8 d8 c8 i6 h5 g4 f3 e2 d1", "d9 e9 f9 g9 h9")
		if g.b.hasRow(0) || g.b.rowList(1) != "xd9-h9" {
			t.Fatalf("rows: white %s, black %s", g.b.rowList(0), g.b.rowList(1))
		}
		mustApply(t, &g, "a3-a4")
		want := []string{"xd9-h9;xa2", "xd9-h9;xk10;k8-k10", "xd9-h9;xk7;k8-k7", "xd9-h9;xk8;k10-k8", "xd9-h9;xk8;k7-k8"}
		got := legalStrings(&g)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("black's turns %v, want %v", got, want)
		}
		for in, why := range map[string]string{
			"xd9-h9;xa2;k8-k9": "you cannot move any ring: your turn is the removals you owe alone",
			"xd9-h9;xk10":      "after the removals you owe, you must move a ring",
		} {
			h := g
			if err := h.Apply(mustTurn(t, in)); err == nil || !strings.Contains(err.Error(), why) {
				t.Errorf("%s: error %v, want one containing %q", in, err, why)
			}
		}
		mustApply(t, &g, "xa2")
		if last, _ := g.LastTurn(); last.String() != "xd9-h9;xa2" || g.Turn() != 1 || g.Removed(2) != 2 {
			t.Errorf("recorded %s, turn %d, removed %d", last, g.Turn(), g.Removed(2))
		}
	})
}
