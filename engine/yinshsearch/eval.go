package yinshsearch

import (
	"math/bits"

	"lyngk.example/lyngk/engine/yinsh"
)

// bitset is a set of points as yinsh.Game.Bits gives them: point p is
// bit p%64 of word p/64.
type bitset [2]uint64

func (s bitset) has(p yinsh.Point) bool { return s[p>>6]>>(p&63)&1 != 0 }
func (s *bitset) add(p yinsh.Point)     { s[p>>6] |= 1 << (p & 63) }
func (s bitset) and(t bitset) bitset    { return bitset{s[0] & t[0], s[1] & t[1]} }
func (s bitset) or(t bitset) bitset     { return bitset{s[0] | t[0], s[1] | t[1]} }
func (s bitset) count() int             { return bits.OnesCount64(s[0]) + bits.OnesCount64(s[1]) }

// lines is the board as the evaluation sees it: the rays of every point in
// the six directions, and the 5-point windows of every line (the possible
// rows) as sets of points. It is built from the points' columns and
// numbers, with the directions of the rules (rulebook B): along a column,
// along a row, along a diagonal.
type lines struct {
	ray     [yinsh.NumPoints][6][]yinsh.Point
	windows []bitset
	// sight[p] holds the points on the six lines from p: the rings there
	// may jump p.
	sight [yinsh.NumPoints]bitset
}

var board = newLines()

func newLines() *lines {
	var at [11][12]yinsh.Point
	for i := range at {
		for n := range at[i] {
			at[i][n] = yinsh.NoPoint
		}
	}
	for p := range yinsh.Point(yinsh.NumPoints) {
		at[p.Column()][p.Number()] = p
	}
	lookup := func(i, n int) yinsh.Point {
		if i < 0 || i >= 11 || n < 0 || n >= 12 {
			return yinsh.NoPoint
		}
		return at[i][n]
	}
	dirs := [6][2]int{{0, 1}, {0, -1}, {1, 0}, {-1, 0}, {1, 1}, {-1, -1}}
	l := &lines{}
	for p := range yinsh.Point(yinsh.NumPoints) {
		for d, dir := range dirs {
			for i, n := p.Column()+dir[0], p.Number()+dir[1]; lookup(i, n) != yinsh.NoPoint; i, n = i+dir[0], n+dir[1] {
				l.ray[p][d] = append(l.ray[p][d], lookup(i, n))
				l.sight[p].add(lookup(i, n))
			}
		}
		for k := 0; k < 6; k += 2 {
			r := l.ray[p][k]
			if len(r) < 4 {
				continue
			}
			var w bitset
			for _, q := range [5]yinsh.Point{p, r[0], r[1], r[2], r[3]} {
				w.add(q)
			}
			l.windows = append(l.windows, w)
		}
	}
	return l
}

// view is what the evaluation reads of a position: the pieces by colour
// (0 white, 1 black), the rings removed, the colour to move, and whether
// rings are still being placed.
type view struct {
	rings, markers [2]bitset
	removed        [2]int
	toMove         int
	placing        bool
}

func viewOf(g *yinsh.Game) view {
	r, m := g.Bits()
	return view{
		rings:   [2]bitset{r[0], r[1]},
		markers: [2]bitset{m[0], m[1]},
		removed: [2]int{g.Removed(1), g.Removed(2)},
		toMove:  g.Turn() - 1,
		placing: g.Placing(),
	}
}

// weights are the evaluation's, in thousandths of a ring removed. A ring
// removed is the only thing that counts in the end (rulebook H), so it
// outweighs everything else: the markers and rows are worth what they
// promise of rings to come.
type weights struct {
	ring int
	// row is a row of five on the board: its owner removes it with a ring
	// at the start of his turn (rulebook G6), so it is nearly a ring
	// already.
	row int
	// readyMover and readyOther are a window of four markers and a ring of
	// the same colour on its fifth point: moving the ring away leaves the
	// fifth marker. For the player to move it is nearly a row; for the
	// other, a threat the mover must answer.
	readyMover, readyOther int
	// flip is a window of four markers and one of the opponent's without
	// rings, with a ring of the colour on a line through that marker: a
	// ring jumping it makes the row.
	flip int
	// mobility is each point a ring can move to, up to freeMoves a ring:
	// rings that can move make rows and break the opponent's.
	mobility int
	// marker is each marker of a colour on the board.
	marker int
	// run is the worth of a window holding n markers of one colour and
	// none of the other's (and no ring of the other's, which would leave a
	// marker there on moving): open runs of three and four promise rows.
	run [6]int
}

