package outside

import (
	"errors"
	"testing"

	"lyngk.example/lyngk/engine/yinsh"
)

// TestCoords: every one of the 85 points has a coordinate and comes back
// from it; the coordinates are the 91 of rings 0..5 less the edge's six
// corners; the anchors of the package doc hold; and positions next to each
// other on a ring are neighbours on the board, so the mapping keeps the
// lines.
func TestCoords(t *testing.T) {
	seen := map[Coord]bool{}
	for p := yinsh.Point(0); p < yinsh.NumPoints; p++ {
		c := CoordOf(p)
		if c.Hex < 0 || c.Hex > 5 || c.Pos < 0 || c.Pos >= max(6*c.Hex, 1) || (c.Hex == 5 && c.Pos%5 == 0) {
			t.Errorf("%v: coordinate %v out of range", p, c)
		}
		if seen[c] {
			t.Errorf("%v: coordinate %v twice", p, c)
		}
		seen[c] = true
		if q, ok := PointOf(c); !ok || q != p {
			t.Errorf("%v -> %v -> %v, %v", p, c, q, ok)
		}
	}
	for h := 0; h <= 5; h++ {
		for pos := range max(6*h, 1) {
			_, ok := PointOf(Coord{h, pos})
			if corner := h == 5 && pos%5 == 0; ok == corner {
				t.Errorf("%d %d: a point %v", h, pos, ok)
			}
		}
	}
	for _, bad := range []Coord{{-1, 0}, {0, 1}, {1, 6}, {6, 1}, {2, -1}} {
		if _, ok := PointOf(bad); ok {
			t.Errorf("%v: a point", bad)
		}
	}
	for name, c := range map[string]Coord{"f6": {0, 0}, "f7": {1, 0}, "g7": {1, 1}, "g6": {1, 2}, "f5": {1, 3}, "e5": {1, 4},
		"e6": {1, 5}, "f11": {5, 0}, "g11": {5, 1}, "j8": {4, 6}, "a2": {5, 21}, "a5": {5, 24}, "k10": {5, 6}, "b1": {5, 19}} {
		p, _ := yinsh.ParsePoint(name)
		if name == "f11" {
			if _, ok := yinsh.ParsePoint(name); ok {
				t.Errorf("f11 is a point of YINSH")
			}
			if _, ok := PointOf(c); ok {
				t.Errorf("%v, a corner, is a point", c)
			}
			continue
		}
		if got := CoordOf(p); got != c {
			t.Errorf("%s: %v, want %v", name, got, c)
		}
	}
	for h := 1; h <= 5; h++ {
		for pos := range 6 * h {
			p, ok1 := PointOf(Coord{h, pos})
			q, ok2 := PointOf(Coord{h, (pos + 1) % (6 * h)})
			if !ok1 || !ok2 {
				continue
			}
			dc, dn := q.Column()-p.Column(), q.Number()-p.Number()
			if !neighbours(dc, dn) {
				t.Errorf("%d %d (%v) and %d %d (%v): not neighbours", h, pos, p, h, (pos+1)%(6*h), q)
			}
		}
	}
}

// neighbours reports whether a step is one of the six of the board.
func neighbours(dc, dn int) bool {
	for _, s := range steps {
		if s == [2]int{dc, dn} {
			return true
		}
	}
	return false
}

// TestTranslate: each kind of turn both ways: a placement, a ring move,
// removals owed before the move and the mover's after it, removals alone;
// the program's row ends in either order come out in GIPF order.
func TestTranslate(t *testing.T) {
	tests := []struct{ ours, theirs string }{
		{"f6", "P 0 0"},
		{"f7", "P 1 0"},
		{"a2", "P 5 21"},
		{"f6-f9", "S 0 0 M 3 0"},
		{"b2-b6", "S 4 16 M 4 20"},
		{"xb2-b6;xa4;h7-g7;xc3-c7;xe5", "RS 4 16 RE 4 20 X 5 23 S 2 3 M 1 1 RS 3 12 RE 4 21 X 1 4"},
		{"xb2-b6;xa4", "RS 4 16 RE 4 20 X 5 23"},
		{"xb2-b6;xa4;xc3-c7;xe5", "RS 4 16 RE 4 20 X 5 23 RS 3 12 RE 4 21 X 1 4"},
		{"e3;xb2-b6;xa4", "P 3 10 RS 4 16 RE 4 20 X 5 23"},
	}
	for _, tt := range tests {
		got, err := ToProgram(tt.ours)
		if err != nil || got != tt.theirs {
			t.Errorf("ToProgram(%q) = %q, %v; want %q", tt.ours, got, err, tt.theirs)
		}
		back, err := FromProgram(" " + tt.theirs + " ") // the programs often write a leading space
		if err != nil || back != tt.ours {
			t.Errorf("FromProgram(%q) = %q, %v; want %q", tt.theirs, back, err, tt.ours)
		}
	}
	// A row named from its far end.
	if got, err := FromProgram("RS 4 20 RE 4 16 X 5 23 S 2 3 M 1 1"); err != nil || got != "xb2-b6;xa4;h7-g7" {
		t.Errorf("reversed row: %q, %v", got, err)
	}
}

// TestTranslateBad: what the protocol cannot say, and lines that are no
// turn, are ErrProtocol, never a turn.
func TestTranslateBad(t *testing.T) {
	for _, ours := range []string{"--", "xa4;e3", "z9", ""} {
		if got, err := ToProgram(ours); !errors.Is(err, ErrProtocol) {
			t.Errorf("ToProgram(%q) = %q, %v", ours, got, err)
		}
	}
	for _, line := range []string{
		"", "   ", "P 0", "P 0 0 0", "P 5 0", "P 0 1", "P 6 1", "P -1 0", "P a b", "Q 1 1", "p 1 1",
		"S 1 0", "M 1 0", "S 1 0 P 1 1", "S 1 0 S 1 1 M 2 0", "P 0 0 P 1 0", "P 0 0 S 1 0 M 2 0",
		"RS 1 0", "RE 1 0 X 1 1", "RS 1 0 X 1 1", "RS 1 0 RE 2 0", "RS 1 0 RE 2 0 P 1 1", "X 1 1",
		"RS 1 0 RS 1 1 RE 2 0 X 3 0", "P 99999999999999999999 0",
	} {
		if got, err := FromProgram(line); !errors.Is(err, ErrProtocol) {
			t.Errorf("FromProgram(%q) = %q, %v", line, got, err)
		}
	}
}
