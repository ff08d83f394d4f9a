package record

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"lyngk.example/lyngk/engine/games"
)

// The text record: PGN's tag lines (`[Name "value"]`, the value quoted
// with \" and \\ escaped), a blank line, then one numbered entry a line
// ("1. e3"), as the game's record holds them. Game is the game's title in
// capitals, Date the start as PGN writes it (YYYY.MM.DD, UTC), Variant the
// game's variant name; Termination is present only when the game ended
// other than by the rules.

const dateFormat = "2006.01.02"

// WriteText writes r as a text record; title is the game's name ("YINSH").
func WriteText(r Record, title string) []byte {
	var b bytes.Buffer
	tag := func(name, value string) {
		fmt.Fprintf(&b, "[%s %s]\n", name, quote(value))
	}
	tag("Game", strings.ToUpper(title))
	tag("Board", strconv.Itoa(r.Board))
	tag("White", r.Players[0])
	tag("Black", r.Players[1])
	date := "????.??.??"
	if !r.Date.IsZero() {
		date = r.Date.UTC().Format(dateFormat)
	}
	tag("Date", date)
	tag("Variant", r.Variant)
	tag("Result", r.Result)
	if r.Termination != "" {
		tag("Termination", r.Termination)
	}
	b.WriteByte('\n')
	for i, m := range r.Moves {
		fmt.Fprintf(&b, "%d. %s\n", i+1, m)
	}
	return b.Bytes()
}

func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", " ", "\r", " ").Replace(s) + `"`
}

// ReadText reads a text record of one of gs. Unknown tags are skipped;
// Game is required, the others default (Board 0, no date, the default
// variant, Result "*").
func ReadText(data []byte, gs []games.Game) (Record, error) {
	var r Record
	if len(data) > MaxBytes {
		return r, fmt.Errorf("%w: more than %d bytes", ErrFormat, MaxBytes)
	}
	r.Result = Unknown
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 4096), MaxBytes)
	line := 0
	var game games.Game
	bad := func(format string, args ...any) (Record, error) {
		return Record{}, fmt.Errorf("%w: line %d: %s", ErrFormat, line, fmt.Sprintf(format, args...))
	}
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		switch {
		case s == "":
			continue
		case strings.HasPrefix(s, "["):
			if len(r.Moves) > 0 {
				return bad("a tag after the moves")
			}
			name, value, err := readTag(s)
			if err != nil {
				return bad("%v", err)
			}
			switch name {
			case "Game":
				g, ok := Find(gs, value)
				if !ok {
					return bad("no game %q here", value)
				}
				game, r.Game = g, g.Name()
			case "Board":
				n, err := strconv.Atoi(value)
				if err != nil || n < 0 {
					return bad("the board %q is no number", value)
				}
				r.Board = n
			case "White":
				r.Players[0] = value
			case "Black":
				r.Players[1] = value
			case "Date":
				if t, err := time.Parse(dateFormat, value); err == nil {
					r.Date = t
				}
			case "Variant":
				r.Variant = value
			case "Result":
				switch value {
				case WhiteWon, BlackWon, Tie, Unknown:
					r.Result = value
				default:
					return bad("the result %q is none of 1-0, 0-1, 1/2-1/2, *", value)
				}
			case "Termination":
				r.Termination = value
			}
		default:
			num, move, ok := strings.Cut(s, ".")
			n, err := strconv.Atoi(num)
			if !ok || err != nil {
				return bad("%q is no numbered move (1. e3)", s)
			}
			if n != len(r.Moves)+1 {
				return bad("move %d where move %d was due", n, len(r.Moves)+1)
			}
			if len(r.Moves) == MaxMoves {
				return bad("more than %d moves", MaxMoves)
			}
			move = strings.TrimSpace(move)
			if move == "" {
				return bad("move %d is empty", n)
			}
			r.Moves = append(r.Moves, move)
		}
	}
	if err := sc.Err(); err != nil {
		return Record{}, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if game.Rules == nil {
		return Record{}, fmt.Errorf("%w: no [Game \"...\"] tag", ErrFormat)
	}
	if r.Variant == "" {
		r.Variant, _ = game.Variant("")
	}
	return r, nil
}

// readTag reads `[Name "value"]`.
func readTag(s string) (name, value string, err error) {
	inner, ok := strings.CutSuffix(s[1:], "]")
	name, rest, ok2 := strings.Cut(inner, " ")
	rest = strings.TrimSpace(rest)
	if !ok || !ok2 || name == "" || len(rest) < 2 || rest[0] != '"' || rest[len(rest)-1] != '"' {
		return "", "", fmt.Errorf("%q is no tag ([Name \"value\"])", s)
	}
	var b strings.Builder
	body := rest[1 : len(rest)-1]
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '\\' && i+1 < len(body):
			i++
			b.WriteByte(body[i])
		case c == '"' || c == '\\':
			return "", "", fmt.Errorf("%q: a bare %c in the value", s, c)
		default:
			b.WriteByte(c)
		}
	}
	return name, b.String(), nil
}
