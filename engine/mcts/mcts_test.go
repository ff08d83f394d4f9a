package mcts

import (
	"context"
	"errors"
	"testing"
)

// nim is a test game: players take 1 or 2 from a pile in turn; who takes
// the last wins. Leaving a multiple of 3 wins.
type nim struct {
	pile, turn, winner int
}

type nimPolicy struct{}

func (nimPolicy) Playing(g *nim) bool { return g.pile > 0 }
func (nimPolicy) Turn(g *nim) int     { return g.turn }
func (nimPolicy) Legal(g *nim, buf []int) []int {
	for k := 1; k <= min(2, g.pile); k++ {
		buf = append(buf, k)
	}
	return buf
}
func (nimPolicy) Class(*nim, int) uint8 { return 0 }
func (nimPolicy) Apply(g *nim, k int) error {
	if k < 1 || k > 2 || k > g.pile {
		return errors.New("bad move")
	}
	g.pile -= k
	if g.pile == 0 {
		g.winner = g.turn
	}
	g.turn = 3 - g.turn
	return nil
}
func (p nimPolicy) Playout(g *nim, r *RNG, buf []int) (int, []int) {
	for g.pile > 0 {
		buf = p.Legal(g, buf[:0])
		_ = p.Apply(g, buf[r.Intn(len(buf))])
	}
	return g.winner, buf
}

var nimConfig = Config{Explore: 0.6, FPU: 0.5, ClassBonus: 0.08, ExpandAt: 2, ArenaNodes: 1 << 16, MaxMoves: 2}

// TestNim: the search finds the winning move (leave a multiple of 3) from
// piles 4 to 20, deterministically for a seed, on one worker and two.
func TestNim(t *testing.T) {
	for pile := 4; pile <= 20; pile++ {
		if pile%3 == 0 {
			continue
		}
		for _, workers := range []int{1, 2} {
			g := nim{pile: pile, turn: 1}
			o := Options{Iterations: 4000, Workers: workers, Seed: uint64(pile)}
			res, err := Search(context.Background(), &g, nimPolicy{}, nimConfig, o)
			if err != nil {
				t.Fatal(err)
			}
			if (pile-res.Move)%3 != 0 || res.Playouts != o.Iterations {
				t.Errorf("pile %d, %d workers: took %d (%d playouts, value %.2f)", pile, workers, res.Move, res.Playouts, res.Value)
			}
			again, _ := Search(context.Background(), &g, nimPolicy{}, nimConfig, o)
			if again != res {
				t.Errorf("pile %d: %+v then %+v", pile, res, again)
			}
		}
	}
	g := nim{}
	if _, err := Search(context.Background(), &g, nimPolicy{}, nimConfig, Options{Iterations: 1}); !errors.Is(err, ErrNoMove) {
		t.Errorf("an empty pile: %v", err)
	}
	g = nim{pile: 5, turn: 1}
	if _, err := Search(context.Background(), &g, nimPolicy{}, nimConfig, Options{}); err == nil {
		t.Error("a search without a budget ran")
	}
}

// TestIterateAllocs: an iteration allocates nothing.
func TestIterateAllocs(t *testing.T) {
	g := nim{pile: 40, turn: 1}
	tr := NewTree(&g, nimPolicy{}, nimConfig, 1, 0)
	if a := testing.AllocsPerRun(500, tr.Iterate); a != 0 {
		t.Errorf("%v allocations per iteration", a)
	}
}

// TestGrow: with Config.Grow a leaf needs ExpandAt visits while the arena
// is empty, twice that half full and ten times at nine tenths; the tree
// still grows long after a fixed ExpandAt has filled the arena, and never
// past its room.
func TestGrow(t *testing.T) {
	cfg := nimConfig
	cfg.ArenaNodes = 1 << 10
	g := nim{pile: 300, turn: 1}
	fixed := NewTree(&g, nimPolicy{}, cfg, 1, 0)
	n := 0
	for !fixed.Full() {
		fixed.Iterate()
		n++
	}
	cfg.Grow = true
	grow := NewTree(&g, nimPolicy{}, cfg, 1, 0)
	for range n {
		grow.Iterate()
	}
	if grow.Full() {
		t.Errorf("growing: full after %d iterations, as the fixed threshold", n)
	}
	at := len(grow.nodes)
	for range 50 * n {
		grow.Iterate()
	}
	if len(grow.nodes) <= at || len(grow.nodes) > cap(grow.nodes) || cap(grow.nodes) != cfg.ArenaNodes {
		t.Errorf("growing: %d nodes after %d iterations, %d after %d more (room %d)", at, n, len(grow.nodes), 50*n, cap(grow.nodes))
	}
	empty := NewTree(&g, nimPolicy{}, cfg, 1, 0)
	for _, c := range []struct{ used, want int }{{1, 2}, {512, 4}, {1024 - 102, 20}, {1024, 2048}} {
		empty.nodes = empty.nodes[:c.used]
		if got := empty.expandAt(); got != uint32(c.want) {
			t.Errorf("%d of %d nodes used: expanded at %d visits, want %d", c.used, cap(empty.nodes), got, c.want)
		}
	}
}
