package yinsh

import (
	"fmt"
	"strings"

	"lyngk.example/lyngk/engine/games"
)

// Variant is the rule set, named by Rules' Variants: Normal (three rows
// win) or Blitz (one row, rulebook J).
type Variant uint8

// The variants.
const (
	Normal Variant = iota
	Blitz
)

// Figures of the game (rulebook A, C).
const (
	RingsEach   = 5
	PoolMarkers = 51
	placements  = 2 * RingsEach
)

// maxHistory bounds the record. Every ring move puts one marker on the
// board and at most 5 rows (25 markers) ever leave it before a player has
// removed his third ring, so there are at most 51+25 = 76 ring moves; at
// most 5 turns of removals alone; 10 placements; and a pass only after one
// of those turns (or at the very start of the movement phase): 173 in all.
const maxHistory = 176

// board is the position: rings and markers by colour (0 white, 1 black),
// rings removed, rings placed.
type board struct {
	rings   [2]set
	markers [2]set
	removed [2]uint8
	placed  uint8
}

// Game is a YINSH position with its record. It holds fixed-size arrays only:
// a Game is a value, and copying it takes a full snapshot.
type Game struct {
	b       board
	variant Variant
	status  games.Outcome
	turn    uint8 // 1 (white) or 2 (black); 0 when over
	winner  uint8
	nhist   uint8
	hist    [maxHistory]Turn
}

// New returns the empty board, white (player 1) to place the first ring.
func New(v Variant) Game { return Game{variant: v, turn: 1} }

// target is the number of removed rings that wins.
func (g *Game) target() uint8 {
	if g.variant == Blitz {
		return 1
	}
	return 3
}

// TurnError is the error of an illegal turn: the turn and the reason, which
// names the points and cites the rulebook. It wraps ErrIllegalTurn.
type TurnError struct {
	Turn   Turn
	Reason string
}

func (e *TurnError) Error() string { return e.Reason }

// Unwrap makes a TurnError an ErrIllegalTurn.
func (e *TurnError) Unwrap() error { return ErrIllegalTurn }

// Apply plays t for the player to move: the removals owed, the placement or
// ring move, the mover's removals, as one action. A row left out (the short
// form) is the only row there is at that point. Then the end of the game
// and the automatic passes are settled. Errors wrap ErrIllegalTurn (a
// *TurnError) or ErrGameOver; on error g is unchanged. The record keeps the
// long form (see Moves).
func (g *Game) Apply(t Turn) error {
	if g.status != games.Playing || g.turn == 0 {
		return ErrGameOver
	}
	b, long, won, err := g.check(t)
	if err != nil {
		return err
	}
	me := g.turn
	g.b = b
	g.hist[g.nhist] = long
	g.nhist++
	if won {
		g.status, g.winner, g.turn = games.Won, me, 0
		return nil
	}
	g.settle(3 - me)
	return nil
}

// Play applies a turn Legal listed for this position, the game going on,
// without checking it again: the robot's search, which plays every turn
// Legal lists, spares Apply's checks (a fifth of its CPU a node). A turn
// Legal did not list leaves a position the rules do not know; every other
// caller uses Apply.
func (g *Game) Play(t Turn) {
	me := g.turn - 1
	b := &g.b
	for _, r := range t.Pre[:t.NPre] {
		b.removeRow(me, rowOf(r.From, r.To), r.Ring)
	}
	switch t.Action {
	case Place:
		b.rings[me].add(t.To)
		b.placed++
	case Move:
		b.move(me, t.From, t.To)
	}
	for _, r := range t.Post[:t.NPost] {
		b.removeRow(me, rowOf(r.From, r.To), r.Ring)
	}
	g.hist[g.nhist] = t
	g.nhist++
	if b.removed[me] == g.target() {
		g.status, g.winner, g.turn = games.Won, me+1, 0
		return
	}
	g.settle(2 - me)
}

// settle ends the game when the pool is empty (rulebook H), else gives the
// turn to next if he owes a removal or can move, else records his pass and
// gives it back, else (neither can move) ends the game.
func (g *Game) settle(next uint8) {
	switch {
	case g.b.pool() == 0:
		g.finish()
	case g.b.hasRow(next-1) || g.b.canMove(next-1):
		g.turn = next
	case g.b.canMove(2 - next):
		g.hist[g.nhist] = Pass
		g.nhist++
		g.turn = 3 - next
	default:
		g.finish()
	}
}

// finish decides a game ended without a third ring: more rings removed
// wins, equal is a tie (rulebook H).
func (g *Game) finish() {
	g.turn = 0
	switch r := g.b.removed; {
	case r[0] > r[1]:
		g.status, g.winner = games.Won, 1
	case r[0] < r[1]:
		g.status, g.winner = games.Won, 2
	default:
		g.status, g.winner = games.Tie, 0
	}
}

