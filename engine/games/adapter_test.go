package games

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// count is a game for the adapter's tests: players add 1 or 2 in turn, and
// who reaches 5 wins; "big" starts at the board number.
type count struct {
	total, turn, winner int
	moves               []move
}

type countVariant uint8

type tooMuch struct{ m move }

func (e tooMuch) Error() string   { return "count: " + string(e.m) + " goes past 5" }
func (e tooMuch) Refusal() string { return "Past 5" }

func (c *count) Turn() int       { return c.turn }
func (c *count) Winner() int     { return c.winner }
func (c *count) Moves() []move   { return c.moves }
func (c *count) Fields() []Field { return []Field{{Name: "total", Value: c.total}} }
func (c *count) Status() Outcome {
	if c.winner != 0 {
		return Won
	}
	return Playing
}
func (c *count) Legal(buf []move) []move {
	if c.winner == 0 {
		buf = append(buf, "1", "2")
	}
	return buf
}
func (c *count) Board(names [2]string) string {
	return names[c.turn-1] + " at " + strconv.Itoa(c.total)
}
func (c *count) Apply(m move) error {
	n, _ := strconv.Atoi(string(m))
	if c.total+n > 5 {
		return tooMuch{m}
	}
	c.total += n
	c.moves = append(c.moves, m)
	if c.total == 5 {
		c.winner = c.turn
	} else {
		c.turn = 3 - c.turn
	}
	return nil
}

var counting = &Entry[count, move, *count, countVariant]{Word: "count", Heading: "Count",
	Variants: Variants[countVariant]{"small", "big"},
	Start: func(board int, v countVariant) count {
		c := count{turn: 1}
		if v == 1 {
			c.total = board % 5
		}
		return c
	},
	ParseMove: func(s string) (move, int, error) {
		if s != "1" && s != "2" {
			return "", 0, errors.New("count: write 1 or 2")
		}
		return move(s), 0, nil
	},
	Explain: func(err error) string { return "Write 1 or 2" },
	Words:   func(words []string) int { return min(len(words), 1) },
}

// TestEntry: the default adapter makes a game's own position the
// contract's: variants chosen by option and prefix, the start, moves
// parsed, played and refused with the game's reasons (bad notation, a
// Refusal, another game's move), the record, clones apart, and Unwrap
// finding the game's own position in its positions only.
func TestEntry(t *testing.T) {
	var r Rules = counting
	for _, tc := range []struct {
		option, want string
		ok           bool
	}{{"", "small", true}, {"-big", "big", true}, {"-B", "big", true}, {"-", "", false}, {"-small", "", false}, {"-bigger", "", false}} {
		if got, ok := r.Variant(tc.option); got != tc.want || ok != tc.ok {
			t.Errorf("Variant(%q) = %q, %v", tc.option, got, ok)
		}
	}
	if _, err := r.New(103, "huge"); err == nil {
		t.Error("New of no variant")
	}
	p, err := r.New(104, "big")
	if err != nil || p.Board([2]string{"ann", "bo"}) != "ann at 4" || !r.LooksLikeMove("2") || r.LooksLikeMove("3") {
		t.Fatalf("New: %v, %v", p, err)
	}
	q := p.Clone()
	if _, _, err := p.Parse("3"); err == nil || !errors.Is(err, ErrNotation) || !strings.Contains(err.Error(), "Write 1 or 2") {
		t.Errorf("Parse(3) = %v", err)
	}
	m, _, _ := p.Parse("2")
	var me *MoveError
	if err := p.Play(m); !errors.As(err, &me) || me.Reason != "Past 5" || me.Move != "2" || !errors.Is(err, ErrIllegal) {
		t.Errorf("Play past 5 = %v", err)
	}
	if err := p.Play(otherMove{}); !errors.Is(err, ErrIllegal) {
		t.Errorf("Play of another game's move = %v", err)
	}
	one, _, _ := p.Parse("1")
	if err := p.Play(one); err != nil || p.Outcome() != Won || p.Winner() != 1 || len(p.Legal()) != 0 ||
		strings.Join(p.Moves(), " ") != "1" || p.Fields()[0].Value != 5 {
		t.Errorf("after 1: %v, %v %d %q %q", err, p.Outcome(), p.Winner(), p.Legal(), p.Moves())
	}
	if q.Outcome() != Playing || q.Turn() != 1 || len(q.Moves()) != 0 {
		t.Error("the clone moved with the original")
	}
	if g, ok := Unwrap[count](q); !ok || g.total != 4 {
		t.Errorf("Unwrap = %v, %v", g, ok)
	}
	if _, ok := Unwrap[struct{}](q); ok {
		t.Error("Unwrap of another game's position")
	}
}

type otherMove struct{}

func (otherMove) String() string { return "o" }

// TestPicturesOtherGame: the default picture refuses a position of
// another game with ErrNotOurs, and has no sides nor spots for it.
func TestPicturesOtherGame(t *testing.T) {
	drawn := func(g *struct{}, names [2]string, opts ...string) ([]byte, error) {
		return []byte(strings.Join(opts, ",")), nil
	}
	ps := Pictures[struct{}, string]{Width: 2, Height: 1, DrawPNG: drawn, DrawSVG: drawn, Over: func(m [2]string) string { return m[0] }}
	p, _ := counting.New(101, "small")
	if _, err := ps.PNG(p, [2]string{}, nil); !errors.Is(err, ErrNotOurs) {
		t.Errorf("PNG of another game = %v", err)
	}
	if s := ps.Sides(p); s[0].Labels != nil || s[1].Count != 0 || ps.Spots(p) != nil {
		t.Error("sides or spots of another game")
	}
}

// TestReplay: the start of a board after moves as players write them; a
// move the notation or the rules refuse is an error that names it.
func TestReplay(t *testing.T) {
	g, err := counting.Replay(8, 1, "1", "1")
	if err != nil || g.total != 5 || g.Winner() != 2 || len(g.moves) != 2 {
		t.Errorf("Replay(8, big, 1 1) = %+v, %v; want 3 + 1 + 1, won by player 2", g, err)
	}
	for _, moves := range [][]string{{"1", "3"}, {"2", "2", "2"}} {
		if _, err := counting.Replay(1, 0, moves...); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("count move %q", moves[len(moves)-1])) {
			t.Errorf("Replay(%q): %v, want the error of its last move", moves, err)
		}
	}
}
