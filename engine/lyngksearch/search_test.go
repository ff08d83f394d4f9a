package lyngksearch

import (
	"context"
	"errors"
	"testing"
	"time"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/engine/mcts"
)

// TestDeterministic: a seed and an iteration budget give the same move and
// the same count of playouts, on one worker and on two; the move is legal.
func TestDeterministic(t *testing.T) {
	for _, v := range []lyngk.Variant{lyngk.Standard, lyngk.Stack6} {
		for _, workers := range []int{1, 2} {
			g := lyngk.New(101, v)
			o := mcts.Options{Iterations: 3000, Workers: workers, Seed: 42}
			first, err := Robot.Search(context.Background(), &g, o)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				again, err := Robot.Search(context.Background(), &g, o)
				if err != nil {
					t.Fatal(err)
				}
				if again != first {
					t.Fatalf("%v, %d workers: %+v then %+v", v, workers, first, again)
				}
			}
			if first.Playouts != o.Iterations {
				t.Errorf("%v, %d workers: %d playouts, want %d", v, workers, first.Playouts, o.Iterations)
			}
			h := g
			if err := h.Apply(first.Move); err != nil {
				t.Errorf("%v, %d workers: %v", v, workers, err)
			}
		}
	}
}

// TestThink: a time budget stops near its deadline and still plays a
// legal move; a cancelled context ends the search with its error.
func TestThink(t *testing.T) {
	g := lyngk.New(102, lyngk.Standard)
	start := time.Now()
	res, err := Robot.Search(context.Background(), &g, mcts.Options{Think: 50 * time.Millisecond, Workers: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 50*time.Millisecond {
		t.Errorf("a 50 ms search returned after %v", took)
	}
	if res.Playouts == 0 {
		t.Error("no playout in 50 ms")
	}
	if err := g.Apply(res.Move); err != nil {
		t.Error(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Robot.Search(ctx, &g, mcts.Options{Think: time.Hour, Seed: 1}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled search: %v", err)
	}
}

// TestGameOverAndBudget: no move in a finished game; a search needs a
// budget.
func TestGameOverAndBudget(t *testing.T) {
	g := lyngk.New(101, lyngk.Standard)
	if _, err := Robot.Search(context.Background(), &g, mcts.Options{}); err == nil {
		t.Error("a search without a budget ran")
	}
	for g.Status() == games.Playing {
		if err := g.Apply(g.Legal(nil)[0]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Robot.Search(context.Background(), &g, mcts.Options{Iterations: 10}); !errors.Is(err, mcts.ErrNoMove) {
		t.Errorf("finished game: %v", err)
	}
}

// TestTakesRemoval: when player 1 can complete a stack of a claimed colour,
// the robot does it (a removal is worth a stack, and a greedy opponent
// would take it next): position testdata/removal.txt (board 101 after 20
// random moves), where g4-d2 is the only removal.
func TestTakesRemoval(t *testing.T) {
	g := readPosition(t, "testdata/removal.txt", 1)
	res, err := Robot.Search(context.Background(), &g, mcts.Options{Iterations: 2000, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	h := g
	if err := h.Apply(res.Move); err != nil {
		t.Fatal(err)
	}
	if h.Removed(1) != 1 {
		t.Errorf("robot played %v, not the removal", res.Move)
	}
}

// TestPlayoutsLegal plays many playouts from many boards of both variants:
// every move the policy picks is legal (Apply panics otherwise) and every
// playout ends.
func TestPlayoutsLegal(t *testing.T) {
	r := mcts.RNG(1)
	var buf []lyngk.Move
	for i := range 400 {
		g := lyngk.New(1+i, lyngk.Variant(i%2))
		var w int
		if w, buf = (policy{}).Playout(&g, &r, buf); g.Status() == games.Playing || w != g.Winner() {
			t.Fatalf("board %d: playout ended %v, winner %d", 1+i, g.Status(), w)
		}
	}
}

// TestIterateAllocs: the inner loop of the search allocates nothing.
func TestIterateAllocs(t *testing.T) {
	g := lyngk.New(101, lyngk.Standard)
	tr := Robot.Tree(&g, 1, 0)
	if a := testing.AllocsPerRun(500, tr.Iterate); a != 0 {
		t.Errorf("%v allocations per iteration", a)
	}
}
