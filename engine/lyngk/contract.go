package lyngk

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"lyngk.example/lyngk/engine/games"
)

// Rules is LYNGK's entry in the game contract (package games), its
// variants standard and stack6 (the challenge option -stack6, any prefix
// down to "-s"), with the add-on games.Setup.
var Rules = rules{&games.Entry[Game, Move, *Game, Variant]{Word: "lyngk", Heading: "Lyngk", // as the gamerz subjects write it
	Variants: games.Variants[Variant]{Standard: "standard", Stack6: "stack6"}, Start: New, ParseMove: ParseMove, Explain: notationReason, Words: moveWords}}

// rules is the default entry of package games with LYNGK's set-up.
type rules struct {
	*games.Entry[Game, Move, *Game, Variant]
}

var _ games.Setup = Rules

// ReadBoard is ParseBoard; in variant stack6 a block without its "Stack6
// Mode" line is read as one with it.
func (r rules) ReadBoard(block, variant string) (games.Position, [2]string, error) {
	if variant == r.Variants[Stack6] && !strings.HasPrefix(strings.TrimLeft(block, "\r\n"), "Stack6 Mode") {
		block = "Stack6 Mode\n" + block
	}
	g, names, err := ParseBoard(block)
	if err != nil {
		return nil, names, err
	}
	return r.Position(g), names, nil
}

// SetTurn is Game.SetTurn of p.
func (rules) SetTurn(p games.Position, player int) error {
	g, ok := Of(p)
	if !ok {
		return games.ErrNotOurs
	}
	g.SetTurn(player)
	return nil
}

// moveWords counts the words of a move written apart (joined without
// spaces, they are the move), as players type
// them: a claim apart from its move ("R, e4-e5") and a move number apart
// ("e4-e5 #7").
func moveWords(words []string) int {
	n := min(len(words), 1)
	if len(words) > 1 && len(words[0]) == 2 && strings.HasSuffix(words[0], ",") {
		n = 2
	}
	if len(words) > n && n > 0 && strings.HasPrefix(words[n], "#") {
		n++
	}
	return n
}

// Refusal is the rulebook's reason, as the player reads it.
func (e *MoveError) Refusal() string { return e.Reason }

// Position wraps g as the contract's Position (the default adapter of
// package games).
func Position(g Game) games.Position { return Rules.Position(g) }

// Of returns the LYNGK game of a position made by Rules.New, for LYNGK's
// picture and robot.
func Of(p games.Position) (*Game, bool) { return games.Unwrap[Game](p) }

// Fields are LYNGK's fields of the JSON: claims (per player, colour
// letters in claim order) and removed (per player, stacks removed).
func (g *Game) Fields() []games.Field {
	claims := [][]string{{}, {}}
	for i := range 2 {
		for _, c := range g.Claims(i + 1) {
			claims[i] = append(claims[i], string(c.Letter()))
		}
	}
	return []games.Field{{Name: "claims", Value: claims}, {Name: "removed", Value: []int{g.Removed(1), g.Removed(2)}}}
}

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
