package lyngksearch

import (
	"math"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/engine/mcts"
)

// build makes a standard position from its parts: claims are colour
// letters per player ("RG"), stacks map points to their pieces, top
// first ("RIBG" is a red-topped stack of four); player 1 is to move.
func build(t *testing.T, claims [2]string, removed [2]int, stacks map[string]string) lyngk.Game {
	t.Helper()
	names := map[byte]string{'I': "Ivory", 'B': "Blue", 'R': "Red", 'G': "Green", 'K': "blacK"}
	list := func(letters string) string {
		var out []string
		for i := range len(letters) {
			out = append(out, names[letters[i]])
		}
		return "(" + strings.Join(out, ",") + ")"
	}
	free := ""
	for _, c := range "IBRGK" {
		if !strings.ContainsRune(claims[0]+claims[1], c) {
			free += string(c)
		}
	}
	at := map[[2]int]string{}
	for col := 'a'; col <= 'i'; col++ {
		for row := '1'; row <= '7'; row++ {
			if p, err := lyngk.ParsePoint(string([]rune{col, row})); err == nil {
				x, y := p.Lattice()
				at[[2]int{x, y}] = string([]rune{col, row})
			}
		}
	}
	var b strings.Builder
	b.WriteString("Available Colors: " + list(free) + "\n")
	for i, name := range []string{"one", "two"} {
		b.WriteString(name + ": " + string(rune('0'+removed[i])) + " stacks " + list(claims[i]) + " claimed.\n")
	}
	header := "   A   B   C   D   E   F   G   H   I\n"
	b.WriteString("\n" + header + "   1   4   7   6   7   6   7   4   1\n\n")
	for r := range 13 {
		y, x0 := 12-r, r%2
		if x0 == 1 {
			b.WriteString("    ")
		}
		for f := range 5 {
			name, ok := at[[2]int{x0 + 2*f, y}]
			s := stacks[name]
			switch {
			case !ok:
				b.WriteString("        ")
			case s == "":
				b.WriteString("   -    ")
			default:
				b.WriteString("        "[:(8-len(s))/2] + s + "        "[:(7-len(s))/2+1])
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("\n" + header + "   1   1   1   1   1   1   1   1   1\n")
	g, _, err := lyngk.ParseBoard(b.String())
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	for name, s := range stacks {
		p, _ := lyngk.ParsePoint(name)
		if g.Stack(p) != s {
			t.Fatalf("%s holds %q, want %q", name, g.Stack(p), s)
		}
	}
	return g
}

// TestEvaluate scores hand-built positions term by term (see weights).
// d4 and d5 are neighbours; b4 and h4 see nothing of d4, d5 or each
// other but through the stacks between.
func TestEvaluate(t *testing.T) {
	w := standardWeights
	for _, tt := range []struct {
		name    string
		claims  [2]string
		removed [2]int
		stacks  map[string]string
		turn    int
		want    float64
	}{
		{"removed stacks", [2]string{"R", "B"}, [2]int{2, 1}, map[string]string{"a1": "J", "i1": "J"}, 1, 1},
		{"player 1 completes his red four now", [2]string{"R", ""}, [2]int{}, map[string]string{"d4": "RIBG", "d5": "K"}, 1,
			// The black single may be claimed by either player and
			// completes the four: player 2 threatens it too.
			w.Live[4] + w.Mover - w.Waiting},
		{"player 2 to move takes the four with black", [2]string{"R", ""}, [2]int{}, map[string]string{"d4": "RIBG", "d5": "K"}, 2,
			w.Live[4] - w.Mover + 2*w.Waiting},
		{"a dead four counts its pieces", [2]string{"R", "K"}, [2]int{}, map[string]string{"d4": "RIBG", "d5": "B"}, 1, 4 * w.Dead},
		{"player 2's dead four", [2]string{"K", "R"}, [2]int{}, map[string]string{"d4": "RIBG", "d5": "B"}, 1, -4 * w.Dead},
		{"a free colour's stack is worth the same to both", [2]string{}, [2]int{}, map[string]string{"d4": "RI", "d5": "B"}, 1, 0},
		{"only player 1 may still claim green", [2]string{"R", "BK"}, [2]int{}, map[string]string{"d4": "GI", "d5": "J"}, 2,
			w.Neutral * w.Live[2]},
		{"jokers belong to nobody", [2]string{}, [2]int{}, map[string]string{"d4": "JR", "d5": "J"}, 1, 0},
	} {
		g := build(t, tt.claims, tt.removed, tt.stacks)
		if tt.turn == 2 {
			g.SetTurn(2)
		}
		if got := w.evaluate(&g); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s: %.4f, want %.4f", tt.name, got, tt.want)
		}
	}
}

// TestEvaluateSymmetry: swapping the players (their names, claims and
// removed stacks, and the turn) negates the evaluation, in positions of
// random games.
func TestEvaluateSymmetry(t *testing.T) {
	r := mcts.RNG(5)
	var buf []lyngk.Move
	checked := 0
	for board := 1; board <= 20; board++ {
		g := lyngk.New(board, lyngk.Standard)
		for g.Status() == games.Playing {
			text := g.Board([2]string{"one", "two"})
			lines := strings.Split(text, "\n")
			lines[1], lines[2] = lines[2], lines[1]
			a, _, err := lyngk.ParseBoard(text)
			if err != nil {
				t.Fatal(err)
			}
			b, _, err := lyngk.ParseBoard(strings.Join(lines, "\n"))
			if err != nil {
				t.Fatal(err)
			}
			a.SetTurn(g.Turn())
			b.SetTurn(3 - g.Turn())
			if a.Status() == games.Playing && b.Status() == games.Playing {
				ea, eb := standardWeights.evaluate(&a), standardWeights.evaluate(&b)
				if math.Abs(ea+eb) > 1e-9 {
					t.Fatalf("board %d after %v: %.4f, swapped %.4f\n%s", board, g.Moves(), ea, eb, text)
				}
				checked++
			}
			buf = g.Legal(buf[:0])
			if err := g.Apply(buf[r.Intn(len(buf))]); err != nil {
				t.Fatal(err)
			}
		}
	}
	if checked < 200 {
		t.Errorf("only %d positions checked", checked)
	}
}

// TestGives: a move that builds a stack the opponent can complete next is
// told apart from one that does not.
func TestGives(t *testing.T) {
	for _, tt := range []struct {
		name   string
		claims [2]string
		stacks map[string]string
		move   string
		want   bool
	}{
		// Player 2 owns black: his single on d6 sees the four built on d5.
		{"a four next to the opponent's single", [2]string{"R", "K"}, map[string]string{"d4": "RIB", "d5": "G", "d6": "K"}, "d4-d5", true},
		{"a four next to a single sharing a colour", [2]string{"R", "K"}, map[string]string{"d4": "RIB", "d5": "G", "d6": "I"}, "d4-d5", false},
		// Nobody claimed red: the neutral four is player 2's to claim
		// and to move onto the joker.
		{"a neutral four next to a joker", [2]string{"", "G"}, map[string]string{"d4": "RIB", "d5": "G", "d6": "J"}, "d4-d5", true},
		{"the same four with red claimed", [2]string{"", "G"}, map[string]string{"d4": "RIB", "d5": "G", "d6": "J"}, "R,d4-d5", false},
		{"the same four next to a single player 2 may claim", [2]string{"", "G"}, map[string]string{"d4": "RIB", "d5": "G", "d6": "K"}, "R,d4-d5", true},
		{"a three next to a single", [2]string{"R", "K"}, map[string]string{"d4": "RI", "d5": "G", "d6": "K"}, "d4-d5", false},
	} {
		g := build(t, tt.claims, [2]int{}, tt.stacks)
		m, _, err := lyngk.ParseMove(tt.move)
		if err != nil {
			t.Fatal(err)
		}
		if got := gives(&g, m); got != tt.want {
			t.Errorf("%s: %v gives %t, want %t", tt.name, m, got, tt.want)
		}
	}
}

// TestCutPlayouts: playouts cut at a depth stop within Depth+Quiet moves
// (each may be followed by a pass in the record) or at the end of the
// game, and name a winner, 0, 1 or 2, by the sign of the evaluation or
// drawn from its chances.
func TestCutPlayouts(t *testing.T) {
	r := mcts.RNG(3)
	var buf []lyngk.Move
	for _, p := range []guided{
		{W: &standardWeights, Depth: 4, Quiet: 2},
		{W: &standardWeights, Depth: 6, Quiet: 4, Sharpness: 2},
	} {
		seen := map[int]bool{}
		for board := 1; board <= 200; board++ {
			g := lyngk.New(board, lyngk.Standard)
			// Start from positions of the middle game too.
			for range board % 30 {
				buf = g.Legal(buf[:0])
				if len(buf) == 0 {
					break
				}
				if err := g.Apply(buf[r.Intn(len(buf))]); err != nil {
					t.Fatal(err)
				}
			}
			if g.Status() != games.Playing {
				continue
			}
			before := g.MoveCount()
			var w int
			w, buf = p.Playout(&g, &r, buf)
			if played := g.MoveCount() - before; g.Status() == games.Playing && played > 2*(p.Depth+p.Quiet) {
				t.Errorf("%+v: played %d moves", p, played)
			}
			if w < 0 || w > 2 || (g.Status() != games.Playing && w != g.Winner()) {
				t.Errorf("%+v: winner %d, status %v", p, w, g.Status())
			}
			seen[w] = true
		}
		if !seen[1] || !seen[2] {
			t.Errorf("%+v: winners %v", p, seen)
		}
	}
}
