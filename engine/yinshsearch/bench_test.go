package yinshsearch

import (
	"context"
	"testing"
	"time"

	"lyngk.example/lyngk/engine/internal/cputime"
	"lyngk.example/lyngk/engine/mcts"
)

// BenchmarkPlayout plays one playout (random turns) from a position 30
// turns into the random game of seed 1.
func BenchmarkPlayout(b *testing.B) {
	start := position(b, 30)
	r := mcts.RNG(1)
	cpu := cputime.Now()
	for b.Loop() {
		g := start
		playOut(&g, &r)
	}
	cputime.Report(b, cpu)
}

// BenchmarkIterate runs whole search iterations in one growing tree from
// that position: the cost of one playout of a search.
func BenchmarkIterate(b *testing.B) {
	g := position(b, 30)
	t := baseline.Tree(&g, 1, 0)
	cpu := cputime.Now()
	for b.Loop() {
		if t.Full() {
			b.StopTimer()
			t = baseline.Tree(&g, 1, 0)
			b.StartTimer()
		}
		t.Iterate()
	}
	cputime.Report(b, cpu)
	b.ReportMetric(float64(time.Second)/(float64(cputime.Now()-cpu)/float64(b.N)), "playouts/cpu-s")
}

// BenchmarkEvaluate scores the position 30 turns into the random game of
// seed 1.
func BenchmarkEvaluate(b *testing.B) {
	g := position(b, 30)
	for b.Loop() {
		v := viewOf(&g)
		score(&v)
	}
}

// BenchmarkSearch is one turn of the robot from that position with a
// budget of 100 playouts (NodesPerPlayout nodes each): its CPU is
// comparable with 100 playouts of BenchmarkIterate.
func BenchmarkSearch(b *testing.B) {
	g := position(b, 30)
	cpu := cputime.Now()
	nodes := 0
	for b.Loop() {
		res, err := Robot.Search(context.Background(), &g, mcts.Options{Iterations: 100, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		nodes += res.Playouts * NodesPerPlayout
	}
	cputime.Report(b, cpu)
	b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
}
