package yinsh

import (
	"math/bits"
	"strconv"
)

// NumPoints is the number of intersections of the board.
const NumPoints = 85

// Point is an intersection, 0..84, numbered column by column (a2, a3, ...,
// k10). NoPoint stands for none.
type Point int8

// NoPoint is the absence of a point.
const NoPoint Point = -1

// The columns a..k and the numbers each one holds (yinsh-board.md).
var (
	colLo = [11]int8{2, 1, 1, 1, 1, 2, 2, 3, 4, 5, 7}
	colHi = [11]int8{5, 7, 8, 9, 10, 10, 11, 11, 11, 11, 10}
)

// The six directions as (column, number) steps: up and down a column, along
// a row, along a diagonal. Directions 0, 2 and 4 lead from a point to points
// later in GIPF order; 1, 3 and 5 are their opposites.
var directions = [6][2]int8{{0, 1}, {0, -1}, {1, 0}, {-1, 0}, {1, 1}, {-1, -1}}

// set is a set of points, one bit per point.
type set [2]uint64

func (s set) has(p Point) bool  { return s[p>>6]>>(p&63)&1 != 0 }
func (s *set) add(p Point)      { s[p>>6] |= 1 << (p & 63) }
func (s *set) del(p Point)      { s[p>>6] &^= 1 << (p & 63) }
func (s set) count() int        { return bits.OnesCount64(s[0]) + bits.OnesCount64(s[1]) }
func (s set) or(t set) set      { return set{s[0] | t[0], s[1] | t[1]} }
func (s set) covers(t set) bool { return s[0]&t[0] == t[0] && s[1]&t[1] == t[1] }

// first returns the lowest point of a non-empty set.
func (s set) first() Point {
	if s[0] != 0 {
		return Point(bits.TrailingZeros64(s[0]))
	}
	return Point(64 + bits.TrailingZeros64(s[1]))
}

// window is five adjacent points on one line, a possible row, named by its
// end points in GIPF order.
type window struct {
	mask     set
	from, to Point
}

type geometry struct {
	col, num [NumPoints]int8
	index    [11][12]Point // by column and number; NoPoint off the board
	// ray[p][d] lists the points from p outwards in direction d, rayLen
	// entries.
	ray    [NumPoints][6][10]Point
	rayLen [NumPoints][6]uint8
	// windows are all the 5-point stretches of all lines; windowAt[p][k]
	// is the index of the one starting at p in direction 2k, or -1.
	windows  []window
	windowAt [NumPoints][3]int16
	// through[p] is the set of windows (by index, fewer than 128) that
	// hold p.
	through [NumPoints]set
	// dir[p][q] is the direction from p to q, -1 off the lines through p.
	dir [NumPoints][NumPoints]int8
}

var geo = newGeometry()

func newGeometry() *geometry {
	g := &geometry{}
	for i := range g.index {
		for n := range g.index[i] {
			g.index[i][n] = NoPoint
		}
	}
	p := Point(0)
	for i := range int8(11) {
		for n := colLo[i]; n <= colHi[i]; n++ {
			g.col[p], g.num[p] = i, n
			g.index[i][n] = p
			p++
		}
	}
	for p := range Point(NumPoints) {
		for q := range Point(NumPoints) {
			g.dir[p][q] = -1
		}
		for d, dir := range directions {
			i, n := g.col[p], g.num[p]
			for {
				i, n = i+dir[0], n+dir[1]
				q := g.lookup(i, n)
				if q == NoPoint {
					break
				}
				g.ray[p][d][g.rayLen[p][d]] = q
				g.dir[p][q] = int8(d)
				g.rayLen[p][d]++
			}
		}
	}
	for p := range Point(NumPoints) {
		for k := range 3 {
			g.windowAt[p][k] = -1
			if g.rayLen[p][2*k] < 4 {
				continue
			}
			w := window{from: p, to: g.ray[p][2*k][3]}
			w.mask.add(p)
			for _, q := range g.ray[p][2*k][:4] {
				w.mask.add(q)
			}
			g.windowAt[p][k] = int16(len(g.windows))
			for q := range Point(NumPoints) {
				if w.mask.has(q) {
					g.through[q].add(Point(len(g.windows)))
				}
			}
			g.windows = append(g.windows, w)
		}
	}
	return g
}

func (g *geometry) lookup(i, n int8) Point {
	if i < 0 || i >= 11 || n < 0 || n >= 12 {
		return NoPoint
	}
	return g.index[i][n]
}

// rays returns the points from p outwards in direction d.
func (p Point) rays(d int) []Point { return geo.ray[p][d][:geo.rayLen[p][d]] }

func (p Point) valid() bool { return p >= 0 && p < NumPoints }

// String returns the point in the notation, "e3"; "-" for NoPoint.
func (p Point) String() string {
	if !p.valid() {
		return "-"
	}
	return string(p.appendTo(make([]byte, 0, 3)))
}

func (p Point) appendTo(b []byte) []byte {
	b = append(b, 'a'+byte(geo.col[p]))
	return strconv.AppendInt(b, int64(geo.num[p]), 10)
}

// Column returns the point's column index (a = 0 ... k = 10).
func (p Point) Column() int { return int(geo.col[p]) }

// Number returns the point's number (1..11).
func (p Point) Number() int { return int(geo.num[p]) }

// ParsePoint reads a point, "e3" or "E3".
func ParsePoint(s string) (Point, bool) {
	if len(s) < 2 || len(s) > 3 {
		return NoPoint, false
	}
	c := s[0] | 0x20
	if c < 'a' || c > 'k' || s[1] < '1' || s[1] > '9' {
		return NoPoint, false
	}
	n := int(s[1] - '0')
	if len(s) == 3 {
		if s[2] < '0' || s[2] > '9' {
			return NoPoint, false
		}
		n = n*10 + int(s[2]-'0')
	}
	if n > 11 {
		return NoPoint, false
	}
	p := geo.lookup(int8(c-'a'), int8(n))
	return p, p != NoPoint
}

// rowOf returns the window with end points a and b in either order, or -1
// when they are not 4 steps apart on one line.
func rowOf(a, b Point) int {
	if !a.valid() || !b.valid() {
		return -1
	}
	if gipfLess(b, a) {
		a, b = b, a
	}
	dc, dn := geo.col[b]-geo.col[a], geo.num[b]-geo.num[a]
	k := -1
	switch {
	case dc == 0 && dn == 4:
		k = 0
	case dc == 4 && dn == 0:
		k = 1
	case dc == 4 && dn == 4:
		k = 2
	}
	if k < 0 {
		return -1
	}
	return int(geo.windowAt[a][k])
}

// gipfLess orders points as the GIPF notation orders a row's ends: by
// column letter, then by number. Point numbering follows the same order.
func gipfLess(a, b Point) bool { return a < b }

// Between returns the points strictly between p and q on their line, in
// order from p: the first n of pts; n is 0 when they share no line.
func Between(p, q Point) (pts [9]Point, n int) {
	if !p.valid() || !q.valid() || geo.dir[p][q] < 0 {
		return pts, 0
	}
	for _, r := range p.rays(int(geo.dir[p][q])) {
		if r == q {
			break
		}
		pts[n] = r
		n++
	}
	return pts, n
}

// Reach returns the fewest points p has on any of its six lines.
func Reach(p Point) int {
	n := 10
	for d := range directions {
		n = min(n, int(geo.rayLen[p][d]))
	}
	return n
}
