package web_test

import (
	"net/http/httptest"
	"testing"
)

// BenchmarkPages serves the pages a visitor asks most, on the store of
// the tests (three games, one of 29 moves): the figures are in deploy/BENCHMARKS.md.
func BenchmarkPages(b *testing.B) {
	s := newSite(b, true)
	s.games()
	for _, target := range []string{"/", "/game/102", "/game/102?after=10", "/game/102/board.svg", "/game/102/board.png", "/game/102.json"} {
		b.Run(target, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				s.h.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
				if rec.Code != 200 {
					b.Fatalf("%s: %d", target, rec.Code)
				}
			}
		})
	}
}
