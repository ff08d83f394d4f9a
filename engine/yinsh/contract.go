package yinsh

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"lyngk.example/lyngk/engine/games"
)

// Rules is YINSH's entry in the game contract (package games), its
// variants normal and blitz (the first row wins; the challenge option
// -blitz, any prefix down to "-b"), with the add-on games.Boardspace. The
// board number plays no part in the start.
var Rules = rules{&games.Entry[Game, Turn, *Game, Variant]{Word: "yinsh", Heading: "Yinsh", // as the subjects write it ("Yinsh Board 102 bob")
	Variants: games.Variants[Variant]{Normal: "normal", Blitz: "blitz"}, Start: func(_ int, v Variant) Game { return New(v) },
	ParseMove: ParseTurn, Explain: notationReason, Words: moveWords}}

// rules is the default entry of package games with YINSH's boardspace
// records (sgf.go).
type rules struct {
	*games.Entry[Game, Turn, *Game, Variant]
}

// moveWords counts the words of a turn written apart, as players type
// them: parts around a ";" ("xc3-c7; xd8; f2-f6") and a move number apart
// ("f2-f6 #23").
func moveWords(words []string) int {
	n := min(len(words), 1)
	for n > 0 && n < len(words) && (strings.HasSuffix(words[n-1], ";") || strings.HasPrefix(words[n], ";")) {
		n++
	}
	if len(words) > n && n > 0 && strings.HasPrefix(words[n], "#") {
		n++
	}
	return n
}

// Refusal is the rules' reason, capitalised as the player reads it.
func (e *TurnError) Refusal() string { return capitalise(e.Reason) }

// Position wraps g as the contract's Position (the default adapter of
// package games).
func Position(g Game) games.Position { return Rules.Position(g) }

// Of returns the YINSH game of a position made by Rules.New, for YINSH's
// picture and robot.
func Of(p games.Position) (*Game, bool) { return games.Unwrap[Game](p) }

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
func (g *Game) Fields() []games.Field {
	return []games.Field{
		{Name: "rings_removed", Value: []int{g.Removed(1), g.Removed(2)}},
		{Name: "pool", Value: g.Pool()},
		{Name: "rings", Value: byColour{pointNames(g.Rings(1)), pointNames(g.Rings(2))}},
		{Name: "markers", Value: byColour{pointNames(g.Markers(1)), pointNames(g.Markers(2))}},
	}
}

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
