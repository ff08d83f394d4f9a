// Package record writes and reads whole games in two formats: the server's
// plain text record (tag lines, then the numbered moves in the game's
// notation; text.go) and boardspace.net's SGF dialect (sgf.go), which other
// programs read. The formats are described in engine/README.md.
//
// A Record is a game as both carry it: no clock, no chat. The package knows
// no game: it speaks to the games through their contract (package games),
// and to boardspace's records through a game's add-on games.Boardspace.
package record

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"lyngk.example/lyngk/engine/games"
)

// Bounds of what is read: a record bigger than MaxBytes or with more than
// MaxMoves entries is refused before it is replayed. The longest games of
// both games have a few hundred entries.
const (
	MaxBytes = 1 << 20
	MaxMoves = 2000
)

// The results, as PGN writes them.
const (
	WhiteWon = "1-0"
	BlackWon = "0-1"
	Tie      = "1/2-1/2"
	Unknown  = "*" // running, cancelled, or not said
)

// Terminal entries of the record: the last entry when a game ended so
// (the engine writes them; they are no move of the game).
const (
	Resign  = "resign"
	Forfeit = "Forfeit"
)

// ErrFormat is a record that cannot be read.
var ErrFormat = errors.New("record: bad record")

// Record is one game.
type Record struct {
	Game    string    // the game's word ("yinsh"), games.Rules.Name
	Board   int       // the board number; 0 when the record does not say
	Players [2]string // first player (white), second (black)
	Date    time.Time // the start; zero when the record does not say
	Variant string    // the game's variant name; "" is the default
	Result  string    // WhiteWon, BlackWon, Tie or Unknown
	// Termination is how the game ended other than by the rules, the
	// engine's words: "resign", "forfeit", "draw" (agreed), or for a
	// cancelled game "declined", "timeout"; "" by the rules or running.
	Termination string
	// Moves is the record: normalised moves, games.Pass for the
	// automatic passes (a record may leave them out: Replay puts them
	// back), and a last Resign or Forfeit entry when the game ended so.
	Moves []string
	// Steps, when read from SGF, are the boardspace steps each move was
	// read from, for the errors of Replay.
	Steps []string
}

// Winner is 1 or 2 as Result says, else 0.
func (r Record) Winner() int {
	switch r.Result {
	case WhiteWon:
		return 1
	case BlackWon:
		return 2
	}
	return 0
}

// ResultOf is the Result of a game whose winner is winner (1, 2 or 0);
// tie says a game over without one is a tie.
func ResultOf(winner int, tie bool) string {
	switch {
	case winner == 1:
		return WhiteWon
	case winner == 2:
		return BlackWon
	case tie:
		return Tie
	}
	return Unknown
}

// Find returns the game of gs whose word or title is name, in any case.
func Find(gs []games.Game, name string) (games.Game, bool) {
	for _, g := range gs {
		if strings.EqualFold(g.Name(), name) || strings.EqualFold(g.Title(), name) {
			return g, true
		}
	}
	return games.Game{}, false
}

// Replay plays r's moves from the start of its board and variant in rules
// and returns the position after them and the record as the game keeps
// it (automatic passes in, the terminal entry last). A move that is not
// legal is an error naming it by its number, its text (and its steps, from
// SGF) and the game's reason.
func Replay(rules games.Rules, r Record) (games.Position, []string, error) {
	pos, err := rules.New(r.Board, r.Variant)
	if err != nil {
		return nil, nil, fmt.Errorf("record: no start of %s board %d, variant %q: %w", rules.Name(), r.Board, r.Variant, err)
	}
	for i, m := range r.Moves {
		if m == Resign || m == Forfeit {
			if i != len(r.Moves)-1 {
				return nil, nil, fmt.Errorf("%w: entry %d, %q, is not the last", ErrFormat, i+1, m)
			}
			return pos, append(pos.Moves(), m), nil
		}
		if m == games.Pass {
			// An automatic pass Play already made, or one the
			// position does not owe.
			if ms := pos.Moves(); len(ms) > 0 && ms[len(ms)-1] == games.Pass && passes(r.Moves[:i]) < passes(ms) {
				continue
			}
			return nil, nil, fmt.Errorf("record: entry %d is a pass, but %s has a move", i+1, nameOf(r, pos.Turn()))
		}
		where := fmt.Sprintf("move %d (%s)", len(pos.Moves())+1, strings.TrimSpace(m))
		if i < len(r.Steps) && r.Steps[i] != "" {
			where = fmt.Sprintf("move %d (%s, from the steps %s)", len(pos.Moves())+1, strings.TrimSpace(m), r.Steps[i])
		}
		if pos.Turn() == 0 {
			return nil, nil, fmt.Errorf("record: %s: the game is already over", where)
		}
		mv, _, err := pos.Parse(m)
		if err == nil {
			err = pos.Play(mv)
		}
		if err != nil {
			var me *games.MoveError
			if errors.As(err, &me) {
				return nil, nil, fmt.Errorf("record: %s by %s: %s", where, nameOf(r, pos.Turn()), me.Reason)
			}
			return nil, nil, fmt.Errorf("record: %s: %w", where, err)
		}
	}
	return pos, pos.Moves(), nil
}

func passes(ms []string) int {
	n := 0
	for _, m := range ms {
		if m == games.Pass {
			n++
		}
	}
	return n
}

func nameOf(r Record, player int) string {
	if player == 1 || player == 2 {
		if n := r.Players[player-1]; n != "" {
			return n
		}
		return [3]string{"", "white", "black"}[player]
	}
	return "nobody"
}

// At replays the first k entries of moves (a record as Replay returns it)
// from r's start: the position after move k (k < 0 or past the end: the
// last).
func At(rules games.Rules, r Record, moves []string, k int) (games.Position, error) {
	if k < 0 || k > len(moves) {
		k = len(moves)
	}
	q := r
	q.Moves, q.Steps = moves[:k], nil
	pos, _, err := Replay(rules, q)
	return pos, err
}
