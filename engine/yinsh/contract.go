package yinsh

import (
	"errors"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"lyngk.example/lyngk/engine/games"
)

// Rules is YINSH's entry in the game contract (package games).
type Rules struct{}

var _ games.Rules = Rules{}

// Name is the game's word, "yinsh".
func (Rules) Name() string { return "yinsh" }

// Title is "Yinsh", as the subjects write it ("Yinsh Board 102 bob").
func (Rules) Title() string { return "Yinsh" }

// blitzOption is the one option of a challenge; any prefix of it down to
// "-b" selects it.
const blitzOption = "-blitz"

// Variant reads the challenge option -blitz (any prefix down to "-b").
func (Rules) Variant(option string) (string, bool) {
	switch {
	case option == "":
		return Normal.String(), true
	case len(option) >= 2 && strings.HasPrefix(blitzOption, strings.ToLower(option)):
		return Blitz.String(), true
	}
	return "", false
}

// New returns the empty board in variant "normal" or "blitz"; the board
// number plays no part.
func (Rules) New(_ int, variant string) (games.Position, error) {
	switch variant {
	case Normal.String():
		return &position{New(Normal)}, nil
	case Blitz.String():
		return &position{New(Blitz)}, nil
	}
	return nil, errors.New("yinsh: no variant " + variant)
}

// MoveWords counts the words of a turn written apart, as players type
// them: parts around a ";" ("xc3-c7; xd8; f2-f6") and a move number apart
// ("f2-f6 #23").
func (Rules) MoveWords(words []string) int {
	n := min(len(words), 1)
	for n > 0 && n < len(words) && (strings.HasSuffix(words[n-1], ";") || strings.HasPrefix(words[n], ";")) {
		n++
	}
	if len(words) > n && n > 0 && strings.HasPrefix(words[n], "#") {
		n++
	}
	return n
}

// LooksLikeMove reports whether s parses as a turn.
func (Rules) LooksLikeMove(s string) bool {
	_, _, err := ParseTurn(s)
	return err == nil
}

// position is a Game as the contract's Position.
type position struct{ g Game }

// Of returns the YINSH game of a position made by Rules.New, for YINSH's
// picture and robot.
func Of(p games.Position) (*Game, bool) {
	pos, ok := p.(*position)
	if !ok {
		return nil, false
	}
	return &pos.g, true
}

// Position wraps g as the contract's Position.
func Position(g Game) games.Position { return &position{g} }

func (p *position) Turn() int   { return p.g.Turn() }
func (p *position) Winner() int { return p.g.Winner() }

func (p *position) Outcome() games.Outcome { return p.g.Status() }

func (p *position) Parse(s string) (games.Move, int, error) {
	t, num, err := ParseTurn(s)
	if err != nil {
		return nil, 0, &games.MoveError{Err: games.ErrNotation, Move: s, Reason: notationReason(err)}
	}
	return t, num, nil
}

func (p *position) Play(m games.Move) error {
	t, ok := m.(Turn)
	if !ok {
		return &games.MoveError{Err: games.ErrIllegal, Move: m.String(), Reason: "Not a YINSH turn"}
	}
	if err := p.g.Apply(t); err != nil {
		var te *TurnError
		if errors.As(err, &te) {
			return &games.MoveError{Err: games.ErrIllegal, Move: t.String(), Reason: capitalise(te.Reason)}
		}
		return err
	}
	return nil
}

func (p *position) Moves() []string { return games.Strings(p.g.Moves()) }

func (p *position) Legal() []string { return games.Strings(p.g.Legal(nil)) }

func (p *position) Board(names [2]string) string { return p.g.Board(names) }

// byColour is a pair of point lists as the JSON shows them.
type byColour struct {
	White []string `json:"white"`
	Black []string `json:"black"`
}

func pointNames(ps []Point) []string {
	out := []string{}
	for _, q := range ps {
		out = append(out, q.String())
	}
	slices.Sort(out)
	return out
}

// Fields are YINSH's fields of the JSON: rings_removed ([white, black]),
// pool (markers left), rings and markers ({"white": [...], "black":
// [...]}, points sorted bytewise).
func (p *position) Fields() []games.Field {
	return []games.Field{
		{Name: "rings_removed", Value: []int{p.g.Removed(1), p.g.Removed(2)}},
		{Name: "pool", Value: p.g.Pool()},
		{Name: "rings", Value: byColour{pointNames(p.g.Rings(1)), pointNames(p.g.Rings(2))}},
		{Name: "markers", Value: byColour{pointNames(p.g.Markers(1)), pointNames(p.g.Markers(2))}},
	}
}

func (p *position) Clone() games.Position { return &position{p.g} }

// notationReason is what is wrong with a turn's notation, as a player
// should read it, without the summary of the notation the error ends with
// (the error mail explains the notation in full right below).
func notationReason(err error) string {
	s := strings.TrimPrefix(err.Error(), "yinsh: ")
	if i := strings.LastIndex(s, "; "+turnFormat); i >= 0 {
		s = s[:i]
	}
	return capitalise(s)
}

func capitalise(s string) string {
	first, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(first)) + s[n:]
}
