package yinsh

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Action is what a turn does besides its removals.
type Action uint8

// The actions: none (a pass, or a turn of removals alone), the placement of
// a ring, the move of a ring.
const (
	NoAction Action = iota
	Place
	Move
)

// MaxRemovals bounds the removals of one turn: each removes one of the
// player's rings, and the third one ends the game (rulebook H).
const MaxRemovals = 3

// Removal is a row of five markers, named by its end points in GIPF order,
// and the ring removed with it (rulebook G2, G3). A removal read in the
// short form has From and To NoPoint: the row is the only one there is.
type Removal struct {
	From, To, Ring Point
}

// Turn is a whole turn: the removals owed from the opponent's last move
// (Pre), the placement or ring move, and the removals of the rows that move
// made for the mover (Post). A turn of removals alone keeps them in Pre.
// Unused fields are zero, so equal turns are equal values. The zero Turn is
// the automatic pass, written "--".
type Turn struct {
	Pre, Post   [MaxRemovals]Removal
	NPre, NPost uint8
	Action      Action
	From, To    Point // Move: From-To; Place: To (From is 0)
}

// Pass is the automatic pass of a player who owes no removal and cannot
// move a ring. Nobody passes by choice: Apply refuses it.
var Pass = Turn{}

// IsPass reports whether t is the pass.
func (t Turn) IsPass() bool { return t == Pass }

// Errors callers branch on; the errors returned wrap them.
var (
	ErrIllegalTurn = errors.New("yinsh: illegal turn")
	ErrNotation    = errors.New("yinsh: bad turn notation")
	ErrGameOver    = errors.New("yinsh: the game is over")
)

// String returns the turn in the notation: its parts joined by ";", the
// removals as "xb2-b6;xa4" (or "xa4" alone when the row was left out), a
// placement "e3", a move "h7-g7"; "--" for the pass.
func (t Turn) String() string {
	if t.IsPass() {
		return "--"
	}
	return string(t.AppendText(make([]byte, 0, 64)))
}

// AppendText appends the notation of t to b.
func (t Turn) AppendText(b []byte) []byte {
	if t.IsPass() {
		return append(b, "--"...)
	}
	n0 := len(b)
	sep := func() {
		if len(b) > n0 {
			b = append(b, ';')
		}
	}
	removals := func(rs []Removal) {
		for _, r := range rs {
			if r.From != NoPoint {
				sep()
				b = append(b, 'x')
				b = r.From.appendTo(b)
				b = append(b, '-')
				b = r.To.appendTo(b)
			}
			sep()
			b = append(b, 'x')
			b = r.Ring.appendTo(b)
		}
	}
	removals(t.Pre[:t.NPre])
	switch t.Action {
	case Place:
		sep()
		b = t.To.appendTo(b)
	case Move:
		sep()
		b = t.From.appendTo(b)
		b = append(b, '-')
		b = t.To.appendTo(b)
	}
	removals(t.Post[:t.NPost])
	return b
}

const turnFormat = "write a placement e3, a ring move h7-g7, a row removal xb2-b6 followed by its ring removal xa4, " +
	"joined by ; in the order of the turn (removals owed, the move, your own removals), optionally followed by #n (the move number)"

// ParseTurn reads a turn in the notation, in any case, with surrounding
// spaces ignored, optionally followed by "#n", the move number the player
// believes it is (num is 0 when absent). A row's ends may come in either
// order (they are put in GIPF order); a row may be left out before its ring
// (the short form: Game.Apply takes the only row there is). Removals before
// the placement or move go to Pre, after it to Post; with neither, all go to
// Pre. Errors wrap ErrNotation and show the format. Whether the turn is
// legal is the game's business (Apply).
func ParseTurn(s string) (t Turn, num int, err error) {
	in := s
	bad := func(format string, args ...any) (Turn, int, error) {
		return Pass, 0, fmt.Errorf("%w %q: %s; %s", ErrNotation, in, fmt.Sprintf(format, args...), turnFormat)
	}
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '#'); i >= 0 {
		n, err := strconv.Atoi(s[i+1:])
		if err != nil || n < 1 || s[i+1] == '+' {
			return bad("the move number after # must be a positive number")
		}
		num, s = n, strings.TrimSpace(s[:i])
	}
	if s == "--" {
		return Pass, num, nil
	}
	if s == "" {
		return bad("the turn is empty")
	}
	point := func(part, text string) (Point, error) {
		p, ok := ParsePoint(text)
		if !ok {
			_, _, err := bad("no point %q on the board (in %q)", text, part)
			return NoPoint, err
		}
		return p, nil
	}
	row := Removal{From: NoPoint, To: NoPoint, Ring: NoPoint}
	pendingRow := false
	for part := range strings.SplitSeq(s, ";") {
		if pendingRow && (len(part) < 1 || part[0]|0x20 != 'x' || strings.Contains(part, "-")) {
			return bad("a row removal must be followed by its ring removal, as in xb2-b6;xa4")
		}
		switch {
		case part == "":
			return bad("an empty part (two ; in a row, or one at an end)")
		case part[0]|0x20 == 'x':
			a, b, isRow := strings.Cut(part[1:], "-")
			if isRow {
				pa, err := point(part, a)
				if err != nil {
					return Pass, 0, err
				}
				pb, err := point(part, b)
				if err != nil {
					return Pass, 0, err
				}
				if pb < pa {
					pa, pb = pb, pa
				}
				row.From, row.To, pendingRow = pa, pb, true
				continue
			}
			ring, err := point(part, a)
			if err != nil {
				return Pass, 0, err
			}
			row.Ring = ring
			if t.Action == NoAction {
				if t.NPre == MaxRemovals {
					return bad("more than %d removals before the move", MaxRemovals)
				}
				t.Pre[t.NPre] = row
				t.NPre++
			} else {
				if t.NPost == MaxRemovals {
					return bad("more than %d removals after the move", MaxRemovals)
				}
				t.Post[t.NPost] = row
				t.NPost++
			}
			row, pendingRow = Removal{From: NoPoint, To: NoPoint, Ring: NoPoint}, false
		default:
			if t.Action != NoAction {
				return bad("a turn has one placement or ring move, %q is a second", part)
			}
			a, b, isMove := strings.Cut(part, "-")
			pa, err := point(part, a)
			if err != nil {
				return Pass, 0, err
			}
			if !isMove {
				t.Action, t.To = Place, pa
				continue
			}
			pb, err := point(part, b)
			if err != nil {
				return Pass, 0, err
			}
			t.Action, t.From, t.To = Move, pa, pb
		}
	}
	if pendingRow {
		return bad("a row removal must be followed by its ring removal, as in xb2-b6;xa4")
	}
	return t, num, nil
}
