package yinshsearch

import (
	"context"
	"flag"
	"fmt"
	"sync"
	"testing"
	"time"

	"lyngk.example/lyngk/engine/mcts"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/yinsh"
)

// The strength matches of engine/README.md. They are a
// measuring program, not a unit test: they run only when -strength names
// an opponent, for example
//
//	go test ./engine/yinshsearch -run Strength -strength random -iters 1200 -timeout 0
//	go test ./engine/yinshsearch -run Strength -strength greedy -iters 1200 -timeout 0
//
// The robot thinks -think per turn, or -iters playouts when given (the
// think time converted with the playouts per second measured alone, so
// that results do not depend on the load of the machine). Game i starts
// from the empty board with the robot white in even games and black in odd
// ones; the opponents draw from a generator seeded with i+1; -parallel
// games run at once.
var (
	strengthOpp = flag.String("strength", "", "run the strength match against `random` or `greedy`")
	strengthN   = flag.Int("games", 100, "games in the strength match")
	strengthT   = flag.Duration("think", 100*time.Millisecond, "the robot's think time per turn")
	strengthI   = flag.Int("iters", 0, "the robot's playouts per turn (instead of -think)")
	strengthP   = flag.Int("parallel", 1, "games played at once")
	strengthV   = flag.Bool("blitz", false, "play blitz")
)

// player chooses a turn for the player to move.
type player func(g *yinsh.Game, r *rng) yinsh.Turn

func robotPlayer(iters int, think time.Duration) player {
	return func(g *yinsh.Game, r *rng) yinsh.Turn {
		res, err := Robot.Search(context.Background(), g, mcts.Options{Iterations: iters, Think: think, Workers: 1, Seed: r.next()})
		if err != nil {
			panic(err)
		}
		return res.Move
	}
}

// randomPlayer plays uniformly among all legal whole turns.
func randomPlayer(g *yinsh.Game, r *rng) yinsh.Turn {
	ts := g.Legal(nil)
	return ts[r.intn(len(ts))]
}

// greedyPlayer takes a turn that completes a row of its colour when it
// can, else the one that leaves the most markers of its colour minus the
// opponent's; ties are broken at random.
func greedyPlayer(g *yinsh.Game, r *rng) yinsh.Turn {
	me := g.Turn()
	var best []yinsh.Turn
	bestScore := -1 << 30
	for _, tn := range g.Legal(nil) {
		h := *g
		if err := h.Apply(tn); err != nil {
			panic(err)
		}
		score := len(h.Markers(me)) - len(h.Markers(3-me))
		if tn.NPost > 0 {
			score = 1 << 20
		}
		switch {
		case score > bestScore:
			best, bestScore = append(best[:0], tn), score
		case score == bestScore:
			best = append(best, tn)
		}
	}
	return best[r.intn(len(best))]
}

// TestGreedyPlayer: the greedy player completes a row when it can.
func TestGreedyPlayer(t *testing.T) {
	found := 0
	for seed := uint64(1); found < 5; seed++ {
		g := yinsh.New(yinsh.Normal)
		r := rng(seed)
		for g.Status() == games.Playing && found < 5 {
			can := false
			for _, tn := range g.Legal(nil) {
				can = can || tn.NPost > 0
			}
			tn := greedyPlayer(&g, &r)
			if can {
				found++
				if tn.NPost == 0 {
					t.Errorf("seed %d: greedy played %s, not a row", seed, tn)
				}
			}
			if err := g.Apply(tn); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestStrength plays the match -strength asks for and logs the score of
// the robot (wins, ties, losses).
func TestStrength(t *testing.T) {
	var opp player
	robot := robotPlayer(*strengthI, *strengthT)
	switch *strengthOpp {
	case "":
		t.Skip("a measuring program: give -strength random|greedy")
	case "random":
		opp = randomPlayer
	case "greedy":
		opp = greedyPlayer
	default:
		t.Fatalf("-strength %q: want random or greedy", *strengthOpp)
	}
	v := yinsh.Normal
	if *strengthV {
		v = yinsh.Blitz
	}
	var mu sync.Mutex
	var wins, ties, losses, turns int
	sem := make(chan struct{}, max(*strengthP, 1))
	var wg sync.WaitGroup
	start := time.Now()
	for i := range *strengthN {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			g := yinsh.New(v)
			side := 1 + i%2
			r := rng(uint64(i) + 1)
			for g.Status() == games.Playing {
				next := opp
				if g.Turn() == side {
					next = robot
				}
				if err := g.Apply(next(&g, &r)); err != nil {
					panic(err)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			turns += g.MoveCount()
			result := "won"
			switch g.Winner() {
			case side:
				wins++
			case 0:
				ties++
				result = "tied"
			default:
				losses++
				result = "lost"
			}
			t.Logf("game %d (robot player %d) %s %d-%d after %d turns; so far %d won, %d tied, %d lost",
				i, side, result, g.Removed(side), g.Removed(3-side), g.MoveCount(), wins, ties, losses)
		}()
	}
	wg.Wait()
	budget := fmt.Sprint(*strengthT)
	if *strengthI > 0 {
		budget = fmt.Sprintf("%d playouts", *strengthI)
	}
	t.Logf("robot (%s/turn, %v) against %s: %d won, %d tied, %d lost of %d games (%.1f turns per game, %v)",
		budget, v, *strengthOpp, wins, ties, losses, *strengthN, float64(turns)/float64(*strengthN), time.Since(start).Round(time.Second))
}
