package yinsh

import (
	"os"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine/games"
)

var players = [2]string{"alice", "bob"}

// TestBoardEmpty: the first 24 lines of the empty board are the block of
// yinsh-board.md byte for byte (copied to testdata/empty-board.txt).
func TestBoardEmpty(t *testing.T) {
	want, err := os.ReadFile("testdata/empty-board.txt")
	if err != nil {
		t.Fatal(err)
	}
	g := New(Normal)
	got := g.Board(players)
	lines := strings.SplitAfter(got, "\n")
	if block := strings.Join(lines[:24], ""); block != string(want) {
		t.Errorf("empty board:\n%s\nwant\n%s", block, want)
	}
	checkGolden(t, "board-start.golden", got)
}

// TestBoardPoints puts a piece on every point in turn and checks where it
// lands: point (i, n) at column 4+3i of line 19+i-2n, a ring's parentheses
// either side, and nothing else changed.
func TestBoardPoints(t *testing.T) {
	start := New(Normal)
	empty := strings.Split(start.Board(players), "\n")
	for p := range Point(NumPoints) {
		for _, kind := range []string{"o", "x", "(o)", "(x)"} {
			g := New(Normal)
			c := 0
			if strings.Contains(kind, "x") {
				c = 1
			}
			if kind[0] == '(' {
				g.b.rings[c].add(p)
			} else {
				g.b.markers[c].add(p)
			}
			lines := strings.Split(g.Board(players), "\n")
			y, x := 18+p.Column()-2*p.Number(), 4+3*p.Column()
			if kind[0] == '(' {
				x--
			}
			line := lines[y]
			if len(line) < x+len(kind) || line[x:x+len(kind)] != kind {
				t.Fatalf("%s as %s: line %d is %q", p, kind, y+1, line)
			}
			for i := range 24 {
				if i != y && lines[i] != empty[i] {
					t.Fatalf("%s as %s changes line %d", p, kind, i+1)
				}
			}
			if strings.TrimRight(line, " ") != line {
				t.Fatalf("trailing space on line %d", y+1)
			}
		}
	}
}

func TestBoardGoldens(t *testing.T) {
	g := New(Normal)
	mustApply(t, &g, examplePlacements...)
	mustApply(t, &g, "h7-g7")
	checkGolden(t, "board-example.golden", g.Board(players))

	g = build(t, bothRows([2]uint8{}, Normal))
	mustApply(t, &g, "e3-e6;xa4-e4;xk9")
	checkGolden(t, "board-owed.golden", g.Board(players))

	g = build(t, bothRows([2]uint8{}, Blitz))
	mustApply(t, &g, "e3-e6;xa4-e4;xk9")
	checkGolden(t, "board-blitz-won.golden", g.Board([2]string{"carol", "robot"}))
}

// TestBits: the bit sets of Bits hold exactly the rings and markers Piece
// reports, at every position of ten random games.
func TestBits(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		g := New(Normal)
		r := rng(seed)
		for g.Status() == games.Playing {
			rings, markers := g.Bits()
			for p := range Point(NumPoints) {
				pl, ring := g.Piece(p)
				for c := range 2 {
					bit := uint64(1) << (p % 64)
					hasRing, hasMarker := rings[c][p/64]&bit != 0, markers[c][p/64]&bit != 0
					if hasRing != (pl == c+1 && ring) || hasMarker != (pl == c+1 && !ring) {
						t.Fatalf("seed %d, turn %d, %s: Piece %d %v, Bits ring %v marker %v for colour %d", seed, g.MoveCount(), p, pl, ring, hasRing, hasMarker, c)
					}
				}
			}
			if err := g.Apply(g.RandomTurn(r.intn)); err != nil {
				t.Fatal(err)
			}
		}
	}
}
