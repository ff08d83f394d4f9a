package yinshsearch

import (
	"context"
	"errors"
	"testing"
	"time"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/mcts"
	"lyngk.example/lyngk/engine/yinsh"
)

// TestSearchLegal: whole games of the robot against the previous one at
// small budgets, normal and blitz, each robot white in turn: every turn
// the robot chooses is among the rules' legal turns and Apply takes it.
func TestSearchLegal(t *testing.T) {
	turns := 0
	for i := range 6 {
		v := yinsh.Normal
		if i >= 4 {
			v = yinsh.Blitz
		}
		g := yinsh.New(v)
		side := 1 + i%2
		for g.Status() == games.Playing {
			o := mcts.Options{Iterations: 5, Workers: 1, Seed: uint64(i)}
			if g.Turn() != side {
				res, err := baseline.Search(context.Background(), &g, o)
				if err != nil {
					t.Fatal(err)
				}
				if err := g.Apply(res.Move); err != nil {
					t.Fatal(err)
				}
				continue
			}
			res, err := Robot.Search(context.Background(), &g, o)
			if err != nil {
				t.Fatal(err)
			}
			legal := false
			for _, tn := range g.Legal(nil) {
				legal = legal || tn == res.Move
			}
			if err := g.Apply(res.Move); !legal || err != nil {
				t.Fatalf("game %d, turn %d: %s is not a legal turn (%v)", i, g.MoveCount(), res.Move, err)
			}
			turns++
		}
	}
	t.Logf("%d turns of the robot", turns)
}

// TestSearchDeterministic: a seed and a playout budget give the same turn,
// node count and value, whatever the workers; the budget is used, none
// beyond it.
func TestSearchDeterministic(t *testing.T) {
	for _, n := range []int{0, 12, 30, 45} {
		g := position(t, n)
		var first mcts.Result[yinsh.Turn]
		for i, workers := range []int{1, 1, 2} {
			res, err := Robot.Search(context.Background(), &g, mcts.Options{Iterations: 200, Workers: workers, Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				first = res
			} else if res != first {
				t.Errorf("%d turns in, %d workers: %+v then %+v", n, workers, first, res)
			}
		}
		if first.Playouts != 200 {
			t.Errorf("%d turns in: %d playouts' worth of nodes for a budget of 200", n, first.Playouts)
		}
	}
}

// TestSearchTime: a think time is kept (the search ends within it, give
// or take a busy machine's delay), and a search ends at once with the
// context's error when the context ends.
func TestSearchTime(t *testing.T) {
	g := position(t, 30)
	const think = 150 * time.Millisecond
	start := time.Now()
	if _, err := Robot.Search(context.Background(), &g, mcts.Options{Think: think}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > think+250*time.Millisecond {
		t.Errorf("thought %v for %v", d, think)
	}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start = time.Now()
	_, err := Robot.Search(ctx, &g, mcts.Options{Think: time.Minute})
	if !errors.Is(err, context.Canceled) || time.Since(start) > 2*time.Second {
		t.Errorf("cancelled after 50ms: %v after %v", err, time.Since(start))
	}
	if _, err := Robot.Search(context.Background(), &g, mcts.Options{}); err == nil {
		t.Error("a search without a budget ran")
	}
	over := yinsh.New(yinsh.Blitz)
	r := rng(3)
	for over.Status() == games.Playing {
		if err := over.Apply(over.RandomTurn(r.intn)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Robot.Search(context.Background(), &over, mcts.Options{Iterations: 10}); !errors.Is(err, mcts.ErrNoMove) {
		t.Errorf("a finished game: %v", err)
	}
}
