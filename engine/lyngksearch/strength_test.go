package lyngksearch

import (
	"context"
	"flag"
	"fmt"
	"sync"
	"testing"
	"time"

	"lyngk.example/lyngk/engine/mcts"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
)

// The strength matches of engine/README.md. They are a measuring program, not a
// unit test: they run only when -strength names an opponent, for example
//
//	go test ./engine/lyngksearch -run Strength -strength random -timeout 0
//	go test ./engine/lyngksearch -run Strength -strength greedy -iters 2800
//	go test ./engine/lyngksearch -run Strength -strength robot -iters 2800 -strong-iters 56000
//
// The robot thinks -think per move, or -iters playouts when given (the
// think time converted with the playouts per second measured alone, so that
// results do not depend on the load of the machine); against "robot" the
// stronger side thinks -strong-think or -strong-iters. Game i is played from
// start position -first+i with the robot as player 1 in even games and
// player 2 in odd ones; -parallel games run at once.
var (
	strengthOpp = flag.String("strength", "", "run the strength match against `random`, `greedy` or `robot`")
	strengthN   = flag.Int("games", 100, "games in the strength match")
	strengthT   = flag.Duration("think", 100*time.Millisecond, "the robot's think time per move")
	strengthI   = flag.Int("iters", 0, "the robot's playouts per move (instead of -think)")
	strongT     = flag.Duration("strong-think", 2*time.Second, "the stronger robot's think time against -strength robot")
	strongI     = flag.Int("strong-iters", 0, "the stronger robot's playouts per move (instead of -strong-think)")
	strengthP   = flag.Int("parallel", 1, "games played at once")
	strengthB   = flag.Int("first", 1, "the start position (board number) of the first game")
)

// player chooses a move for the player to move; game is the game's index,
// for seeds.
type player func(g *lyngk.Game, game int, r *rng) lyngk.Move

func robotPlayer(iters int, think time.Duration) player {
	return func(g *lyngk.Game, game int, r *rng) lyngk.Move {
		res, err := Robot.Search(context.Background(), g, mcts.Options{Iterations: iters, Think: think, Workers: 1, Seed: r.next()})
		if err != nil {
			panic(err)
		}
		return res.Move
	}
}

// randomPlayer moves uniformly among all legal moves, claims included.
func randomPlayer(g *lyngk.Game, _ int, r *rng) lyngk.Move {
	ms := g.Legal(nil)
	return ms[r.intn(len(ms))]
}

// greedyPlayer removes a stack when it can, else makes its tallest own
// stack (topped by a colour it claimed, or claims with this move), else
// moves at random; ties are broken at random.
func greedyPlayer(g *lyngk.Game, _ int, r *rng) lyngk.Move {
	me := g.Turn()
	var best []lyngk.Move
	bestScore := -1
	for _, m := range g.Legal(nil) {
		h := *g
		if err := h.Apply(m); err != nil {
			panic(err)
		}
		score := 0
		switch top := g.Top(m.From); {
		case h.Removed(me) > g.Removed(me):
			score = 10
		case top == m.Claim || g.Owner(top) == me:
			score = g.Height(m.From) + g.Height(m.To)
		}
		switch {
		case score > bestScore:
			best, bestScore = append(best[:0], m), score
		case score == bestScore:
			best = append(best, m)
		}
	}
	return best[r.intn(len(best))]
}

// TestStrength plays the match -strength asks for and logs the score of
// the robot (wins, ties, losses).
func TestStrength(t *testing.T) {
	var opp player
	weak := robotPlayer(*strengthI, *strengthT)
	robot := weak
	switch *strengthOpp {
	case "":
		t.Skip("a measuring program: give -strength random|greedy|robot")
	case "random":
		opp = randomPlayer
	case "greedy":
		opp = greedyPlayer
	case "robot":
		opp, robot = weak, robotPlayer(*strongI, *strongT)
	default:
		t.Fatalf("-strength %q: want random, greedy or robot", *strengthOpp)
	}
	var mu sync.Mutex
	var wins, ties, losses, moves int
	sem := make(chan struct{}, max(*strengthP, 1))
	var wg sync.WaitGroup
	start := time.Now()
	for i := range *strengthN {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			g := lyngk.New(*strengthB+i, lyngk.Standard)
			side := 1 + i%2
			r := rng(uint64(i) + 1)
			for g.Status() == games.Playing {
				next := opp
				if g.Turn() == side {
					next = robot
				}
				m := next(&g, i, &r)
				if err := g.Apply(m); err != nil {
					panic(err)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			moves += g.MoveCount()
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
			// One line per game, so that a long run can be read while it
			// goes on.
			t.Logf("game %d (board %d, robot player %d) %s after %d moves; so far %d won, %d tied, %d lost",
				i, *strengthB+i, side, result, g.MoveCount(), wins, ties, losses)
		}()
	}
	wg.Wait()
	budget := fmt.Sprint(*strengthT)
	if *strengthI > 0 {
		budget = fmt.Sprintf("%d playouts", *strengthI)
	}
	t.Logf("robot (%s/move) against %s: %d won, %d tied, %d lost of %d games (%.1f moves per game, %v)",
		budget, *strengthOpp, wins, ties, losses, *strengthN, float64(moves)/float64(*strengthN), time.Since(start).Round(time.Second))
}
