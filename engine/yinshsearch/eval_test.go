package yinshsearch

import (
	"strings"
	"testing"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/yinsh"
)

// pos describes a movement-phase position for the evaluation: white and
// black rings and markers as space-separated points, rings removed, the
// player to move (1 or 2).
type pos struct {
	wr, br, wm, bm string
	removed        [2]int
	toMove         int
}

func (p pos) view(t *testing.T) view {
	t.Helper()
	v := view{removed: p.removed, toMove: p.toMove - 1}
	var all bitset
	for i, list := range []string{p.wr, p.br, p.wm, p.bm} {
		for _, name := range strings.Fields(list) {
			q, ok := yinsh.ParsePoint(name)
			if !ok || all.has(q) {
				t.Fatalf("point %q unknown or twice", name)
			}
			all.add(q)
			if i < 2 {
				v.rings[i].add(q)
			} else {
				v.markers[i-2].add(q)
			}
		}
	}
	return v
}

// The rings of the positions below, away from column e and the markers.
const (
	whiteRings = "a2 b1 k7 k10 j11"
	blackRings = "a5 b7 g2 h3 i4"
)

// TestEvaluate: the evaluation orders hand-built positions as a player
// would: an open run of four above the same run blocked at both ends by
// the opponent's markers, an open run above a run of three, a ring removed
// above any markers short of a row, a row ready for the player to move
// above the same row for the other.
func TestEvaluate(t *testing.T) {
	for _, c := range []struct {
		name          string
		better, worse pos
	}{
		{"a run of four open, not blocked at its ends",
			pos{wr: whiteRings, br: blackRings, wm: "e3 e4 e5 e6", bm: "c3 c4", toMove: 2},
			pos{wr: whiteRings, br: blackRings, wm: "e3 e4 e5 e6", bm: "e2 e7", toMove: 2}},
		{"a run of four, not three",
			pos{wr: whiteRings, br: blackRings, wm: "e3 e4 e5 e6", toMove: 2},
			pos{wr: whiteRings, br: blackRings, wm: "e3 e4 e5 c6", toMove: 2}},
		{"a ring removed, not the opponent's two open runs of four",
			pos{wr: "a2 b1 k7 k10", br: blackRings, bm: "e3 e4 e5 e6 g4 g5 g6 g7", removed: [2]int{1, 0}, toMove: 2},
			pos{wr: whiteRings, br: blackRings, toMove: 2}},
		{"a row ready to the player to move, not to the other",
			pos{wr: "a2 b1 k7 k10 e7", br: blackRings, wm: "e3 e4 e5 e6", toMove: 1},
			pos{wr: "a2 b1 k7 k10 e7", br: blackRings, wm: "e3 e4 e5 e6", toMove: 2}},
		{"a row of five owed, not a run of four",
			pos{wr: whiteRings, br: blackRings, wm: "e3 e4 e5 e6 e7", toMove: 1},
			pos{wr: whiteRings, br: blackRings, wm: "e3 e4 e5 e6 c7", toMove: 1}},
	} {
		better, worse := c.better.view(t), c.worse.view(t)
		if b, w := score(&better), score(&worse); b <= w {
			t.Errorf("%s: %d, not above %d", c.name, b, w)
		}
	}
	// A ring removed outweighs the opponent's best markers: white is
	// ahead.
	v := pos{wr: "a2 b1 k7 k10", br: blackRings, bm: "e3 e4 e5 e6 g4 g5 g6 g7", removed: [2]int{1, 0}, toMove: 2}.view(t)
	if s := score(&v); s <= 0 {
		t.Errorf("a ring up against two runs of four: %d for white", s)
	}
}

// swap is v with the colours exchanged.
func swap(v view) view {
	return view{
		rings:   [2]bitset{v.rings[1], v.rings[0]},
		markers: [2]bitset{v.markers[1], v.markers[0]},
		removed: [2]int{v.removed[1], v.removed[0]},
		toMove:  1 - v.toMove,
		placing: v.placing,
	}
}

// TestEvaluateSymmetric: in every position of ten random games, the score
// of the colour-swapped twin is the opposite.
func TestEvaluateSymmetric(t *testing.T) {
	n := 0
	for seed := uint64(1); seed <= 10; seed++ {
		g := yinsh.New(yinsh.Normal)
		r := rng(seed)
		for g.Status() == games.Playing {
			v := viewOf(&g)
			w := swap(v)
			if a, b := score(&v), score(&w); a != -b {
				t.Fatalf("seed %d, turn %d: %d, swapped %d", seed, g.MoveCount(), a, b)
			}
			n++
			if err := g.Apply(g.RandomTurn(r.intn)); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("%d positions", n)
}
