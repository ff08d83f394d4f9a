package lyngk

import "fmt"

// NumPoints is the number of intersections on the board.
const NumPoints = 43

// Point is an intersection of the board, 0..NumPoints-1. Points are numbered
// along the lattice: by y (bottom to top), then by column. Every upward
// direction therefore leads to higher numbers, which lets a ray find its first
// occupied point with a single bit scan.
type Point int8

// NoPoint marks the absence of a point (the squares of a Pass).
const NoPoint Point = -1

// columnSize and columnBase describe the lattice (SPEC §1): column x holds
// columnSize[x] points at y = 2*(row-1) + columnBase[x].
var (
	columnSize = [9]int8{1, 4, 7, 6, 7, 6, 7, 4, 1}
	columnBase = [9]int8{6, 3, 0, 1, 0, 1, 0, 3, 6}
)

// The six directions, upward ones first: (0,+2), (+1,+1), (-1,+1), then their
// opposites. a1-e4-i1 is not a line: (±2,0) is not a direction.
var directions = [6][2]int8{{0, 2}, {1, 1}, {-1, 1}, {0, -2}, {-1, -1}, {1, -1}}

const (
	latticeW = 9
	latticeH = 13
)

// geometry holds the precomputed tables of the board.
type geometry struct {
	x, y, row [NumPoints]int8
	at        [latticeW][latticeH]Point
	// ray[p][d] is the set of points met walking from p in direction d
	// (p itself excluded); d < 3 are the upward directions.
	ray [NumPoints][6]uint64
	// dir[p][q] is the direction from p to q when they share a line, else -1.
	dir [NumPoints][NumPoints]int8
	// start is the order in which gamerz fills the board: row 1 first,
	// columns a..i within a row.
	start [NumPoints]Point
}

var geo = newGeometry()

func newGeometry() *geometry {
	g := &geometry{}
	for x := range g.at {
		for y := range g.at[x] {
			g.at[x][y] = NoPoint
		}
	}
	n := 0
	for y := int8(0); y < latticeH; y++ {
		for x := int8(0); x < latticeW; x++ {
			d := y - columnBase[x]
			if d < 0 || d%2 != 0 || d/2 >= columnSize[x] {
				continue
			}
			g.x[n], g.y[n], g.row[n] = x, y, d/2+1
			g.at[x][y] = Point(n)
			n++
		}
	}
	for p := range NumPoints {
		for q := range NumPoints {
			g.dir[p][q] = -1
		}
		for d, dir := range directions {
			x, y := g.x[p]+dir[0], g.y[p]+dir[1]
			for q := g.lookup(x, y); q != NoPoint; q = g.lookup(x, y) {
				g.ray[p][d] |= 1 << q
				g.dir[p][q] = int8(d)
				x, y = x+dir[0], y+dir[1]
			}
		}
	}
	n = 0
	for row := int8(1); row <= 7; row++ {
		for x := range int8(latticeW) {
			if row <= columnSize[x] {
				g.start[n] = g.at[x][2*(row-1)+columnBase[x]]
				n++
			}
		}
	}
	return g
}

func (g *geometry) lookup(x, y int8) Point {
	if x < 0 || x >= latticeW || y < 0 || y >= latticeH {
		return NoPoint
	}
	return g.at[x][y]
}

// ParsePoint reads a point such as "b4" (case-insensitive).
func ParsePoint(s string) (Point, error) {
	if p, ok := parsePoint(s); ok {
		return p, nil
	}
	return NoPoint, fmt.Errorf("%w: no point %q on the board (columns a-i, rows from 1, e.g. b4)", ErrNotation, s)
}

func parsePoint(s string) (Point, bool) {
	if len(s) != 2 {
		return NoPoint, false
	}
	c := s[0] | 0x20
	if c < 'a' || c > 'i' || s[1] < '1' || s[1] > '7' {
		return NoPoint, false
	}
	x := int8(c - 'a')
	row := int8(s[1] - '0')
	if row > columnSize[x] {
		return NoPoint, false
	}
	return geo.at[x][2*(row-1)+columnBase[x]], true
}

// String returns the point's name, "a1".."i1"; "??" for a value that is no
// point.
func (p Point) String() string {
	if !p.valid() {
		return "??"
	}
	return string([]byte{'a' + byte(geo.x[p]), '0' + byte(geo.row[p])})
}

func (p Point) valid() bool { return p >= 0 && p < NumPoints }

// Lattice returns the point's lattice coordinates (SPEC §1): x the column
// index (a = 0), y = 2*(row-1) + the column's base, so the board's real
// geometry is x·√3 by y in units of half a line's length. It returns -1, -1
// for a value that is no point. Renderers use it (package lyngkpicture).
func (p Point) Lattice() (x, y int) {
	if !p.valid() {
		return -1, -1
	}
	return int(geo.x[p]), int(geo.y[p])
}
