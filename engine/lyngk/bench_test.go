package lyngk

import (
	"testing"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/internal/cputime"
)

// BenchmarkLegalStart lists the plain moves of board 101 at the start (164).
func BenchmarkLegalStart(b *testing.B) {
	g := New(101, Standard)
	buf := make([]Move, 0, 2048)
	cpu := cputime.Now()
	for b.Loop() {
		buf = g.LegalPlain(buf[:0])
	}
	cputime.Report(b, cpu)
	b.ReportMetric(float64(len(buf)), "moves")
}

// BenchmarkLegalStartClaims lists every move of board 101 at the start,
// claim variants included (1055).
func BenchmarkLegalStartClaims(b *testing.B) {
	g := New(101, Standard)
	buf := make([]Move, 0, 2048)
	cpu := cputime.Now()
	for b.Loop() {
		buf = g.Legal(buf[:0])
	}
	cputime.Report(b, cpu)
	b.ReportMetric(float64(len(buf)), "moves")
}

// BenchmarkApply applies one move with its claim to a start position,
// including the check of the move and the pass/end check of the opponent.
// The copy of the 1.1 KB Game is part of the figure.
func BenchmarkApply(b *testing.B) {
	start := New(101, Standard)
	m, _, _ := ParseMove("G,c1-d1")
	cpu := cputime.Now()
	for b.Loop() {
		g := start
		if err := g.Apply(m); err != nil {
			b.Fatal(err)
		}
	}
	cputime.Report(b, cpu)
}

// BenchmarkRandomGame plays whole games from start positions to the result,
// each move chosen uniformly among all legal moves (claims included) with a
// fixed generator.
func BenchmarkRandomGame(b *testing.B) { benchRandomGames(b, Standard) }

// BenchmarkRandomGameStack6 is BenchmarkRandomGame for the stack6 variant.
func BenchmarkRandomGameStack6(b *testing.B) { benchRandomGames(b, Stack6) }

// benchRandomGames is BenchmarkRandomGame in variant v.
func benchRandomGames(b *testing.B, v Variant) {
	var starts [16]Game
	for i := range starts {
		starts[i] = New(101+i, v)
	}
	buf := make([]Move, 0, 2048)
	r := rng(1)
	moves, i := 0, 0
	cpu := cputime.Now()
	for b.Loop() {
		g := starts[i%len(starts)]
		i++
		for g.status == games.Playing {
			buf = g.Legal(buf[:0])
			if err := g.Apply(buf[r.intn(len(buf))]); err != nil {
				b.Fatal(err)
			}
		}
		moves += g.MoveCount()
	}
	cputime.Report(b, cpu)
	b.ReportMetric(float64(moves)/float64(b.N), "moves/game")
}

// BenchmarkNew sets up a start position (glibc random and shuffle).
func BenchmarkNew(b *testing.B) {
	cpu := cputime.Now()
	for b.Loop() {
		_ = New(101, Standard)
	}
	cputime.Report(b, cpu)
}
