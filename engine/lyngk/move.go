package lyngk

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Color is the colour of a piece. The zero value is NoColor.
type Color uint8

// The five colours and the jokers (white pieces, rulebook D1).
const (
	NoColor Color = iota
	Ivory
	Blue
	Red
	Green
	Black
	Joker
)

const colorLetters = "-IBRGKJ"

var colorNames = [...]string{"None", "Ivory", "Blue", "Red", "Green", "blacK", "Joker"}

// Letter returns the colour's letter as shown on the board: 'I', 'B', 'R',
// 'G', 'K' or 'J' ('-' for NoColor, '?' for a value that is no colour).
func (c Color) Letter() byte {
	if c > Joker {
		return '?'
	}
	return colorLetters[c]
}

// Name returns the colour's name in the gamerz spelling, whose capital letter
// is the one shown on the board: "Ivory", "Blue", "Red", "Green", "blacK".
func (c Color) Name() string {
	if c > Joker {
		return "?"
	}
	return colorNames[c]
}

func colorFromLetter(b byte) Color {
	switch b | 0x20 {
	case 'i':
		return Ivory
	case 'b':
		return Blue
	case 'r':
		return Red
	case 'g':
		return Green
	case 'k':
		return Black
	case 'j':
		return Joker
	}
	return NoColor
}

// Move is one turn: an optional claim, then a stack moved From onto To.
type Move struct {
	Claim    Color
	From, To Point
}

// Pass is the automatic pass of a player who cannot move (rulebook E11),
// written "--". Nobody passes by choice: Apply refuses it.
var Pass = Move{From: NoPoint, To: NoPoint}

// Errors callers branch on; the errors returned wrap them.
var (
	ErrIllegalMove = errors.New("lyngk: illegal move")
	ErrNotation    = errors.New("lyngk: bad move notation")
	ErrGameOver    = errors.New("lyngk: the game is over")
	ErrBadBoard    = errors.New("lyngk: bad board")
)

// IsPass reports whether m is the automatic pass.
func (m Move) IsPass() bool { return m == Pass }

// String returns the normalised notation: "R,b1-b2", "b1-b2", or "--".
func (m Move) String() string {
	if m.IsPass() {
		return "--"
	}
	var b [8]byte
	s := b[:0]
	if m.Claim != NoColor {
		s = append(s, m.Claim.Letter(), ',')
	}
	s = append(s, m.From.String()...)
	s = append(s, '-')
	s = append(s, m.To.String()...)
	return string(s)
}

const moveFormat = "write R,b1-b2 (claim Red, then move b1 onto b2) or b1-b2, optionally followed by #n (the move number)"

// ParseMove reads a move in the notation of the gamerz help page, case-
// insensitive: "R,b1-b2", "b1-b2", or "--", each optionally followed by "#n",
// the move number the player believes it is (num is 0 when absent).
// Surrounding spaces are ignored. Errors wrap ErrNotation and show the format.
// Whether the move is legal is the game's business (Apply).
func ParseMove(s string) (m Move, num int, err error) {
	in := s
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '#'); i >= 0 {
		n, err := strconv.Atoi(s[i+1:])
		if err != nil || n < 1 || s[i+1] == '+' {
			return Pass, 0, fmt.Errorf("%w %q: the move number after # must be a positive number; %s", ErrNotation, in, moveFormat)
		}
		num, s = n, strings.TrimSpace(s[:i])
	}
	if s == "--" {
		return Pass, num, nil
	}
	if len(s) >= 2 && s[1] == ',' {
		m.Claim = colorFromLetter(s[0])
		if m.Claim == NoColor {
			return Pass, 0, fmt.Errorf("%w %q: %q is not a colour (I, B, R, G, K); %s", ErrNotation, in, s[:1], moveFormat)
		}
		s = s[2:]
	}
	from, to, ok := strings.Cut(s, "-")
	if !ok {
		return Pass, 0, fmt.Errorf("%w %q: %s", ErrNotation, in, moveFormat)
	}
	var okFrom, okTo bool
	m.From, okFrom = parsePoint(from)
	m.To, okTo = parsePoint(to)
	switch {
	case !okFrom:
		return Pass, 0, fmt.Errorf("%w %q: no point %q on the board; %s", ErrNotation, in, from, moveFormat)
	case !okTo:
		return Pass, 0, fmt.Errorf("%w %q: no point %q on the board; %s", ErrNotation, in, to, moveFormat)
	}
	return m, num, nil
}
