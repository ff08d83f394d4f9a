package lyngksearch

import (
	"math/bits"

	"lyngk.example/lyngk/engine/lyngk"
)

// weights are the evaluation's terms, in stacks (one removed stack is 1).
type weights struct {
	// Live[h] is an owned stack of height h that can still grow: a stack
	// it sees holds none of its colours and is low enough to merge with.
	Live [6]float64
	// Dead is the worth of each piece of an owned stack that can no longer
	// grow: only the count of rulebook G2 still looks at it.
	Dead float64
	// Neutral is the share of Live a stack topped by a free colour is
	// worth to a player who may still claim that colour.
	Neutral float64
	// Mover is what the player to move gains from a stack he can complete
	// with this move; Waiting, what the other player gains from each one he
	// threatens to complete next turn (the mover can answer one of them),
	// up to MaxThreats of them.
	Mover, Waiting float64
	MaxThreats     int
}

// standardWeights are set by hand from the rules (a removed stack is 1; a
// four that can still grow half of one; a stack about to be completed
// most of one), not tuned: the strength runs measured the robot with
// these (see the package comment).
var standardWeights = weights{
	Live:       [6]float64{0, 0.03, 0.1, 0.25, 0.5, 0},
	Dead:       0.01,
	Neutral:    0.3,
	Mover:      0.8,
	Waiting:    0.35,
	MaxThreats: 2,
}

// evaluate scores a position of the standard game that goes on, for
// player 1, in stacks: positive when player 1 is ahead, and exactly the
// negation when the players swap their pieces, claims and turn. The terms
// (see weights): the removed stacks (the score of rulebook G1); each stack
// topped by a claimed colour, for its owner, by height, whether it can
// still grow or is dead; each stack topped by a free colour, for each
// player who may still claim it; the stacks the player to move can
// complete now and those the other player threatens to complete next.
// Reaching is judged in straight lines (Game.Sees), without LYNGK bounces:
// an estimate, cheap enough for the end of every playout.
func (w *weights) evaluate(g *lyngk.Game) float64 {
	const maxH = 5
	e := float64(g.Removed(1) - g.Removed(2))
	mover := g.Turn()
	// canClaim[p] says whether player p may still claim a colour.
	var claims [3]int
	for c := lyngk.Ivory; c <= lyngk.Black; c++ {
		claims[g.Owner(c)]++
	}
	canClaim := [3]bool{false, claims[1] < 2, claims[2] < 2}
	sign := [3]float64{0, 1, -1}
	// completes[p] counts the stacks player p can complete with one move.
	var completes [3]int
	for p := range lyngk.Point(lyngk.NumPoints) {
		h := g.Height(p)
		if h == 0 {
			continue
		}
		top := g.Top(p)
		if top == lyngk.Joker {
			continue
		}
		owner := g.Owner(top)
		colors := g.Colors(p)
		live, complete := false, false
		for q := g.Sees(p); q != 0; q &= q - 1 {
			o := lyngk.Point(bits.TrailingZeros64(q))
			hq := g.Height(o)
			if h+hq > maxH || colors&g.Colors(o) != 0 {
				continue
			}
			live = true
			if h+hq == maxH {
				complete = true
				break
			}
		}
		switch {
		case owner != 0:
			if live {
				e += sign[owner] * w.Live[h]
			} else {
				e += sign[owner] * w.Dead * float64(h)
			}
			if complete {
				completes[owner]++
			}
		case live:
			for pl := 1; pl <= 2; pl++ {
				if canClaim[pl] {
					e += sign[pl] * w.Neutral * w.Live[h]
					if complete {
						completes[pl]++
					}
				}
			}
		}
	}
	if mover != 0 {
		waiting := 3 - mover
		if completes[mover] > 0 {
			e += sign[mover] * w.Mover
		}
		e += sign[waiting] * w.Waiting * float64(min(completes[waiting], w.MaxThreats))
	}
	return e
}

// gives reports whether move m of the player to move leaves the opponent a
// stack to complete with the stack m builds: a stack of the opponent's
// colour, or of a colour he may still claim, that sees the new stack and
// is just high enough, with no colour in common; or a new stack topped by
// a colour he may still claim that sees such a stack. Reaching is judged
// in straight lines from the point of arrival, as the evaluation does.
func gives(g *lyngk.Game, m lyngk.Move) bool {
	const maxH = 5
	h := g.Height(m.From) + g.Height(m.To)
	if h >= maxH {
		return false
	}
	me := g.Turn()
	opp := 3 - me
	claims := 0
	for c := lyngk.Ivory; c <= lyngk.Black; c++ {
		if g.Owner(c) == opp {
			claims++
		}
	}
	oppClaims := claims < 2
	owner := func(c lyngk.Color) int {
		if c == m.Claim {
			return me
		}
		return g.Owner(c)
	}
	colors := g.Colors(m.From) | g.Colors(m.To)
	top := g.Top(m.From)
	neutralTop := owner(top) == 0
	for s := g.Sees(m.To) &^ (1 << m.From); s != 0; s &= s - 1 {
		o := lyngk.Point(bits.TrailingZeros64(s))
		if g.Height(o) != maxH-h || g.Colors(o)&colors != 0 {
			continue
		}
		if neutralTop && oppClaims {
			return true
		}
		switch t := g.Top(o); owner(t) {
		case opp:
			return true
		case 0:
			if t != lyngk.Joker && oppClaims {
				return true
			}
		}
	}
	return false
}