// standard are the robot's weights.
var standard = weights{ring: 1000, row: 800, readyMover: 450, readyOther: 120, flip: 40, mobility: 25, marker: 4,
	run: [6]int{0, 1, 6, 30, 110, 0}}

// score evaluates v for white: positive when white stands better. Swapping
// the colours (and the player to move) negates it.
func score(v *view) int {
	s, _ := evaluate(v, &standard)
	return s
}

// evaluate is score, and whether the player to move may make a row at
// once: a window of four of his markers with his ring or one of the
// opponent's markers on the fifth point (the search then looks at the
// turns that make rows before it trusts the score).
func evaluate(v *view, w *weights) (int, bool) {
	var side, ready, flips [2]int
	var row [2]bool
	anyMarker := v.markers[0].or(v.markers[1])
	for _, mask := range board.windows {
		if anyMarker[0]&mask[0]|anyMarker[1]&mask[1] == 0 {
			continue
		}
		m := [2]int{v.markers[0].and(mask).count(), v.markers[1].and(mask).count()}
		for c := range 2 {
			mine, theirs := m[c], m[1-c]
			switch {
			case mine == 0:
			case mine == 5:
				row[c] = true
			case theirs == 0:
				if v.rings[1-c].and(mask).nonEmpty() {
					continue
				}
				side[c] += w.run[mine]
				if mine == 4 && v.rings[c].and(mask).nonEmpty() {
					ready[c]++
				}
			case mine == 4 && !v.rings[0].or(v.rings[1]).and(mask).nonEmpty() &&
				v.rings[c].and(board.sight[first(v.markers[1-c].and(mask))]).nonEmpty():
				side[c] += w.flip
				flips[c]++
			}
		}
	}
	for c := range 2 {
		side[c] += w.ring*v.removed[c] + w.marker*v.markers[c].count() + w.mobility*mobility(v, c)
		if row[c] {
			side[c] += w.row
		}
		switch {
		case ready[c] == 0:
		case c == v.toMove:
			side[c] += w.readyMover + w.readyOther*(ready[c]-1)
		default:
			side[c] += w.readyOther * ready[c]
		}
	}
	return side[0] - side[1], ready[v.toMove]+flips[v.toMove] > 0
}

func (s bitset) nonEmpty() bool { return s[0]|s[1] != 0 }

// mobility counts the freedom of colour c's rings (rulebook E3): for
// each ring, its destinations (the vacant points along each line up to a
// ring, and the first vacant point after a run of markers), up to
// freeMoves. A ring hemmed in can neither make rows nor break them; one
// with a few moves is as good as one with many (matches of the robot
// against a variant counting every destination said so).
func mobility(v *view, c int) int {
	rings := v.rings[0].or(v.rings[1])
	marks := v.markers[0].or(v.markers[1])
	total := 0
	for r := v.rings[c]; r.nonEmpty(); {
		p := first(r)
		r[p>>6] &^= 1 << (p & 63)
		n := 0
		for d := 0; d < 6 && n < freeMoves; d++ {
			jumped := false
			for _, q := range board.ray[p][d] {
				if rings.has(q) {
					break
				}
				if marks.has(q) {
					jumped = true
					continue
				}
				n++
				if jumped {
					break
				}
			}
		}
		total += min(n, freeMoves)
	}
	return total
}

// freeMoves is the count of destinations from which a ring is free.
const freeMoves = 4

func first(s bitset) yinsh.Point {
	if s[0] != 0 {
		return yinsh.Point(bits.TrailingZeros64(s[0]))
	}
	return yinsh.Point(64 + bits.TrailingZeros64(s[1]))
}
