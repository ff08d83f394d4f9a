package lyngk

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine/games"
)

// TestGlibcRandom pins the generator to glibc: srandom(1) then random().
func TestGlibcRandom(t *testing.T) {
	want := []uint32{1804289383, 846930886, 1681692777, 1714636915, 1957747793, 424238335, 719885386, 1649760492, 596516649, 1189641421}
	r := newGlibcRandom(1)
	for i, w := range want {
		if got := r.next(); got != w {
			t.Fatalf("output %d = %d, want %d", i, got, w)
		}
	}
	// srandom(0) is srandom(1) in glibc.
	if r0 := newGlibcRandom(0); r0.next() != want[0] {
		t.Error("seed 0 is not seed 1")
	}
}

// TestStartPositions pins start positions against gamerz: boards 101 and 102
// (SPEC §2), 148 (reference-mails/new-game.txt) and 181, the sample setup
// of the gamerz help page.
func TestStartPositions(t *testing.T) {
	want := map[int][]string{
		101: {
			"           B       K       R            ",
			"               G       G                    ",
			"           I       J       I            ",
			"       B       R       B       R            ",
			"           R       R       K            ",
			"       R       B       I       I            ",
			"   G       B       K       I       B    ",
			"       G       I       K       K            ",
			"           J       B       B            ",
			"       I       J       G       G            ",
			"           G       R       I            ",
			"               K       K                    ",
			"           G       K       R            ",
		},
		102: {
			"           I       G       J            ",
			"               R       R                    ",
			"           K       K       I            ",
			"       K       R       I       J            ",
			"           B       R       R            ",
			"       R       B       B       G            ",
			"   I       I       B       J       I    ",
			"       I       K       B       I            ",
			"           R       B       K            ",
			"       B       K       G       B            ",
			"           G       K       G            ",
			"               K       R                    ",
			"           G       G       G            ",
		},
		148: {
			"           R       J       G            ",
			"               B       B                    ",
			"           G       I       G            ",
			"       R       I       G       K            ",
			"           K       G       I            ",
			"       B       K       K       K            ",
			"   R       K       B       R       B    ",
			"       I       G       K       J            ",
			"           I       B       R            ",
			"       R       B       J       G            ",
			"           I       B       R            ",
			"               I       G                    ",
			"           R       K       I            ",
		},
		181: {
			"           I       G       J            ",
			"               G       B                    ",
			"           R       R       I            ",
			"       R       K       K       R            ",
			"           I       G       I            ",
			"       G       B       R       K            ",
			"   G       B       R       K       B    ",
			"       B       B       B       I            ",
			"           R       I       I            ",
			"       B       K       G       K            ",
			"           J       G       J            ",
			"               K       R                    ",
			"           K       G       I            ",
		},
	}
	for n, rows := range want {
		for _, v := range []Variant{Standard, Stack6} {
			g := New(n, v)
			lines := strings.Split(g.Board([2]string{"alice", "bob"}), "\n")
			if v == Stack6 {
				if lines[0] != "Stack6 Mode" {
					t.Errorf("board %d stack6: first line %q", n, lines[0])
				}
				lines = lines[1:]
			}
			if got := lines[7:20]; !slices.Equal(got, rows) {
				t.Errorf("board %d %v rows:\n%s\nwant\n%s", n, v, strings.Join(got, "\n"), strings.Join(rows, "\n"))
			}
			if g.Turn() != 1 || g.Status() != games.Playing || g.MoveCount() != 0 || g.Variant() != v {
				t.Errorf("board %d: turn %d status %v moves %d variant %v", n, g.Turn(), g.Status(), g.MoveCount(), g.Variant())
			}
		}
	}
}

// TestStartLegalCounts pins the size of the legal move lists of board 101
// ("about 160" and "about 1,050", as the rules' analysis puts it).
func TestStartLegalCounts(t *testing.T) {
	g := New(101, Standard)
	if got := len(g.LegalPlain(nil)); got != 164 {
		t.Errorf("plain moves %d, want 164", got)
	}
	if got := len(g.Legal(nil)); got != 1055 {
		t.Errorf("moves with claims %d, want 1055", got)
	}
}

