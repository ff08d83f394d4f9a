package lyngk

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine/games"
)

// randomGame plays board n to the end, choosing uniformly among the sorted
// legal moves with a fixed generator, and returns the game.
func randomGame(t *testing.T, n int, v Variant) Game {
	t.Helper()
	r := rng(n)
	g := New(n, v)
	for g.Status() == games.Playing {
		legal := legalStrings(&g)
		if err := g.Apply(mustMove(t, legal[r.intn(len(legal))])); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// TestBoardGolden pins the board block (SPEC §2) byte for byte: start
// positions, and whole random games with their move lists and results.
func TestBoardGolden(t *testing.T) {
	names := [2]string{"alice", "bob"}
	record := func(g Game) string {
		var b strings.Builder
		for i, m := range g.Moves() {
			fmt.Fprintf(&b, "%3d %s\n", i+1, m)
		}
		fmt.Fprintf(&b, "status %v, winner %d, removed %d-%d\n\n", g.Status(), g.Winner(), g.Removed(1), g.Removed(2))
		return b.String() + g.Board(names)
	}
	tests := []struct {
		name string
		text string
	}{
		{"start-101.golden", func() string { g := New(101, Standard); return g.Board(names) }()},
		{"start-101-stack6.golden", func() string { g := New(101, Stack6); return g.Board(names) }()},
		{"game-102.golden", record(randomGame(t, 102, Standard))},
		{"game-103.golden", record(randomGame(t, 103, Standard))},
		{"game-104-stack6.golden", record(randomGame(t, 104, Stack6))},
		{"game-105-stack6.golden", record(randomGame(t, 105, Stack6))},
		{"game-106.golden", record(randomGame(t, 106, Standard))},
		{"game-107-stack6.golden", record(randomGame(t, 107, Stack6))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkGolden(t, tt.name, tt.text) })
	}
}

// TestReferenceBlocks parses the board blocks of the gamerz reference mails
// and renders them again, byte for byte; board 148 is also its start.
func TestReferenceBlocks(t *testing.T) {
	files, err := filepath.Glob("testdata/ref-*.txt")
	if err != nil || len(files) != 3 {
		t.Fatalf("reference blocks: %v %v", files, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		g, names, err := ParseBoard(string(data))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if got := g.Board(names); got != string(data) {
			t.Errorf("%s renders as\n%s", f, got)
		}
		if strings.HasSuffix(f, "new-game.txt") {
			start := New(148, Standard)
			if got := start.Board(names); got != string(data) {
				t.Errorf("board 148 starts as\n%s", got)
			}
		}
	}
}

// TestParseBoardLenient checks what a hand-edited or mailed position may do
// without changing the position: CRLF, lost trailing spaces, blank lines
// around the block.
func TestParseBoardLenient(t *testing.T) {
	g := randomGame(t, 106, Stack6)
	block := g.Board([2]string{"x", "y"})
	var stripped []string
	for line := range strings.SplitSeq(block, "\n") {
		stripped = append(stripped, strings.TrimRight(line, " "))
	}
	for _, in := range []string{
		strings.ReplaceAll(block, "\n", "\r\n"),
		"\n\n" + strings.Join(stripped, "\n") + "\n\n",
	} {
		p, names, err := ParseBoard(in)
		if err != nil {
			t.Fatal(err)
		}
		if !samePosition(&g, &p) || p.Board(names) != block {
			t.Errorf("position differs:\n%s", p.Board(names))
		}
	}
}

func TestParseBoardErrors(t *testing.T) {
	start := New(101, Standard)
	good := start.Board([2]string{"alice", "bob"})
	edit := func(old, new string) string {
		if !strings.Contains(good, old) {
			t.Fatalf("%q not in the block", old)
		}
		return strings.Replace(good, old, new, 1)
	}
	tests := []struct {
		name, block, err string
	}{
		{"empty", "", "a board block has 23 lines"},
		{"line numbers count leading blank lines", "\n\n" + edit("alice:", "al ice:"), "line 4: want NAME: N stacks"},
		{"missing row", edit("           G       K       R            \n", ""), "a board block has 23 lines"},
		{"colours line", edit("Available Colors: ", "Colors: "), `line 1: want "Available Colors: (...)"`},
		{"unknown colour", edit("(Ivory,Blue,", "(Ivory,Pink,"), "line 1: want a list of colours"},
		{"free colours disagree", edit("alice: 0 stacks ()", "alice: 0 stacks (Blue)"), "line 1: the available colours do not match the claims"},
		{"name with a space", edit("alice:", "al ice:"), "line 2: want NAME: N stacks"},
		{"bad count", edit("alice: 0 stacks", "alice: x stacks"), "line 2: want NAME: N stacks"},
		{"three claims", strings.Replace(edit("alice: 0 stacks ()", "alice: 0 stacks (Ivory,Blue,Red)"), "(Ivory,Blue,Red,Green,blacK)", "(Green,blacK)", 1), "line 2: want at most two colours"},
		{"claimed twice", strings.Replace(edit("bob: 0 stacks ()", "bob: 0 stacks (Red,Red)"), "(Ivory,Blue,Red,Green,blacK)", "(Ivory,Blue,Green,blacK)", 1), "line 3: Red cannot be claimed here"},
		{"joker claimed", edit("bob: 0 stacks ()", "bob: 0 stacks (Joker)"), "line 3: want at most two colours"},
		{"header", edit("   A   B   C", "   A   B   X"), `line 5: want "   A   B   C   D   E   F   G   H   I" (the column header)`},
		{"misaligned stack", edit("           B       K       R            \n", "          B        K       R            \n"), "line 8: c7: want a stack"},
		{"no point field", edit("           B       K       R            \n", "   I       B       K       R            \n"), "line 8: field 1 has no point and must be blank"},
		{"odd row indent", edit("               G       G                    \n", "   G       G                    \n"), "line 9: odd rows start with 4 spaces"},
		{"row too long", edit("           B       K       R            \n", "           B       K       R               X\n"), "line 8: row too long"},
		{"bad piece", edit("           B       K       R            \n", "           X       K       R            \n"), `line 8: c7: "X" is not a piece`},
		{"lower-case piece", edit("           B       K       R            \n", "           b       K       R            \n"), `line 8: c7: "b" is not a piece`},
		{"colour twice", edit("           B       K       R            \n", "           B       K      RBR           \n"), "line 8: g7: two Red pieces in one stack"},
		{"too high", edit("           B       K       R            \n", "           B       K     RBIGKJ         \n"), "line 8: g7: want a stack"},
		{"too many pieces", edit("           B       K       R            \n", "           B       K       B            \n"), "9 Blue pieces, the game has 8"},
		{"footer", edit("   1   1   1", "   1   2   1"), `line 23: want "   1   1   1   1   1   1   1   1   1" (the column footer)`},
		{"removed in stack6", "Stack6 Mode\n" + edit("alice: 0 stacks", "alice: 1 stacks"), "line 3: no stack is ever removed in stack6"},
		{"pieces and removed stacks", edit("alice: 0 stacks", "alice: 1 stacks"), "48 pieces, the game has 43"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ParseBoard(tt.block)
			if !errors.Is(err, ErrBadBoard) || !strings.Contains(err.Error(), tt.err) || !strings.HasPrefix(err.Error(), "lyngk: ") {
				t.Errorf("ParseBoard = %v, want ErrBadBoard with %q", err, tt.err)
			}
		})
	}
}

func FuzzParseBoard(f *testing.F) {
	files, _ := filepath.Glob("testdata/*")
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(string(data))
		}
	}
	g := New(101, Stack6)
	f.Add(g.Board([2]string{"a", "b"}))
	f.Fuzz(func(t *testing.T, block string) {
		g, names, err := ParseBoard(block)
		if err != nil {
			if !errors.Is(err, ErrBadBoard) {
				t.Fatalf("error %v does not wrap ErrBadBoard", err)
			}
			return
		}
		out := g.Board(names)
		g2, names2, err := ParseBoard(out)
		if err != nil {
			t.Fatalf("the rendering does not parse: %v\n%s", err, out)
		}
		if !samePosition(&g, &g2) || names2 != names || g2.Board(names2) != out {
			t.Fatalf("round trip differs:\n%s\n%s", out, g2.Board(names2))
		}
		// Whatever parses can be played from.
		g.SetTurn(1)
		for g.Status() == games.Playing && g.MoveCount() < maxHistory-2 {
			legal := g.Legal(nil)
			if len(legal) == 0 {
				t.Fatal("no legal move while playing")
			}
			if err := g.Apply(legal[0]); err != nil {
				t.Fatalf("legal %s: %v", legal[0], err)
			}
		}
		if g.Status() == games.Playing {
			t.Fatal("the game did not end")
		}
	})
}
