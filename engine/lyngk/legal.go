package lyngk

import (
	"fmt"
	"math/bits"
	"slices"

	"lyngk.example/lyngk/engine/games"
)

// MoveError is the error of an illegal move: the move and the reason, which
// names the squares and cites the rulebook. It wraps ErrIllegalMove.
type MoveError struct {
	Move   Move
	Reason string
}

func (e *MoveError) Error() string {
	return "lyngk: illegal move " + e.Move.String() + ": " + e.Reason
}

func (e *MoveError) Unwrap() error { return ErrIllegalMove }

// heights holds, for k = 0..6, the set of points whose stack is at most k
// high.
type heights [7]uint64

func (g *Game) heights() heights {
	var le heights
	for k := 1; k < len(le); k++ {
		le[k] = le[k-1] | g.hgt[k]
	}
	return le
}

// conflicts returns the points whose stacks share a colour with the stack on
// p (rulebook E5: never two pieces of one colour in a stack).
func (g *Game) conflicts(p Point) uint64 {
	var c uint64
	for m := g.mask[p]; m != 0; m &= m - 1 {
		c |= g.has[bits.TrailingZeros8(m)]
	}
	return c
}

// lyngk returns the stacks a stack on p topped by colour c (claimed by the
// mover) reaches: the first stacks met in a straight line over empty points
// from p, and from every LYNGK point reached in turn, LYNGK points being the
// other stacks topped by c (rulebook F). Each LYNGK point is used once. The
// moving stack is in hand during the move, so its own point counts as empty:
// a line from a LYNGK point through p goes on to the next stack. links
// returns the LYNGK points reached.
func (g *Game) lyngk(p Point, c Color) (reach, links uint64) {
	bit := uint64(1) << p
	all := g.tops[c] &^ bit
	reach = g.nb[p] &^ all
	pending := g.nb[p] & all
	links = pending
	for pending != 0 {
		q := Point(bits.TrailingZeros64(pending))
		pending &= pending - 1
		h := g.nb[q]
		if h&bit != 0 {
			h = h&^bit | g.beyond(q, p)
		}
		reach |= h &^ all
		pending |= h & all &^ links
		links |= h & all
	}
	return reach, links
}

// beyond returns the first stack after p on the line from q through p, q
// and p being neighbours on that line.
func (g *Game) beyond(q, p Point) uint64 {
	return g.nb[p] & geo.ray[q][geo.dir[q][p]]
}

// dests returns the points the stack on p may move onto, the stack being
// owned (topped by a colour the mover claimed) or neutral.
func (g *Game) dests(p Point, owned bool, le *heights, maxH uint8) uint64 {
	if owned {
		// Rulebook E8: any height, within the limit.
		reach, _ := g.lyngk(p, g.top[p])
		return reach & le[maxH-g.h[p]] &^ g.conflicts(p)
	}
	// Rulebook E6-E7: a neutral stack lands on stacks no higher than itself.
	return g.nb[p] & le[min(g.h[p], maxH-g.h[p])] &^ g.conflicts(p)
}

// movable returns the stacks player may move without claiming: not topped by
// a joker nor by a colour of the opponent.
func (g *Game) movable(player uint8) uint64 {
	m := g.occ &^ g.tops[Joker]
	for c := Ivory; c <= Black; c++ {
		if o := g.owner[c]; o != 0 && o != player {
			m &^= g.tops[c]
		}
	}
	return m
}

// canMove reports whether player has a legal move, claiming a free colour if
// need be (SPEC §1: the end-of-game check includes the claims).
func (g *Game) canMove(player uint8) bool {
	le := g.heights()
	maxH := g.maxHeight()
	for m := g.movable(player); m != 0; m &= m - 1 {
		p := Point(bits.TrailingZeros64(m))
		if g.dests(p, g.owner[g.top[p]] == player, &le, maxH) != 0 {
			return true
		}
	}
	if g.nclaims[player-1] == 2 {
		return false
	}
	for c := Ivory; c <= Black; c++ {
		if g.owner[c] != 0 {
			continue
		}
		for m := g.tops[c]; m != 0; m &= m - 1 {
			if g.dests(Point(bits.TrailingZeros64(m)), true, &le, maxH) != 0 {
				return true
			}
		}
	}
	return false
}

// Legal appends every legal move of the player to move to buf and returns
// it: the plain moves, then for each colour the player may claim, every move
// with that claim. Each move appears once; the order is unspecified. It
// appends nothing when the game is over (or g is the zero Game), and does
// not allocate when buf has room.
func (g *Game) Legal(buf []Move) []Move { return g.legal(buf, true) }

// LegalPlain is Legal without the claim variants.
func (g *Game) LegalPlain(buf []Move) []Move { return g.legal(buf, false) }