func TestGeometry(t *testing.T) {
	var names []string
	perColumn := map[byte]int{}
	for p := range Point(NumPoints) {
		s := p.String()
		names = append(names, s)
		perColumn[s[0]]++
		if q, err := ParsePoint(strings.ToUpper(s)); err != nil || q != p {
			t.Errorf("ParsePoint(%q) = %v, %v", strings.ToUpper(s), q, err)
		}
	}
	if got := strings.Join(names, " "); got != "c1 e1 g1 d1 f1 c2 e2 g2 b1 d2 f2 h1 c3 e3 g3 b2 d3 f3 h2 a1 c4 e4 g4 i1 b3 d4 f4 h3 c5 e5 g5 b4 d5 f5 h4 c6 e6 g6 d6 f6 c7 e7 g7" {
		t.Errorf("lattice order %s", got)
	}
	for x, n := range columnSize {
		if perColumn[byte('a'+x)] != int(n) {
			t.Errorf("column %c has %d points", 'a'+x, perColumn[byte('a'+x)])
		}
	}
	var start []string
	for _, p := range geo.start {
		start = append(start, p.String())
	}
	if got := strings.Join(start, " "); !strings.HasPrefix(got, "a1 b1 c1 d1 e1 f1 g1 h1 i1 b2 ") || !strings.HasSuffix(got, " c7 e7 g7") {
		t.Errorf("placement order %s", got)
	}
	for _, s := range []string{"", "a", "a0", "a2", "b5", "j1", "e8", "e10", "1a", "-"} {
		if _, err := ParsePoint(s); !errors.Is(err, ErrNotation) {
			t.Errorf("ParsePoint(%q) = %v, want ErrNotation", s, err)
		}
	}
}

// TestNeighbours pins a few rays and the lines that are not lines.
func TestNeighbours(t *testing.T) {
	tests := []struct {
		from string
		want string // the points in each direction, up, up-right, up-left, down, down-left, down-right
	}{
		{"e4", "e5 e6 e7|f4 g5 h4|d4 c5 b4|e3 e2 e1|d3 c3 b1|f3 g3 h1"},
		{"a1", "|b3 c5 d5 e6 f6 g7||||b2 c3 d2 e2 f1 g1"},
		{"c1", "c2 c3 c4 c5 c6 c7|d1 e2 f2 g3 h2 i1||||"},
		{"i1", "||h3 g5 f5 e6 d6 c7||h2 g3 f2 e2 d1 c1|"},
	}
	for _, tt := range tests {
		p := mustPoint(t, tt.from)
		var parts []string
		for d, dir := range directions {
			var pts []string
			x, y := geo.x[p]+dir[0], geo.y[p]+dir[1]
			for q := geo.lookup(x, y); q != NoPoint; q = geo.lookup(x, y) {
				pts = append(pts, q.String())
				x, y = x+dir[0], y+dir[1]
			}
			if got := pointList(geo.ray[p][d]); !slices.Equal(slices.Sorted(slices.Values(pts)), slices.Sorted(slices.Values(got))) {
				t.Errorf("%s direction %d: ray %v, walk %v", tt.from, d, got, pts)
			}
			parts = append(parts, strings.Join(pts, " "))
		}
		if got := strings.Join(parts, "|"); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.from, got, tt.want)
		}
	}
}

// TestLinesAreContiguous makes sure no line leaves the board and comes back:
// a ray may stop at the first missing point.
func TestLinesAreContiguous(t *testing.T) {
	for p := range Point(NumPoints) {
		for _, dir := range directions {
			x, y := geo.x[p]+dir[0], geo.y[p]+dir[1]
			for geo.lookup(x, y) != NoPoint {
				x, y = x+dir[0], y+dir[1]
			}
			for ; x >= -latticeW && x < 2*latticeW && y >= -latticeH && y < 2*latticeH; x, y = x+dir[0], y+dir[1] {
				if q := geo.lookup(x, y); q != NoPoint {
					t.Errorf("the line from %s in direction %v comes back at %s", p, dir, q)
				}
			}
		}
	}
}
