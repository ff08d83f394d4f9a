package yinshsearch

import (
	"context"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/mcts"
	"lyngk.example/lyngk/engine/robotmatch"
	"lyngk.example/lyngk/engine/yinsh"
)

// TestMatchBaseline is the match of the robot against the previous one
// (Baseline) at equal time per turn: a measuring program, not a unit test,
// run only when YINSH_MATCH gives the number of games, for example
//
//	YINSH_MATCH=100 YINSH_THINK=200ms flock /tmp/bench.lock go test ./engine/yinshsearch -run MatchBaseline -v -timeout 0
//
// Both robots think YINSH_THINK a turn (default 100ms) on one core, in
// turn in one process, so that the load of the machine weighs on both
// alike; YINSH_PARALLEL games run at once (default 1). The robot is white
// in even games and black in odd ones; game i seeds both robots with i,
// the games numbered from YINSH_FIRST (default 0), so that a long match
// can be played in parts.
// Every turn is played through the rules (Apply), so an illegal turn fails
// the match. The score counts a tie half; the interval is Wilson's at 95 %.
func TestMatchBaseline(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("YINSH_MATCH"))
	if n <= 0 {
		t.Skip("a measuring program: set YINSH_MATCH to the number of games")
	}
	match(t, n, "baseline", Robot.Search, baseline.Search)
}

// variants are sparring opponents for TestSpar: the robot with a part of
// its search or evaluation taken out or changed.
var variants = map[string]tuning{
	"plain":        {w: standard},
	"no-lmr":       {w: standard, quiesce: true},
	"no-quiesce":   {w: standard, lmr: true},
	"no-mobility":  {w: func() weights { w := standard; w.mobility = 0; return w }(), lmr: true, quiesce: true},
	"ready-low":    {w: func() weights { w := standard; w.readyMover = 200; return w }(), lmr: true, quiesce: true},
	"markers-high": {w: func() weights { w := standard; w.marker = 20; return w }(), lmr: true, quiesce: true},
}

// TestSpar is the match of the robot against a variant of itself
// (YINSH_VARIANT, one of variants; default plain), YINSH_SPAR games, the
// other settings as TestMatchBaseline's.
func TestSpar(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("YINSH_SPAR"))
	if n <= 0 {
		t.Skip("a measuring program: set YINSH_SPAR to the number of games")
	}
	name := os.Getenv("YINSH_VARIANT")
	if name == "" {
		name = "plain"
	}
	tu, ok := variants[name]
	if !ok {
		t.Fatalf("no variant %q", name)
	}
	match(t, n, name, Robot.Search, func(ctx context.Context, g *yinsh.Game, o mcts.Options) (mcts.Result[yinsh.Turn], error) {
		return alphaBeta(ctx, g, o, &tu)
	})
}

// match plays n games of robot against opp, thinking YINSH_THINK a turn
// (default 100ms) each, and logs the robot's score.
func match(t *testing.T, n int, oppName string, robot, opp searchFunc) {
	think := 100 * time.Millisecond
	if s := os.Getenv("YINSH_THINK"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatal(err)
		}
		think = d
	}
	parallel := 1
	if s := os.Getenv("YINSH_PARALLEL"); s != "" {
		parallel, _ = strconv.Atoi(s)
	}
	first, _ := strconv.Atoi(os.Getenv("YINSH_FIRST"))
	var mu sync.Mutex
	var wins, ties, losses int
	var thinkNew, thinkOld time.Duration
	var turnsNew, turnsOld int
	sem := make(chan struct{}, max(parallel, 1))
	var wg sync.WaitGroup
	start := time.Now()
	for i := first; i < first+n; i++ {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			side := 1 + i%2
			g := yinsh.New(yinsh.Normal)
			var tNew, tOld time.Duration
			var nNew, nOld int
			for g.Status() == games.Playing {
				o := mcts.Options{Think: think, Workers: 1, Seed: uint64(i)}
				t0 := time.Now()
				var res mcts.Result[yinsh.Turn]
				var err error
				if g.Turn() == side {
					res, err = robot(context.Background(), &g, o)
					tNew += time.Since(t0)
					nNew++
				} else {
					res, err = opp(context.Background(), &g, o)
					tOld += time.Since(t0)
					nOld++
				}
				if err != nil {
					t.Error(err)
					return
				}
				if err := g.Apply(res.Move); err != nil {
					t.Errorf("game %d: %s is illegal: %v", i, res.Move, err)
					return
				}
			}
			mu.Lock()
			defer mu.Unlock()
			thinkNew, thinkOld, turnsNew, turnsOld = thinkNew+tNew, thinkOld+tOld, turnsNew+nNew, turnsOld+nOld
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
	res := robotmatch.Result{Won: wins, Tied: ties, Lost: losses}
	lo, hi := res.Interval()
	t.Logf("robot against %s at %v a turn: %d won, %d tied, %d lost of %d games: %.1f %% (95 %% interval %.1f–%.1f %%); mean wall time a turn %v (robot) and %v (%s); %v in all",
		oppName, think, wins, ties, losses, res.Games(), 100*res.Score(), 100*lo, 100*hi,
		thinkNew/time.Duration(max(turnsNew, 1)), thinkOld/time.Duration(max(turnsOld, 1)), oppName, time.Since(start).Round(time.Second))
}
