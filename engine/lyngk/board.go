package lyngk

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	stack6Line  = "Stack6 Mode"
	colorsLabel = "Available Colors: "
	columnsLine = "   A   B   C   D   E   F   G   H   I"
	sizesLine   = "   1   4   7   6   7   6   7   4   1"
	footerLine  = "   1   1   1   1   1   1   1   1   1"
	emptyField  = "   -    "
	blankField  = "        "
	fieldWidth  = 8
	rowFields   = 5
	oddIndent   = "    "
)

// Board returns the gamerz board block (SPEC §2), byte-exact: for stack6 the
// line "Stack6 Mode", the free colours, one line per player (names[0] is
// player 1), a blank line, the column header, the 13 rows, a blank line and
// the footer. Every line ends in "\n"; trailing spaces are part of the
// layout.
func (g *Game) Board(names [2]string) string {
	var b strings.Builder
	b.Grow(1024)
	if g.variant == Stack6 {
		b.WriteString(stack6Line + "\n")
	}
	b.WriteString(colorsLabel)
	writeColors(&b, g.Free())
	b.WriteByte('\n')
	for i, name := range names {
		fmt.Fprintf(&b, "%s: %d stacks ", name, g.removed[i])
		writeColors(&b, g.claims[i][:g.nclaims[i]])
		b.WriteString(" claimed.\n")
	}
	b.WriteString("\n" + columnsLine + "\n" + sizesLine + "\n\n")
	for r := range latticeH {
		y := int8(latticeH - 1 - r)
		x0 := int8(0)
		if r%2 == 1 {
			b.WriteString(oddIndent)
			x0 = 1
		}
		for f := range int8(rowFields) {
			p := geo.lookup(x0+2*f, y)
			switch {
			case p == NoPoint:
				b.WriteString(blankField)
			case g.h[p] == 0:
				b.WriteString(emptyField)
			default:
				h := int(g.h[p])
				b.WriteString(blankField[:(8-h)/2])
				b.WriteString(g.Stack(p))
				b.WriteString(blankField[:(7-h)/2+1])
			}
		}
		b.WriteByte('\n')
	}
	b.WriteString("\n" + columnsLine + "\n" + footerLine + "\n")
	return b.String()
}

func writeColors(b *strings.Builder, cs []Color) {
	b.WriteByte('(')
	for i, c := range cs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(c.Name())
	}
	b.WriteByte(')')
}

