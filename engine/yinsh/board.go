package yinsh

import (
	"fmt"
	"strings"
)

// emptyBoard is the 24-line text board of pbmserv's YINSH help page, each
// point drawn as "." (yinsh-board.md). Point (i, n) is at column 4+3i of
// line 19+i-2n (1-based lines).
const emptyBoard = `
                11
             10
          9     .     .
       8     .     .     .
    7     .     .     .     .
 6     .     .     .     .     .
          .     .     .     .
 5     .     .     .     .     .
    .     .     .     .     .     .
 4     .     .     .     .     .
    .     .     .     .     .     .
 3     .     .     .     .     .
    .     .     .     .     .     .
 2     .     .     .     .     .
    .     .     .     .     .     .
 1     .     .     .     .     .
          .     .     .     .
       .     .     .     .     .
    A     .     .     .     .     K
       B     .     .     .     J
          C     .     .     I
             D           H
                E     G
                   F
`

// Board returns the text board: the 24 lines of the empty board with each
// point drawn as "." (vacant), "o" or "x" (a white or black marker), "(o)"
// or "(x)" (a white or black ring, the parentheses on the columns either
// side of the point), trailing spaces removed; then a blank line, one line
// per player (names[0] is white) with his rings on the board and removed,
// the markers in the pool, and the last turn. Every line ends in "\n".
func (g *Game) Board(names [2]string) string {
	lines := strings.Split(strings.TrimPrefix(emptyBoard, "\n"), "\n")
	rows := make([][]byte, 0, 24)
	for _, l := range lines[:24] {
		row := []byte(l)
		for len(row) < 36 {
			row = append(row, ' ')
		}
		rows = append(rows, row)
	}
	for p := range Point(NumPoints) {
		x, y := 4+3*int(geo.col[p]), 18+int(geo.col[p])-2*int(geo.num[p])
		switch pl, ring := g.Piece(p); {
		case pl == 0:
		case ring:
			rows[y][x-1], rows[y][x], rows[y][x+1] = '(', mark[pl], ')'
		default:
			rows[y][x] = mark[pl]
		}
	}
	var b strings.Builder
	b.Grow(1200)
	for _, row := range rows {
		b.WriteString(strings.TrimRight(string(row), " "))
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	if g.variant == Blitz {
		b.WriteString("Blitz: the first row wins.\n")
	}
	for pl := 1; pl <= 2; pl++ {
		fmt.Fprintf(&b, "%s (%c): %s on the board, %d removed\n", names[pl-1], mark[pl],
			count(len(g.Rings(pl)), "ring"), g.Removed(pl))
	}
	fmt.Fprintf(&b, "Markers in the pool: %d\n", g.Pool())
	last := "none"
	if t, ok := g.LastTurn(); ok {
		last = t.String()
	}
	fmt.Fprintf(&b, "Last turn: %s\n", last)
	return b.String()
}

// mark is the letter of each player's pieces: white "o", black "x".
var mark = [3]byte{'.', 'o', 'x'}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
