package outside

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"lyngk.example/lyngk/engine/yinsh"
)

// ErrProtocol: a line of the program that is not a turn of the protocol,
// or a turn of ours the protocol cannot say (a pass).
var ErrProtocol = errors.New("outside: protocol")

// radius is the board's: the rings of points around the centre run 0..5,
// and ring 5 has no corners (the 85 points of YINSH).
const radius = 5

// centre is the middle point, f6, as (column, number).
var centre = [2]int{5, 6}

// steps are the protocol's six directions in order, as (column, number)
// steps of our notation (yinsh-board.md): north is up a column (f6 to f7),
// north-east along the diagonal (f6 to g7), south-east along the row (f6
// to g6), then their opposites. Position k*h of ring h is h steps in
// direction k from the centre; the ring's next h-1 positions follow the
// side towards direction k+2, clockwise.
var steps = [6][2]int{{0, 1}, {1, 1}, {1, 0}, {0, -1}, {-1, -1}, {-1, 0}}

// Coord is a point in the protocol's coordinates: ring Hex around the
// centre (0..5), position Pos on it (0..6*Hex-1, clockwise from north).
type Coord struct{ Hex, Pos int }

func (c Coord) String() string { return strconv.Itoa(c.Hex) + " " + strconv.Itoa(c.Pos) }

// coords and points are the mapping both ways, built once from steps.
var (
	coords [yinsh.NumPoints]Coord
	points = map[Coord]yinsh.Point{}
)

func init() {
	for h := 0; h <= radius; h++ {
		for pos := range max(6*h, 1) {
			if h == radius && pos%h == 0 {
				continue // the six corners are not points of YINSH
			}
			col, num := centre[0], centre[1]
			if h > 0 {
				k, r := pos/h, pos%h
				col += h*steps[k][0] + r*steps[(k+2)%6][0]
				num += h*steps[k][1] + r*steps[(k+2)%6][1]
			}
			p, ok := yinsh.ParsePoint(string(rune('a'+col)) + strconv.Itoa(num))
			if !ok {
				panic(fmt.Sprintf("outside: ring %d position %d is no point of YINSH", h, pos))
			}
			c := Coord{h, pos}
			coords[p], points[c] = c, p
		}
	}
	if len(points) != yinsh.NumPoints {
		panic(fmt.Sprintf("outside: %d points mapped, want %d", len(points), yinsh.NumPoints))
	}
}

// CoordOf is the protocol's coordinate of p.
func CoordOf(p yinsh.Point) Coord { return coords[p] }

// PointOf is the point at c; false when c is none of the 85.
func PointOf(c Coord) (yinsh.Point, bool) {
	p, ok := points[c]
	return p, ok
}

// ToProgram writes a turn of our record (the notation of package yinsh,
// long or short form) as the protocol's line: "P h p" for a placement,
// "S h p M h p" for a ring move, "RS h p RE h p X h p" for each row
// removed with its ring, in the order of the turn. The pass has no line.
func ToProgram(turn string) (string, error) {
	t, _, err := yinsh.ParseTurn(turn)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrProtocol, err)
	}
	if t.IsPass() {
		return "", fmt.Errorf("%w: the protocol has no pass", ErrProtocol)
	}
	var parts []string
	removals := func(rs []yinsh.Removal) error {
		for _, r := range rs {
			if r.From == yinsh.NoPoint {
				return fmt.Errorf("%w: %q: a row removal without its row", ErrProtocol, turn)
			}
			parts = append(parts, "RS "+CoordOf(r.From).String(), "RE "+CoordOf(r.To).String(), "X "+CoordOf(r.Ring).String())
		}
		return nil
	}
	if err := removals(t.Pre[:t.NPre]); err != nil {
		return "", err
	}
	switch t.Action {
	case yinsh.Place:
		parts = append(parts, "P "+CoordOf(t.To).String())
	case yinsh.Move:
		parts = append(parts, "S "+CoordOf(t.From).String(), "M "+CoordOf(t.To).String())
	}
	if err := removals(t.Post[:t.NPost]); err != nil {
		return "", err
	}
	return strings.Join(parts, " "), nil
}

// FromProgram reads the protocol's line of a turn and writes it in our
// notation, long form: each word a keyword and two numbers, a row (RS,
// RE) always followed by its ring (X), one placement (P) or selection and
// move (S, M) at most, the removals before it owed, those after it the
// mover's own. Whether the turn is legal is the rules' business.
func FromProgram(line string) (string, error) {
	w := strings.Fields(line)
	bad := func(format string, args ...any) (string, error) {
		return "", fmt.Errorf("%w: %q: %s", ErrProtocol, line, fmt.Sprintf(format, args...))
	}
	if len(w) == 0 || len(w)%3 != 0 {
		return bad("want words of a keyword and two numbers")
	}
	var parts []string
	var rowStart, rowEnd, selected string
	acted := false
	for i := 0; i < len(w); i += 3 {
		h, err1 := strconv.Atoi(w[i+1])
		pos, err2 := strconv.Atoi(w[i+2])
		p, ok := PointOf(Coord{h, pos})
		if err1 != nil || err2 != nil || !ok {
			return bad("no point %s %s", w[i+1], w[i+2])
		}
		name := p.String()
		key := w[i]
		switch {
		case key != "RE" && rowStart != "":
			return bad("RS without RE")
		case key != "X" && rowEnd != "":
			return bad("a row without its ring (X)")
		case key != "M" && selected != "":
			return bad("S without M")
		}
		switch key {
		case "P", "S":
			if acted {
				return bad("a second placement or move")
			}
			acted = true
			if key == "P" {
				parts = append(parts, name)
			} else {
				selected = name
			}
		case "M":
			if selected == "" {
				return bad("M without S")
			}
			parts, selected = append(parts, selected+"-"+name), ""
		case "RS":
			rowStart = name
		case "RE":
			if rowStart == "" {
				return bad("RE without RS")
			}
			parts = append(parts, "x"+rowStart+"-"+name)
			rowEnd, rowStart = name, ""
		case "X":
			if rowEnd == "" {
				return bad("X without a row (RS, RE)")
			}
			parts, rowEnd = append(parts, "x"+name), ""
		default:
			return bad("unknown keyword %q", key)
		}
	}
	if rowStart != "" || rowEnd != "" || selected != "" {
		return bad("the line ends in the middle of a removal or move")
	}
	// Read back through the notation: the row's ends in GIPF order, the
	// removals sorted before and after the move.
	t, _, err := yinsh.ParseTurn(strings.Join(parts, ";"))
	if err != nil {
		return bad("%v", err)
	}
	return t.String(), nil
}