// check plays t on a copy of the position and returns it with the turn in
// long form and whether the mover won during it, or why t is illegal.
func (g *Game) check(t Turn) (b board, long Turn, won bool, err error) {
	me := g.turn - 1
	b = g.b
	fail := func(format string, args ...any) (board, Turn, bool, error) {
		return g.b, t, false, &TurnError{Turn: t, Reason: fmt.Sprintf(format, args...)}
	}
	if t.IsPass() {
		return fail("nobody passes by choice: a player who owes no removal and cannot move a ring passes automatically")
	}
	long.NPre, long.NPost = t.NPre, t.NPost
	removals := func(rs []Removal, out []Removal, when string) (int, string) {
		i := 0
		for b.hasRow(me) {
			if i == len(rs) {
				return i, fmt.Sprintf("you have a row to remove %s: %s (rulebook G2, G6)", when, b.rowList(me))
			}
			r := rs[i]
			w := -1
			if r.From == NoPoint {
				rows := b.rows(me)
				if n := rows.count(); n > 1 {
					return i, fmt.Sprintf("%d rows can be removed at that point (%s): name the row, as in %s;x%s", n, b.rowList(me), strings.Split(b.rowList(me), ", ")[0], r.Ring)
				}
				w = int(rows.first())
			} else {
				w = rowOf(r.From, r.To)
				if w < 0 {
					return i, fmt.Sprintf("the row x%s-%s is not five points in a straight line (rulebook G1)", r.From, r.To)
				}
				if !b.markers[me].covers(geo.windows[w].mask) {
					return i, fmt.Sprintf("the row x%s-%s is not five markers of your colour; your rows: %s (rulebook G1, G4)", r.From, r.To, b.rowList(me))
				}
			}
			if !r.Ring.valid() || !b.rings[me].has(r.Ring) {
				return i, fmt.Sprintf("there is no ring of yours on %s to remove (rulebook G3)", r.Ring)
			}
			b.removeRow(me, w, r.Ring)
			out[i] = Removal{From: geo.windows[w].from, To: geo.windows[w].to, Ring: r.Ring}
			i++
			if b.removed[me] == g.target() {
				won = true
				return i, ""
			}
		}
		if i < len(rs) {
			return i, fmt.Sprintf("you have no row of your colour to remove %s (rulebook G)", when)
		}
		return i, ""
	}
	done := func() (board, Turn, bool, error) {
		return fail("your removal of a ring wins the game (rulebook H): the turn ends there")
	}
	n, why := removals(t.Pre[:t.NPre], long.Pre[:], "before your move")
	if why != "" {
		return fail("%s", why)
	}
	if won {
		if int(t.NPre) > n || t.Action != NoAction || t.NPost > 0 {
			return done()
		}
		return b, long, true, nil
	}
	switch {
	case b.placed < placements:
		if t.Action != Place {
			return fail("the rings are still being placed: write the point of your ring, as in e3 (rulebook D)")
		}
		if !t.To.valid() || b.rings[0].has(t.To) || b.rings[1].has(t.To) {
			return fail("the point %s already holds a ring (rulebook D)", t.To)
		}
		b.rings[me].add(t.To)
		b.placed++
		long.Action, long.To = Place, t.To
	case !b.canMove(me):
		if t.Action != NoAction {
			return fail("you cannot move any ring: your turn is the removals you owe alone")
		}
	default:
		switch t.Action {
		case NoAction:
			return fail("after the removals you owe, you must move a ring, as in h7-g7 (rulebook E)")
		case Place:
			return fail("all rings are placed: move a ring, as in h7-g7 (rulebook E)")
		}
		if why := b.checkMove(me, t.From, t.To); why != "" {
			return fail("%s", why)
		}
		b.move(me, t.From, t.To)
		long.Action, long.From, long.To = Move, t.From, t.To
	}
	n, why = removals(t.Post[:t.NPost], long.Post[:], "after your move")
	if why != "" {
		return fail("%s", why)
	}
	if won && int(t.NPost) > n {
		return done()
	}
	return b, long, won, nil
}

// pool is the number of markers off the board.
func (b *board) pool() int { return PoolMarkers - b.markers[0].or(b.markers[1]).count() }

// hasRow reports whether colour c has five adjacent markers on a line.
func (b *board) hasRow(c uint8) bool { return b.rows(c) != (set{}) }

// rows returns the windows that are rows of colour c.
func (b *board) rows(c uint8) set {
	if b.markers[c].count() < 5 {
		return set{}
	}
	return b.rowsThrough(c, b.markers[c])
}

