package lyngk

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"lyngk.example/lyngk/engine/games"
)

// Rules is LYNGK's entry in the game contract (package games).
type Rules struct{}

var _ games.Rules = Rules{}

// Name is the game's word, "lyngk".
func (Rules) Name() string { return "lyngk" }

// Title is "Lyngk", as the gamerz subjects write it.
func (Rules) Title() string { return "Lyngk" }

// stack6Option is the one option of a challenge; any prefix of it down to
// "-s" selects it.
const stack6Option = "-stack6"

// Variant reads the challenge option -stack6 (any prefix down to "-s").
func (Rules) Variant(option string) (string, bool) {
	switch {
	case option == "":
		return Standard.String(), true
	case len(option) >= 2 && strings.HasPrefix(stack6Option, strings.ToLower(option)):
		return Stack6.String(), true
	}
	return "", false
}

// New returns the start of board (SPEC §1) in variant "standard" or
// "stack6".
func (Rules) New(board int, variant string) (games.Position, error) {
	switch variant {
	case Standard.String():
		return &position{New(board, Standard)}, nil
	case Stack6.String():
		return &position{New(board, Stack6)}, nil
	}
	return nil, errors.New("lyngk: no variant " + variant)
}

// MoveWords counts the words of a move written apart (joined without
// spaces, they are the move), as players type
// them: a claim apart from its move ("R, e4-e5") and a move number apart
// ("e4-e5 #7").
func (Rules) MoveWords(words []string) int {
	n := min(len(words), 1)
	if len(words) > 1 && len(words[0]) == 2 && strings.HasSuffix(words[0], ",") {
		n = 2
	}
	if len(words) > n && n > 0 && strings.HasPrefix(words[n], "#") {
		n++
	}
	return n
}

// LooksLikeMove reports whether s parses as a move.
func (Rules) LooksLikeMove(s string) bool {
	_, _, err := ParseMove(s)
	return err == nil
}

// position is a Game as the contract's Position.
type position struct{ g Game }

// Of returns the LYNGK game of a position made by Rules.New, for LYNGK's
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
	m, num, err := ParseMove(s)
	if err != nil {
		return nil, 0, &games.MoveError{Err: games.ErrNotation, Move: s, Reason: notationReason(err)}
	}
	return m, num, nil
}

func (p *position) Play(m games.Move) error {
	lm, ok := m.(Move)
	if !ok {
		return &games.MoveError{Err: games.ErrIllegal, Move: m.String(), Reason: "Not a LYNGK move"}
	}
	if err := p.g.Apply(lm); err != nil {
		var me *MoveError
		if errors.As(err, &me) {
			return &games.MoveError{Err: games.ErrIllegal, Move: lm.String(), Reason: me.Reason}
		}
		return err
	}
	return nil
}

func (p *position) Moves() []string { return games.Strings(p.g.Moves()) }

func (p *position) Legal() []string { return games.Strings(p.g.Legal(nil)) }

func (p *position) Board(names [2]string) string { return p.g.Board(names) }

// Fields are LYNGK's fields of the JSON: claims (per player, colour
// letters in claim order) and removed (per player, stacks removed).
func (p *position) Fields() []games.Field {
	claims := [][]string{{}, {}}
	for i := range 2 {
		for _, c := range p.g.Claims(i + 1) {
			claims[i] = append(claims[i], string(c.Letter()))
		}
	}
	return []games.Field{{Name: "claims", Value: claims}, {Name: "removed", Value: []int{p.g.Removed(1), p.g.Removed(2)}}}
}

func (p *position) Clone() games.Position { return &position{p.g} }

// notationReason is what is wrong with a move's notation, as a player
// should read it. The error ends with a short form of the notation ("; write
// R,b1-b2 ..."), which is cut: the error mail explains the notation in
// full right below.
func notationReason(err error) string {
	s := strings.TrimSuffix(err.Error(), ": "+ErrNotation.Error())
	s = strings.TrimPrefix(s, "lyngk: ")
	first, n := utf8.DecodeRuneInString(s)
	s = string(unicode.ToUpper(first)) + s[n:]
	for _, sep := range []string{"; write ", ": write "} {
		if i := strings.LastIndex(s, sep); i >= 0 {
			return s[:i]
		}
	}
	return s
}
