package lyngksearch

import (
	"context"
	"testing"
	"time"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/internal/cputime"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/engine/mcts"
)

// BenchmarkPlayout plays one playout (the robot's policy, see the package
// comment) from a start position to the end of the game.
func BenchmarkPlayout(b *testing.B) {
	var starts [16]lyngk.Game
	for i := range starts {
		starts[i] = lyngk.New(101+i, lyngk.Standard)
	}
	r := mcts.RNG(1)
	buf := make([]lyngk.Move, 0, config.MaxMoves)
	i := 0
	cpu := cputime.Now()
	for b.Loop() {
		g := starts[i%len(starts)]
		i++
		_, buf = (policy{}).Playout(&g, &r, buf)
	}
	cputime.Report(b, cpu)
}

// BenchmarkIterate runs whole search iterations (descent, expansion,
// playout, back-up) in one growing tree from board 101: the cost of one
// playout of a search, and the proof that the inner loop allocates nothing
// (allocs/op).
func BenchmarkIterate(b *testing.B) {
	g := lyngk.New(101, lyngk.Standard)
	t := Robot.Tree(&g, 1, 0)
	cpu := cputime.Now()
	for b.Loop() {
		if t.Full() {
			b.StopTimer()
			t = Robot.Tree(&g, 1, 0)
			b.StartTimer()
		}
		t.Iterate()
	}
	cputime.Report(b, cpu)
	b.ReportMetric(float64(time.Second)/(float64(cputime.Now()-cpu)/float64(b.N)), "playouts/cpu-s")
}

// BenchmarkSearch100k is a whole search of 100,000 playouts from board 101
// on one worker and on two.
func BenchmarkSearch100k(b *testing.B) {
	g := lyngk.New(101, lyngk.Standard)
	for _, workers := range []int{1, 2} {
		b.Run(map[int]string{1: "workers=1", 2: "workers=2"}[workers], func(b *testing.B) {
			for b.Loop() {
				if _, err := Robot.Search(context.Background(), &g, mcts.Options{Iterations: 100_000, Workers: workers, Seed: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEvaluate scores positions of a random game from board 101.
func BenchmarkEvaluate(b *testing.B) {
	var ps []lyngk.Game
	r := mcts.RNG(1)
	g := lyngk.New(101, lyngk.Standard)
	for g.Status() == games.Playing {
		ps = append(ps, g)
		ms := g.Legal(nil)
		if err := g.Apply(ms[r.Intn(len(ms))]); err != nil {
			b.Fatal(err)
		}
	}
	i := 0
	for b.Loop() {
		standardWeights.evaluate(&ps[i%len(ps)])
		i++
	}
}

// BenchmarkRootMoves ranks the moves of start position 101 by the
// evaluation (the robot's cost per move before its search).
func BenchmarkRootMoves(b *testing.B) {
	g := lyngk.New(101, lyngk.Standard)
	for b.Loop() {
		Robot.rootMoves(&g, Robot.Width)
	}
}