// rowList names the rows of colour c, "xb2-b6, xc3-c7".
func (b *board) rowList(c uint8) string {
	var s []string
	for ws := b.rows(c); ws != (set{}); {
		w := geo.windows[ws.first()]
		ws.del(ws.first())
		s = append(s, "x"+w.from.String()+"-"+w.to.String())
	}
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// removeRow takes the markers of window w and colour c's ring on p off the
// board.
func (b *board) removeRow(c uint8, w int, ring Point) {
	m := geo.windows[w].mask
	b.markers[c][0] &^= m[0]
	b.markers[c][1] &^= m[1]
	b.rings[c].del(ring)
	b.removed[c]++
}

// occupied returns the points holding a ring or a marker.
func (b *board) occupied() set {
	return b.rings[0].or(b.rings[1]).or(b.markers[0]).or(b.markers[1])
}

// canMove reports whether colour c has a ring with a move (rulebook E).
func (b *board) canMove(c uint8) bool {
	if b.placed < placements {
		return true
	}
	rings := b.rings[0].or(b.rings[1])
	marks := b.markers[0].or(b.markers[1])
	for r := b.rings[c]; r != (set{}); {
		p := r.first()
		r.del(p)
		for d := range directions {
			for _, q := range p.rays(d) {
				if rings.has(q) {
					break
				}
				if !marks.has(q) {
					return true
				}
			}
		}
	}
	return false
}

// checkMove returns why colour c's ring cannot move from p to q, or "".
func (b *board) checkMove(c uint8, p, q Point) string {
	switch {
	case !p.valid() || !b.rings[c].has(p):
		if p.valid() && b.rings[1-c].has(p) {
			return fmt.Sprintf("the ring on %s is your opponent's (rulebook E2)", p)
		}
		return fmt.Sprintf("there is no ring of yours on %s (rulebook E2)", p)
	case !b.canMoveRing(p):
		return fmt.Sprintf("the ring on %s cannot move: every line from it is blocked (rulebook E3)", p)
	}
	rings := b.rings[0].or(b.rings[1])
	marks := b.markers[0].or(b.markers[1])
	if d := geo.dir[p][q]; d >= 0 {
		jumped := false
		for _, r := range p.rays(int(d)) {
			switch {
			case r == q && (rings.has(r) || marks.has(r)):
				return fmt.Sprintf("the point %s is not vacant: a ring lands on a vacant point (rulebook E3)", q)
			case r == q:
				return ""
			case rings.has(r):
				return fmt.Sprintf("the ring on %s is in the way: a ring never jumps over a ring (rulebook E3)", r)
			case marks.has(r):
				jumped = true
			case jumped:
				return fmt.Sprintf("after jumping markers a ring stops on the first vacant point, %s (rulebook E3)", r)
			}
		}
	}
	return fmt.Sprintf("the point %s is not on a straight line from %s (rulebook E3)", q, p)
}

func (b *board) canMoveRing(p Point) bool {
	rings := b.rings[0].or(b.rings[1])
	marks := b.markers[0].or(b.markers[1])
	for d := range directions {
		for _, q := range p.rays(d) {
			if rings.has(q) {
				break
			}
			if !marks.has(q) {
				return true
			}
		}
	}
	return false
}

// rowsIn returns the windows of cand that are rows of colour c.
func (b *board) rowsIn(c uint8, cand set) set {
	var rows set
	for cand != (set{}) {
		w := cand.first()
		cand.del(w)
		if b.markers[c].covers(geo.windows[w].mask) {
			rows.add(w)
		}
	}
	return rows
}

// rowsThrough returns the rows of colour c that hold a point of pts: for
// each such marker and line, the run of c's markers through it is measured
// along the precomputed rays, and every window inside a run of five or
// more is a row.
func (b *board) rowsThrough(c uint8, pts set) set {
	var rows set
	m := b.markers[c]
	pts[0] &= m[0]
	pts[1] &= m[1]
	for pts != (set{}) {
		p := pts.first()
		pts.del(p)
		for k := range 3 {
			fwd, back := p.rays(2*k), p.rays(2*k+1)
			nf := 0
			for nf < len(fwd) && m.has(fwd[nf]) {
				nf++
			}
			nb := 0
			for nb < len(back) && m.has(back[nb]) {
				nb++
			}
			if 1+nf+nb < 5 {
				continue
			}
			start := p
			if nb > 0 {
				start = back[nb-1]
			}
			rows.add(Point(geo.windowAt[start][k]))
			for j := range nf + nb - 4 {
				rows.add(Point(geo.windowAt[start.rays(2 * k)[j]][k]))
			}
		}
	}
	return rows
}

// move puts a marker of colour c on p, moves the ring to q and flips the
// markers in between (rulebook E, F), and returns the points whose marker
// changed: a new row holds one of them. The move is known to be legal.
func (b *board) move(c uint8, p, q Point) set {
	b.markers[c].add(p)
	b.rings[c].del(p)
	b.rings[c].add(q)
	var flip set
	for _, r := range p.rays(int(geo.dir[p][q])) {
		if r == q {
			break
		}
		flip.add(r)
	}
	// Between p and q lie vacant points, then markers: flip them all.
	for i := range flip {
		w, k := b.markers[0][i], b.markers[1][i]
		b.markers[0][i] = w&^flip[i] | k&flip[i]
		b.markers[1][i] = k&^flip[i] | w&flip[i]
		flip[i] &= w | k
	}
	flip.add(p)
	return flip
}