func (g *Game) legal(buf []Move, claims bool) []Move {
	if g.status != games.Playing || g.turn == 0 {
		return buf
	}
	me := g.turn
	le := g.heights()
	maxH := g.maxHeight()

	// Plain moves, grouped by the top colour of the moving stack, so that
	// the moves a claim of colour c leaves unchanged (those of stacks not
	// topped by c) form two runs that can be copied whole.
	var from [NumPoints]Point
	var dst [NumPoints]uint64
	var start [Black + 2]int // the moves of stacks topped by c are start[c]:start[c+1]
	n, total := 0, 0
	movable := g.movable(me)
	for c := Ivory; c <= Black; c++ {
		start[c] = total
		owned := g.owner[c] == me
		for m := movable & g.tops[c]; m != 0; m &= m - 1 {
			p := Point(bits.TrailingZeros64(m))
			if d := g.dests(p, owned, &le, maxH); d != 0 {
				from[n], dst[n] = p, d
				n++
				total += bits.OnesCount64(d)
			}
		}
	}
	start[Black+1] = total
	plain := total

	// Claim variants: claiming colour c changes only the stacks topped by c,
	// which become owned.
	var free [Black]Color
	var cfrom [NumPoints]Point
	var cdst [NumPoints]uint64
	var cend [Black]int // the stacks topped by free[f] are cfrom[cend[f-1]:cend[f]]
	nfree, cn := 0, 0
	if claims && g.nclaims[me-1] < 2 {
		for c := Ivory; c <= Black; c++ {
			if g.owner[c] != 0 {
				continue
			}
			free[nfree] = c
			total += plain - (start[c+1] - start[c])
			for m := g.tops[c]; m != 0; m &= m - 1 {
				p := Point(bits.TrailingZeros64(m))
				if d := g.dests(p, true, &le, maxH); d != 0 {
					cfrom[cn], cdst[cn] = p, d
					cn++
					total += bits.OnesCount64(d)
				}
			}
			cend[nfree] = cn
			nfree++
		}
	}

	buf = slices.Grow(buf, total)
	out := buf[len(buf) : len(buf)+total]
	i := 0
	for j := range n {
		p := from[j]
		for d := dst[j]; d != 0; d &= d - 1 {
			out[i] = Move{From: p, To: Point(bits.TrailingZeros64(d))}
			i++
		}
	}
	j := 0
	for f := range nfree {
		c := free[f]
		first := i
		i += copy(out[i:], out[:start[c]])
		i += copy(out[i:], out[start[c+1]:plain])
		for k := range out[first:i] {
			out[first+k].Claim = c
		}
		for ; j < cend[f]; j++ {
			p := cfrom[j]
			for d := cdst[j]; d != 0; d &= d - 1 {
				out[i] = Move{Claim: c, From: p, To: Point(bits.TrailingZeros64(d))}
				i++
			}
		}
	}
	return buf[:len(buf)+total]
}

// check returns why m is not legal for the player to move, or nil.
func (g *Game) check(m Move) error {
	me := g.turn
	fail := func(format string, args ...any) error {
		return &MoveError{Move: m, Reason: fmt.Sprintf(format, args...)}
	}
	if m.IsPass() {
		return fail("nobody passes by choice; a player who cannot move passes automatically (rulebook E11)")
	}
	if !m.From.valid() || !m.To.valid() {
		return fail("no such point on the board")
	}
	switch c := m.Claim; {
	case c == NoColor:
	case c == Joker:
		return fail("a joker is not a colour and cannot be claimed (rulebook D1, H2)")
	case c > Joker:
		return fail("no such colour")
	case g.nclaims[me-1] == 2:
		return fail("you have already claimed two colours (rulebook D3)")
	case g.owner[c] == me:
		return fail("you have already claimed %s (rulebook D3)", c.Name())
	case g.owner[c] != 0:
		return fail("%s is already claimed by your opponent (rulebook B, D3)", c.Name())
	}
	p, q := m.From, m.To
	c := g.top[p]
	switch {
	case g.h[p] == 0:
		return fail("there is no stack on %s (rulebook E1)", p)
	case c == Joker:
		return fail("the stack on %s has a joker on top, and jokers never move on their own (rulebook D1)", p)
	case g.owner[c] != 0 && g.owner[c] != me:
		return fail("the stack on %s is topped by %s, which your opponent claimed (rulebook D3)", p, c.Name())
	case p == q:
		return fail("a stack cannot move onto itself (rulebook E3)")
	case g.h[q] == 0:
		return fail("%s is empty, and a move must end on a stack (rulebook E3)", q)
	}
	owned := g.owner[c] == me || m.Claim == c
	bit := uint64(1) << q
	if owned {
		reach, links := g.lyngk(p, c)
		switch {
		case links&bit != 0:
			return fail("%s is topped by %s too: a LYNGK point to bounce from, not to land on (rulebook F3)", q, c.Name())
		case reach&bit == 0:
			return fail("%s cannot be reached from %s in a straight line over empty points, nor by LYNGK bounces (rulebook E3, F)", q, p)
		}
	} else if g.nb[p]&bit == 0 {
		return fail("%s cannot be reached from %s in a straight line over empty points (rulebook E3)", q, p)
	}
	hp, hq := g.h[p], g.h[q]
	if !owned && hq > hp {
		return fail("a neutral stack of %d cannot land on a higher stack of %d (rulebook E7)", hp, hq)
	}
	if both := g.mask[p] & g.mask[q]; both != 0 {
		return fail("the stacks on %s and %s would hold two %s pieces (rulebook E5)", p, q, Color(bits.TrailingZeros8(both)).Name())
	}
	if maxH := g.maxHeight(); hp+hq > maxH {
		rule := "E5"
		if g.variant == Stack6 {
			rule = "H"
		}
		return fail("the stack would be %d pieces high, more than %d (rulebook %s)", hp+hq, maxH, rule)
	}
	return nil
}