// ParseBoard reads a board block as Board writes it, with or without the
// "Stack6 Mode" line: the stacks, the player names, their claims and removed
// stacks. Blank lines around the block, CRLF line ends and missing trailing
// spaces are tolerated. The game has no history and player 1 to move; call
// SetTurn to choose the player and settle passes and the end of the game.
// Errors wrap ErrBadBoard and name the line.
func ParseBoard(block string) (g Game, names [2]string, err error) {
	lines := strings.Split(strings.ReplaceAll(block, "\r\n", "\n"), "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " \t\r")
	}
	skipped := 0
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
		skipped++
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	bad := func(line int, format string, args ...any) error {
		return fmt.Errorf("%w: line %d: %s", ErrBadBoard, skipped+line+1, fmt.Sprintf(format, args...))
	}
	g.turn = 1
	i := 0
	if len(lines) > 0 && lines[0] == stack6Line {
		g.variant = Stack6
		i++
	}
	if len(lines)-i != 23 {
		return Game{}, names, fmt.Errorf("%w: a board block has 23 lines after the optional %q, not %d", ErrBadBoard, stack6Line, len(lines)-i)
	}
	first := i

	// The free colours are implied by the claims; they must agree.
	freeText, ok := strings.CutPrefix(lines[i], colorsLabel)
	if !ok {
		return Game{}, names, bad(i, "want %q", colorsLabel+"(...)")
	}
	free, ok := parseColors(freeText)
	if !ok {
		return Game{}, names, bad(i, "want a list of colours such as (Ivory,blacK)")
	}
	i++
	for pl := range 2 {
		name, rest, ok := strings.Cut(lines[i], ": ")
		if !ok || !validName(name) {
			return Game{}, names, bad(i, "want NAME: N stacks (Colour,...) claimed.")
		}
		num, rest, ok := strings.Cut(rest, " stacks ")
		n, err := strconv.Atoi(num)
		if !ok || err != nil || n < 0 || n > 8 || strconv.Itoa(n) != num {
			return Game{}, names, bad(i, "want NAME: N stacks (Colour,...) claimed.")
		}
		list, ok := strings.CutSuffix(rest, " claimed.")
		cs, okc := parseColors(list)
		if !ok || !okc || len(cs) > 2 {
			return Game{}, names, bad(i, "want at most two colours, as in NAME: N stacks (Blue,Green) claimed.")
		}
		for _, c := range cs {
			if c == Joker || g.owner[c] != 0 {
				return Game{}, names, bad(i, "%s cannot be claimed here", c.Name())
			}
			g.owner[c] = uint8(pl + 1)
			g.claims[pl][g.nclaims[pl]] = c
			g.nclaims[pl]++
		}
		names[pl] = name
		g.removed[pl] = uint8(n)
		i++
	}
	if want := g.Free(); !slices.Equal(free, want) {
		return Game{}, names, bad(first, "the available colours do not match the claims")
	}
	if g.variant == Stack6 && g.removed[0]+g.removed[1] > 0 {
		return Game{}, names, bad(first+1, "no stack is ever removed in stack6")
	}
	for _, want := range []string{"", columnsLine, sizesLine, ""} {
		if lines[i] != want {
			return Game{}, names, bad(i, "want %q (the column header)", want)
		}
		i++
	}
	var count [Joker + 1]int
	for _, n := range g.removed {
		// Each removed stack holds 5 pieces; colours cannot be told apart
		// afterwards, so only the total is checked below.
		count[NoColor] += 5 * int(n)
	}
	for r := range latticeH {
		line := lines[i+r]
		y := int8(latticeH - 1 - r)
		x0 := int8(0)
		if r%2 == 1 {
			rest, ok := strings.CutPrefix(line, oddIndent)
			if !ok && line != "" {
				return Game{}, names, bad(i+r, "odd rows start with 4 spaces")
			}
			line, x0 = rest, 1
		}
		if len(line) > rowFields*fieldWidth {
			return Game{}, names, bad(i+r, "row too long")
		}
		line += strings.Repeat(" ", rowFields*fieldWidth-len(line))
		for f := range int8(rowFields) {
			field := line[f*fieldWidth : (f+1)*fieldWidth]
			p := geo.lookup(x0+2*f, y)
			if p == NoPoint {
				if field != blankField {
					return Game{}, names, bad(i+r, "field %d has no point and must be blank", f+1)
				}
				continue
			}
			if field == emptyField {
				continue
			}
			s := strings.TrimSpace(field)
			h := len(s)
			if h == 0 || h > int(g.maxHeight()) || field != blankField[:(8-h)/2]+s+blankField[:(7-h)/2+1] {
				return Game{}, names, bad(i+r, "%s: want a stack (top piece first, as in %q) or %q", p, "  KBI   ", emptyField)
			}
			var pcs uint32
			var mask uint8
			for k := range h {
				c := colorFromLetter(s[k])
				if c == NoColor || s[k] != c.Letter() {
					return Game{}, names, bad(i+r, "%s: %q is not a piece (I, B, R, G, K, J)", p, s[k:k+1])
				}
				if c != Joker {
					if mask&(1<<c) != 0 {
						return Game{}, names, bad(i+r, "%s: two %s pieces in one stack (rulebook E5)", p, c.Name())
					}
					mask |= 1 << c
				}
				count[c]++
				pcs = pcs<<3 | uint32(c)
			}
			g.put(p, pcs, uint8(h))
		}
	}
	i += latticeH
	for _, want := range []string{"", columnsLine, footerLine} {
		if lines[i] != want {
			return Game{}, names, bad(i, "want %q (the column footer)", want)
		}
		i++
	}
	total := count[NoColor]
	for c := Ivory; c <= Joker; c++ {
		limit := 8
		if c == Joker {
			limit = 3
		}
		if count[c] > limit {
			return Game{}, names, bad(first, "%d %s pieces, the game has %d", count[c], c.Name(), limit)
		}
		total += count[c]
	}
	if total > NumPoints {
		return Game{}, names, bad(first, "%d pieces, the game has %d", total, NumPoints)
	}
	return g, names, nil
}

// validName accepts a userid: printable, no spaces, quotes or colons.
func validName(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) || r == ':' || r == '"' || r == '\'' {
			return false
		}
	}
	return true
}

// parseColors reads "(Ivory,blacK)", in the display spelling.
func parseColors(s string) ([]Color, bool) {
	inner, ok1 := strings.CutPrefix(s, "(")
	inner, ok2 := strings.CutSuffix(inner, ")")
	if !ok1 || !ok2 {
		return nil, false
	}
	if inner == "" {
		return nil, true
	}
	var cs []Color
	for name := range strings.SplitSeq(inner, ",") {
		c := Ivory
		for c <= Black && colorNames[c] != name {
			c++
		}
		if c > Black {
			return nil, false
		}
		cs = append(cs, c)
	}
	return cs, true
}
