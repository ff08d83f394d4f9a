package yinsh

import (
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine/golden"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func pt(t testing.TB, s string) Point {
	t.Helper()
	p, ok := ParsePoint(s)
	if !ok {
		t.Fatalf("no point %q", s)
	}
	return p
}

// setup describes a movement-phase position: white and black rings and
// markers as space-separated points, rings removed, the player to move.
type setup struct {
	variant Variant
	wr, br  string // rings
	wm, bm  string // markers
	removed [2]uint8
	turn    int // default 1

}

func build(t testing.TB, s setup) Game {
	t.Helper()
	g := Game{variant: s.variant, turn: 1}
	if s.turn != 0 {
		g.turn = uint8(s.turn)
	}
	g.b.placed = placements
	for c, list := range [4]string{s.wr, s.br, s.wm, s.bm} {
		for _, name := range strings.Fields(list) {
			p := pt(t, name)
			if g.b.occupied().has(p) {
				t.Fatalf("%s twice", name)
			}
			if c < 2 {
				g.b.rings[c].add(p)
			} else {
				g.b.markers[c-2].add(p)
			}
		}
	}
	g.b.removed = s.removed
	return g
}

func mustTurn(t testing.TB, s string) Turn {
	t.Helper()
	tn, _, err := ParseTurn(s)
	if err != nil {
		t.Fatal(err)
	}
	return tn
}

func mustApply(t testing.TB, g *Game, turns ...string) {
	t.Helper()
	for _, s := range turns {
		if err := g.Apply(mustTurn(t, s)); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func legalStrings(g *Game) []string {
	var out []string
	for _, t := range g.Legal(nil) {
		out = append(out, t.String())
	}
	return out
}

// checkGolden compares got with testdata/name, or rewrites it under -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got, *update)
}

// rng is splitmix64 for reproducible random games.
type rng uint64

func (r *rng) intn(n int) int {
	*r += 0x9e3779b97f4a7c15
	z := uint64(*r)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return int((z ^ z>>31) % uint64(n))
}
