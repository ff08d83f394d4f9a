package lyngk

import (
	"flag"
	"math/bits"
	"path/filepath"
	"slices"
	"testing"

	"lyngk.example/lyngk/engine/golden"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// setup describes a position for a test: stacks by point, top piece first
// as on the board ("RB" is Red on Blue), and the claims of both players as
// letters in claim order.
type setup struct {
	variant Variant
	stacks  map[string]string
	claims  [2]string
	removed [2]uint8
	turn    int // default 1
}

// build returns the position s describes, player s.turn to move, without
// settling passes.
func build(t testing.TB, s setup) Game {
	t.Helper()
	g := Game{variant: s.variant, turn: 1}
	if s.turn != 0 {
		g.turn = uint8(s.turn)
	}
	for name, pieces := range s.stacks {
		p, err := ParsePoint(name)
		if err != nil {
			t.Fatal(err)
		}
		var pcs uint32
		for i := range len(pieces) {
			c := colorFromLetter(pieces[i])
			if c == NoColor {
				t.Fatalf("bad piece %q in %s", pieces[i], name)
			}
			pcs = pcs<<3 | uint32(c)
		}
		g.put(p, pcs, uint8(len(pieces)))
	}
	for pl, letters := range s.claims {
		for i := range len(letters) {
			c := colorFromLetter(letters[i])
			g.owner[c] = uint8(pl + 1)
			g.claims[pl][g.nclaims[pl]] = c
			g.nclaims[pl]++
		}
	}
	g.removed = s.removed
	return g
}

func mustMove(t testing.TB, s string) Move {
	t.Helper()
	m, _, err := ParseMove(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustPoint(t testing.TB, s string) Point {
	t.Helper()
	p, err := ParsePoint(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// legalStrings returns the legal moves of g, normalised and sorted.
func legalStrings(g *Game) []string {
	var out []string
	for _, m := range g.Legal(nil) {
		out = append(out, m.String())
	}
	slices.Sort(out)
	return out
}

func moveStrings(ms []Move) []string {
	out := []string{}
	for _, m := range ms {
		out = append(out, m.String())
	}
	return out
}

// checkGolden compares got with testdata/name, or rewrites it under -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got, *update)
}

// checkInvariants verifies the stack rules and that the bitboards agree with
// the arrays.
func checkInvariants(t testing.TB, g *Game) {
	t.Helper()
	var count [Joker + 1]int
	var occ uint64
	var tops [Joker + 1]uint64
	var has [Black + 1]uint64
	var hgt [7]uint64
	for p := range Point(NumPoints) {
		h := g.h[p]
		if h == 0 {
			if g.pcs[p] != 0 || g.top[p] != 0 || g.mask[p] != 0 {
				t.Fatalf("%s: empty point with data", p)
			}
			continue
		}
		if h > g.maxHeight() {
			t.Fatalf("%s: stack of %d", p, h)
		}
		b := uint64(1) << p
		occ |= b
		hgt[h] |= b
		var mask uint8
		for i := range h {
			c := Color(g.pcs[p] >> (3 * i) & 7)
			if c < Ivory || c > Joker {
				t.Fatalf("%s: bad piece %d", p, c)
			}
			count[c]++
			if c != Joker {
				if mask&(1<<c) != 0 {
					t.Fatalf("%s: two %s in %s", p, c.Name(), g.Stack(p))
				}
				mask |= 1 << c
				has[c] |= b
			}
			if i == h-1 {
				tops[c] |= b
				if g.top[p] != c {
					t.Fatalf("%s: top %v, want %v", p, g.top[p], c)
				}
			}
		}
		if g.pcs[p]>>(3*h) != 0 {
			t.Fatalf("%s: pieces above the top", p)
		}
		if mask != g.mask[p] {
			t.Fatalf("%s: mask %b, want %b", p, g.mask[p], mask)
		}
	}
	if occ != g.occ || tops != g.tops || has != g.has || hgt != g.hgt {
		t.Fatal("bitboards out of step with the stacks")
	}
	for p := range Point(NumPoints) {
		want := uint64(0)
		if occ&(1<<p) != 0 {
			want = hits(p, occ)
		}
		if g.nb[p] != want {
			t.Fatalf("%s: neighbours %v, want %v", p, pointList(g.nb[p]), pointList(want))
		}
	}
	total := 0
	for c := Ivory; c <= Joker; c++ {
		limit := 8
		if c == Joker {
			limit = 3
		}
		if count[c] > limit {
			t.Fatalf("%d %s pieces", count[c], c.Name())
		}
		total += count[c]
	}
	if total+5*int(g.removed[0]+g.removed[1]) != NumPoints {
		t.Fatalf("%d pieces on the board and %v stacks removed", total, g.removed)
	}
}

// hits computes from scratch what Game.nb keeps up to date: the first
// occupied point of occ in each of the six directions from p. Upward rays
// lead to higher point numbers, so their first point is the lowest bit, and
// the highest bit for downward rays.
func hits(p Point, occ uint64) uint64 {
	r := &geo.ray[p]
	u0, u1, u2 := r[0]&occ, r[1]&occ, r[2]&occ
	return u0&-u0 | u1&-u1 | u2&-u2 |
		(1<<63)>>bits.LeadingZeros64(r[3]&occ) |
		(1<<63)>>bits.LeadingZeros64(r[4]&occ) |
		(1<<63)>>bits.LeadingZeros64(r[5]&occ)
}
