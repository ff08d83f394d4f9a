package lyngksearch

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/engine/mcts"
)

// TestRootMoves: the ranked moves of testdata/removal.txt are legal, no
// more than asked, and hold its only removal, g4-d2. (The evaluation
// ranks d2-e3 above it: that move takes away the stack player 2 would
// complete next and threatens one of player 1's; the search decides.)
func TestRootMoves(t *testing.T) {
	g := readPosition(t, "testdata/removal.txt", 1)
	moves := Robot.rootMoves(&g, 10)
	if len(moves) != 10 || !slices.ContainsFunc(moves, func(m lyngk.Move) bool { return m.String() == "g4-d2" }) {
		t.Fatalf("ranked %v", moves)
	}
	legal := g.Legal(nil)
	for _, m := range moves {
		if !slices.Contains(legal, m) {
			t.Errorf("%v is not legal", m)
		}
	}
	if all := Robot.rootMoves(&g, 0); len(all) != len(Robot.Policy.Legal(&g, nil)) {
		t.Errorf("width 0 ranked %d moves", len(all))
	}
}

// TestRobotGames plays whole games robot against robot through the game
// contract on small playout budgets: every move is one of the rules'
// legal moves, and a seed replays the same game.
func TestRobotGames(t *testing.T) {
	for board := 1; board <= 2; board++ {
		var record []string
		for run := range 2 {
			p := lyngk.Position(lyngk.New(board, lyngk.Variant(board%2)))
			for p.Outcome() == games.Playing {
				th, err := Robot.Think(context.Background(), p, games.Think{Playouts: 300, Workers: 2, Seed: uint64(len(p.Moves()))})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Contains(p.Legal(), th.Move.String()) {
					t.Fatalf("board %d: %v is not legal", board, th.Move)
				}
				if err := p.Play(th.Move); err != nil {
					t.Fatal(err)
				}
			}
			if run == 1 && !slices.Equal(record, p.Moves()) {
				t.Errorf("board %d replayed\n%v\nas\n%v", board, record, p.Moves())
			}
			record = p.Moves()
		}
	}
}

// TestThinkBudget: through the game contract a playout budget is spent
// exactly, a think time (the ranking of the moves included) is kept to
// within the slack of a loaded machine (the search looks at the clock
// every 64 playouts, package mcts; at a load of 17 on two cores those took
// up to 365 ms), and a cancelled context ends the
// search with its error.
func TestThinkBudget(t *testing.T) {
	p := lyngk.Position(lyngk.New(7, lyngk.Standard))
	th, err := Robot.Think(context.Background(), p, games.Think{Playouts: 500, Workers: 2, Seed: 1})
	if err != nil || th.Playouts != 500 {
		t.Errorf("500 playouts: %d, %v", th.Playouts, err)
	}
	start := time.Now()
	th, err = Robot.Think(context.Background(), p, games.Think{Time: 20 * time.Millisecond, Workers: 1, Seed: 1})
	if took := time.Since(start); err != nil || took > time.Second || th.Playouts == 0 {
		t.Errorf("20 ms: %d playouts in %v, %v", th.Playouts, took, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Robot.Think(ctx, p, games.Think{Time: time.Hour, Seed: 1}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := Robot.Think(context.Background(), nil, games.Think{Playouts: 1}); !errors.Is(err, games.ErrNotOurs) {
		t.Errorf("no LYNGK position: %v", err)
	}
}

// TestArenaNodes: the arena of a search is config's up to 2 s of thinking,
// grows with a longer think time and stops at 2^23 nodes.
func TestArenaNodes(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want int
	}{{100 * time.Millisecond, 1 << 20}, {2 * time.Second, 1 << 20}, {10 * time.Second, 5 << 20}, {time.Minute, 1 << 23}} {
		if got := arenaNodes(c.d); got != c.want {
			t.Errorf("%v: %d nodes, want %d", c.d, got, c.want)
		}
	}
	if config.ArenaNodes != 1<<20 {
		t.Errorf("config's arena is %d nodes, arenaNodes says 2^20", config.ArenaNodes)
	}
}

// TestWidth: the root keeps 30 moves for a playout budget and a think
// time up to 2 s (the robot level), 100 for a longer think (robot-max).
func TestWidth(t *testing.T) {
	for _, c := range []struct {
		o    mcts.Options
		want int
	}{
		{mcts.Options{Iterations: 1500}, 30},
		{mcts.Options{Iterations: 1 << 20, Think: time.Minute}, 30},
		{mcts.Options{Think: 100 * time.Millisecond}, 30},
		{mcts.Options{Think: 2 * time.Second}, 30},
		{mcts.Options{Think: 2*time.Second + time.Millisecond}, 100},
		{mcts.Options{Think: 10 * time.Second}, 100},
	} {
		if got := Robot.width(c.o); got != c.want {
			t.Errorf("%+v: a root of %d moves, want %d", c.o, got, c.want)
		}
	}
}
