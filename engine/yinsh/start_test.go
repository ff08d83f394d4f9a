package yinsh

import (
	"slices"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine/games"
)

// The GIPF notation page's example: ten placements, then the ring move
// h7-g7 (yinsh-board.md).
var examplePlacements = []string{"e3", "a5", "b5", "c6", "d6", "e4", "h7", "g2", "g3", "g8"}

func TestPlacement(t *testing.T) {
	g := New(Normal)
	if got := len(g.Legal(nil)); got != NumPoints {
		t.Errorf("%d placements at the start, want 85", got)
	}
	if g.Pool() != PoolMarkers || g.Turn() != 1 || !g.Placing() {
		t.Errorf("start: pool %d turn %d", g.Pool(), g.Turn())
	}
	for in, why := range map[string]string{
		"e3-e4": "the rings are still being placed",
		"xe3":   "you have no row of your colour to remove before your move",
	} {
		h := g
		if err := h.Apply(mustTurn(t, in)); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%s: %v", in, err)
		}
	}
	for i, s := range examplePlacements {
		if g.Turn() != 1+i%2 {
			t.Fatalf("placement %d by player %d", i+1, g.Turn())
		}
		if i > 0 {
			h := g
			if err := h.Apply(mustTurn(t, examplePlacements[i-1])); err == nil || !strings.Contains(err.Error(), "already holds a ring") {
				t.Errorf("placing on %s again: %v", examplePlacements[i-1], err)
			}
		}
		mustApply(t, &g, s)
		if n := len(g.Legal(nil)); i < 9 && n != NumPoints-1-i {
			t.Errorf("after %d placements %d legal, want %d", i+1, n, NumPoints-1-i)
		}
	}
	if g.Placing() || g.Turn() != 1 || g.Pool() != PoolMarkers {
		t.Fatalf("after placing: placing %v turn %d pool %d", g.Placing(), g.Turn(), g.Pool())
	}
	if got := names(g.Rings(1)); got != "b5 d6 e3 g3 h7" {
		t.Errorf("white rings %s", got)
	}
	if err := g.Apply(mustTurn(t, "e5")); err == nil || !strings.Contains(err.Error(), "all rings are placed") {
		t.Errorf("a placement after the placements: %v", err)
	}
	if err := g.Apply(mustTurn(t, "a5-a4")); err == nil || !strings.Contains(err.Error(), "the ring on a5 is your opponent's") {
		t.Errorf("moving the opponent's ring: %v", err)
	}
	mustApply(t, &g, "h7-g7")
	if g.Pool() != PoolMarkers-1 || g.Turn() != 2 {
		t.Errorf("after h7-g7: pool %d turn %d", g.Pool(), g.Turn())
	}
	if p, ring := g.Piece(pt(t, "h7")); p != 1 || ring {
		t.Errorf("h7 holds %d ring %v, want a white marker", p, ring)
	}
	var moves []string
	for _, m := range g.Moves() {
		moves = append(moves, m.String())
	}
	if want := append(slices.Clone(examplePlacements), "h7-g7"); !slices.Equal(moves, want) {
		t.Errorf("record %v", moves)
	}
}

// TestRandomGames plays random games to their ends and checks, at every
// position, that each legal turn applies and is recorded as written, that
// legal turns are distinct, and that a ring move is accepted without
// removals exactly when Legal lists it so; the bounds of the record hold.
func TestRandomGames(t *testing.T) {
	nGames := 100
	if testing.Short() {
		nGames = 20
	}
	var buf []Turn
	endings := map[games.Outcome]int{}
	for seed := range uint64(nGames) {
		v := Normal
		if seed%4 == 3 {
			v = Blitz
		}
		g := New(v)
		r := rng(seed)
		for g.Status() == games.Playing {
			buf = g.Legal(buf[:0])
			seen := map[Turn]bool{}
			plain := map[[2]Point]bool{}
			for _, tn := range buf {
				if seen[tn] {
					t.Fatalf("seed %d: %s twice", seed, tn)
				}
				seen[tn] = true
				if tn.Action == Move && tn.NPre == 0 && tn.NPost == 0 {
					plain[[2]Point{tn.From, tn.To}] = true
				}
				h := g
				if err := h.Apply(tn); err != nil {
					t.Fatalf("seed %d: legal %s refused: %v", seed, tn, err)
				}
				if rec := h.hist[g.nhist]; rec != tn {
					t.Fatalf("seed %d: %s recorded as %s", seed, tn, rec)
				}
			}
			if !g.Placing() && !g.b.hasRow(g.turn-1) {
				for _, p := range g.Rings(g.Turn()) {
					for q := range Point(NumPoints) {
						h := g
						err := h.Apply(Turn{Action: Move, From: p, To: q})
						if (err == nil) != plain[[2]Point{p, q}] {
							t.Fatalf("seed %d: %s-%s: Apply says %v, Legal %v", seed, p, q, err, plain[[2]Point{p, q}])
						}
					}
				}
			}
			if err := g.Apply(buf[r.intn(len(buf))]); err != nil {
				t.Fatal(err)
			}
		}
		endings[g.Status()]++
		if g.MoveCount() > maxHistory || g.Pool() < 0 {
			t.Fatalf("seed %d: %d turns, pool %d", seed, g.MoveCount(), g.Pool())
		}
	}
	t.Logf("endings %v", endings)
}

// TestRandomTurn: the turns RandomTurn draws are legal (listed by Legal)
// all through random games of both variants.
func TestRandomTurn(t *testing.T) {
	for seed := range uint64(100) {
		v := Variant(seed % 2)
		g := New(v)
		r := rng(seed)
		for g.Status() == games.Playing {
			tn := g.RandomTurn(r.intn)
			legal := g.Legal(nil)
			if !slices.Contains(legal, tn) {
				t.Fatalf("seed %d: RandomTurn %s is not legal", seed, tn)
			}
			if err := g.Apply(tn); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestPlay: Play leaves the same game as Apply for every turn Legal lists,
// all through random games of both variants (rows, passes, ends).
func TestPlay(t *testing.T) {
	for seed := range uint64(60) {
		g := New(Variant(seed % 2))
		r := rng(seed)
		for g.Status() == games.Playing {
			for _, tn := range g.Legal(nil) {
				checked, played := g, g
				if err := checked.Apply(tn); err != nil {
					t.Fatalf("seed %d: %s: %v", seed, tn, err)
				}
				played.Play(tn)
				if played != checked {
					t.Fatalf("seed %d, turn %d: %s played is not %s applied", seed, g.MoveCount(), tn, tn)
				}
			}
			if err := g.Apply(g.RandomTurn(r.intn)); err != nil {
				t.Fatal(err)
			}
		}
	}
}
