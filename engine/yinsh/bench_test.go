package yinsh

import (
	"testing"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/internal/cputime"
)

// midgame returns the position after the first n turns of the random game
// of seed 1: a movement position with markers on the board.
func midgame(t testing.TB, n int) Game {
	g := New(Normal)
	r := rng(1)
	var buf []Turn
	for range n {
		buf = g.Legal(buf[:0])
		if err := g.Apply(buf[r.intn(len(buf))]); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// TestLegalAllocs: Legal allocates nothing when the buffer has room, and
// the benchmark position is what deploy/BENCHMARKS.md says (30 turns in, 20 markers, 55 legal turns).
func TestLegalAllocs(t *testing.T) {
	g := midgame(t, 30)
	buf := make([]Turn, 0, 1024)
	if a := testing.AllocsPerRun(100, func() { buf = g.Legal(buf[:0]) }); a != 0 {
		t.Errorf("Legal allocates %.1f times", a)
	}
	if g.Placing() || g.Pool() != PoolMarkers-20 || len(buf) != 55 {
		t.Errorf("benchmark position: pool %d, %d legal turns", g.Pool(), len(buf))
	}
	tn := buf[0]
	if a := testing.AllocsPerRun(100, func() { h := g; _ = h.Apply(tn) }); a != 0 {
		t.Errorf("Apply allocates %.1f times", a)
	}
}

// BenchmarkLegal lists the legal turns of a movement position (the random
// game of seed 1 after 30 turns).
func BenchmarkLegal(b *testing.B) {
	g := midgame(b, 30)
	buf := make([]Turn, 0, 1024)
	cpu := cputime.Now()
	for b.Loop() {
		buf = g.Legal(buf[:0])
	}
	cputime.Report(b, cpu)
	b.ReportMetric(float64(len(buf)), "turns")
}

// BenchmarkApply applies one turn to that position, the copy of the Game
// and the check of the turn included.
func BenchmarkApply(b *testing.B) {
	g := midgame(b, 30)
	tn := g.Legal(nil)[0]
	cpu := cputime.Now()
	for b.Loop() {
		h := g
		if err := h.Apply(tn); err != nil {
			b.Fatal(err)
		}
	}
	cputime.Report(b, cpu)
}

// BenchmarkRandomGame plays whole games from the empty board, each turn
// uniform among the legal ones.
func BenchmarkRandomGame(b *testing.B) {
	buf := make([]Turn, 0, 1024)
	r := rng(1)
	turns := 0
	cpu := cputime.Now()
	for b.Loop() {
		g := New(Normal)
		for g.status == games.Playing {
			buf = g.Legal(buf[:0])
			if err := g.Apply(buf[r.intn(len(buf))]); err != nil {
				b.Fatal(err)
			}
		}
		turns += g.MoveCount()
	}
	cputime.Report(b, cpu)
	b.ReportMetric(float64(turns)/float64(b.N), "turns/game")
}
