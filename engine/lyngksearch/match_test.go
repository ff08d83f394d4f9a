package lyngksearch

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/engine/mcts"
	"lyngk.example/lyngk/engine/robotmatch"
)

// TestMatch plays the robot (Robot) against the previous one (Baseline)
// through the game contract, at equal think time per move, colours
// alternating, each game from its own start position; every move is
// checked against the rules' legal moves before it is played. It is a
// measuring program, not a unit test: it runs only when LYNGK_MATCH gives
// the number of games, for example
//
//	flock /tmp/bench.lock env LYNGK_MATCH=200 LYNGK_MATCH_THINK=100ms LYNGK_MATCH_PARALLEL=2 \
//	    go test ./engine/lyngksearch -run TestMatch -v -timeout 0
//
// LYNGK_MATCH_THINK is the think time per move of both robots (default
// 100ms), LYNGK_MATCH_THINK_OTHER another one for the second side (the
// previous robot, or the robot with LYNGK_MATCH_VS_ROBOT: robot-max's 10 s
// against robot's 2 s is LYNGK_MATCH_THINK=10s LYNGK_MATCH_THINK_OTHER=2s
// LYNGK_MATCH_VS_ROBOT=1), LYNGK_MATCH_PLAYOUTS a playout budget instead (the same for
// both, which is not equal time: a cut playout is cheaper);
// LYNGK_MATCH_PARALLEL the games played at once (each robot thinks on one
// worker); LYNGK_MATCH_FIRST the board of the first game (default 1);
// LYNGK_MATCH_POLICY "depth,quiet,sharpness,width" tries other cut-offs of the
// guided playouts and the width of the root at every think time,
// LYNGK_MATCH_FPU another value of an unvisited child
// (mcts.Config.FPU), LYNGK_MATCH_EXPLORE
// another exploration constant (Explore) and LYNGK_MATCH_BONUS another
// class bonus (ClassBonus); LYNGK_MATCH_PLAIN, when
// set, plays the previous robot with the robot's tuning (Config) instead
// of the robot, LYNGK_MATCH_VS_TUNED that one instead of the previous
// robot, LYNGK_MATCH_VS_ROBOT the robot itself.
func TestMatch(t *testing.T) {
	n := env(t, "LYNGK_MATCH", 0, strconv.Atoi)
	if n <= 0 {
		t.Skip("a measuring program: set LYNGK_MATCH to the number of games")
	}
	think := env(t, "LYNGK_MATCH_THINK", 100*time.Millisecond, time.ParseDuration)
	thinks := [2]time.Duration{think, env(t, "LYNGK_MATCH_THINK_OTHER", think, time.ParseDuration)}
	playouts := env(t, "LYNGK_MATCH_PLAYOUTS", 0, strconv.Atoi)
	parallel := env(t, "LYNGK_MATCH_PARALLEL", 1, strconv.Atoi)
	first := env(t, "LYNGK_MATCH_FIRST", 1, strconv.Atoi)
	robot := Robot
	if s := os.Getenv("LYNGK_MATCH_POLICY"); s != "" {
		var p guided
		if _, err := fmt.Sscanf(s, "%d,%d,%g,%d", &p.Depth, &p.Quiet, &p.Sharpness, &robot.Width); err != nil {
			t.Fatalf("LYNGK_MATCH_POLICY %q: want depth,quiet,sharpness,width: %v", s, err)
		}
		p.W = &standardWeights
		robot.Policy, robot.LongWidth = p, robot.Width
	}
	robot.Config.FPU = env(t, "LYNGK_MATCH_FPU", robot.Config.FPU, parseFloat)
	robot.Config.Explore = env(t, "LYNGK_MATCH_EXPLORE", robot.Config.Explore, parseFloat)
	robot.Config.ClassBonus = env(t, "LYNGK_MATCH_BONUS", robot.Config.ClassBonus, parseFloat)
	sides := [2]string{"robot", "the previous robot"}
	players := [2]games.Robot{robot, Baseline()}
	if os.Getenv("LYNGK_MATCH_VS_ROBOT") != "" {
		players[1], sides[1] = Robot, "the robot"
	}
	// The previous robot with the robot's tuning, to tell what the
	// evaluation adds to the tuning.
	tuned := mcts.Robot[lyngk.Game, lyngk.Move, policy]{Config: robot.Config, Draw: acceptDraw}
	if os.Getenv("LYNGK_MATCH_PLAIN") != "" {
		players[0], sides[0] = tuned, "previous robot with the robot's tuning"
	}
	if os.Getenv("LYNGK_MATCH_VS_TUNED") != "" {
		players[1], sides[1] = tuned, "the previous robot with the robot's tuning"
	}
	var mu sync.Mutex
	var moves, turns, thought [2]float64
	var wins, ties, played int
	sem := make(chan struct{}, max(parallel, 1))
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			side := 1 + i%2 // the robot's side
			p := lyngk.Position(lyngk.New(first+i, lyngk.Standard))
			var took [2]time.Duration
			var count, pl [2]int
			for p.Outcome() == games.Playing {
				who := 0
				if p.Turn() != side {
					who = 1
				}
				began := time.Now()
				th, err := players[who].Think(context.Background(), p, games.Think{Playouts: playouts, Time: thinks[who], Workers: 1, Seed: uint64(1000*i + p.Turn())})
				took[who] += time.Since(began)
				count[who]++
				pl[who] += th.Playouts
				if err != nil {
					t.Error(err)
					return
				}
				if !slices.Contains(p.Legal(), th.Move.String()) {
					t.Errorf("game %d: %v is not among the legal moves", i, th.Move)
					return
				}
				if err := p.Play(th.Move); err != nil {
					t.Errorf("game %d: %v", i, err)
					return
				}
			}
			mu.Lock()
			defer mu.Unlock()
			result := "lost"
			switch p.Winner() {
			case side:
				wins++
				result = "won"
			case 0:
				ties++
				result = "tied"
			}
			for who := range 2 {
				turns[who] += float64(count[who])
				moves[who] += took[who].Seconds()
				thought[who] += float64(pl[who])
			}
			played++
			g, _ := lyngk.Of(p)
			t.Logf("game %d (board %d, robot player %d) %s %d-%d after %d moves; so far %d won, %d tied of %d",
				i, first+i, side, result, g.Removed(side), g.Removed(3-side), len(p.Moves()), wins, ties, played)
		})
	}
	wg.Wait()
	res := robotmatch.Result{Won: wins, Tied: ties, Lost: n - wins - ties}
	lo, hi := res.Interval()
	budget := think.String()
	if playouts > 0 {
		budget = strconv.Itoa(playouts) + " playouts"
	}
	t.Logf("%s against %s, %s a move: %d games, %d won, %d tied, %d lost: score %.1f%% (95%% interval %.1f%%-%.1f%%); mean time a move %.0f ms and %.0f ms, playouts a move %.0f and %.0f; %v",
		sides[0], sides[1], budget, n, wins, ties, res.Lost, 100*res.Score(), 100*lo, 100*hi,
		1000*moves[0]/max(turns[0], 1), 1000*moves[1]/max(turns[1], 1), thought[0]/max(turns[0], 1), thought[1]/max(turns[1], 1), time.Since(start).Round(time.Second))
}

// env reads a setting from the environment with parse, def when unset.
func env[T any](t *testing.T, name string, def T, parse func(string) (T, error)) T {
	t.Helper()
	s := strings.TrimSpace(os.Getenv(name))
	if s == "" {
		return def
	}
	v, err := parse(s)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, s, err)
	}
	return v
}

// parseFloat is strconv.ParseFloat for env.
func parseFloat(s string) (float64, error) { return strconv.ParseFloat(s, 64) }
