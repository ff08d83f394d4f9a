package lyngk

import (
	"fmt"
	"math/bits"
	"slices"
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
// a bounce may lead back over it. links returns the LYNGK points reached.
func (g *Game) lyngk(p Point, c Color) (reach, links uint64) {
	occ := g.occ &^ (1 << p)
	all := g.tops[c] &^ (1 << p)
	pending := uint64(1) << p
	for pending != 0 {
		q := Point(bits.TrailingZeros64(pending))
		pending &= pending - 1
		h := hits(q, occ)
		reach |= h &^ all
		pending |= h & all &^ links
		links |= h & all
	}
	return reach, links
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
	return hits(p, g.occ) & le[min(g.h[p], maxH-g.h[p])] &^ g.conflicts(p)
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
// appends nothing when the game is over, and does not allocate when buf has
// room.
func (g *Game) Legal(buf []Move) []Move { return g.legal(buf, true) }

// LegalPlain is Legal without the claim variants.
func (g *Game) LegalPlain(buf []Move) []Move { return g.legal(buf, false) }

func (g *Game) legal(buf []Move, claims bool) []Move {
	if g.status != Playing {
		return buf
	}
	me := g.turn
	le := g.heights()
	maxH := g.maxHeight()

	// Plain moves, by origin.
	var from [NumPoints]Point
	var dst [NumPoints]uint64
	var byTop [Joker + 1]int
	n, total := 0, 0
	for m := g.movable(me); m != 0; m &= m - 1 {
		p := Point(bits.TrailingZeros64(m))
		d := g.dests(p, g.owner[g.top[p]] == me, &le, maxH)
		if d != 0 {
			from[n], dst[n] = p, d
			n++
			k := bits.OnesCount64(d)
			total += k
			byTop[g.top[p]] += k
		}
	}

	// Claim variants: claiming colour c changes only the stacks topped by c,
	// which become owned; every other plain move stays legal with the claim.
	plain := total
	var free [Black]Color
	var cfrom [NumPoints]Point
	var cdst [NumPoints]uint64
	var cend [Black]int // cfrom[cend[i-1]:cend[i]] are the stacks topped by free[i]
	nfree, cn := 0, 0
	if claims && g.nclaims[me-1] < 2 {
		for c := Ivory; c <= Black; c++ {
			if g.owner[c] != 0 {
				continue
			}
			free[nfree] = c
			k := plain - byTop[c]
			for m := g.tops[c]; m != 0; m &= m - 1 {
				p := Point(bits.TrailingZeros64(m))
				if d := g.dests(p, true, &le, maxH); d != 0 {
					cfrom[cn], cdst[cn] = p, d
					cn++
					k += bits.OnesCount64(d)
				}
			}
			cend[nfree] = cn
			nfree++
			total += k
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
	start := 0
	for f := range nfree {
		c := free[f]
		for _, mv := range out[:plain] {
			if g.top[mv.From] != c {
				mv.Claim = c
				out[i] = mv
				i++
			}
		}
		for j := start; j < cend[f]; j++ {
			p := cfrom[j]
			for d := cdst[j]; d != 0; d &= d - 1 {
				out[i] = Move{Claim: c, From: p, To: Point(bits.TrailingZeros64(d))}
				i++
			}
		}
		start = cend[f]
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
	} else if hits(p, g.occ)&bit == 0 {
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
