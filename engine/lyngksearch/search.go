package lyngksearch

import (
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/engine/mcts"
)

// policy is LYNGK's part of the search: its move classes and playout
// (see the package comment); the rules are the position's own.
type policy struct {
	mcts.Rules[lyngk.Game, lyngk.Move, *lyngk.Game]
}

// Class ranks a move of the player to move by one look at the board: 7
// when it completes a stack of the mover's own colour (a removal, or the
// stack6 win), else the height of the own-topped stack it builds (2..5),
// else 1; one less when it claims a colour the moving stack is not topped
// by (a claim spent without use).
func (policy) Class(g *lyngk.Game, m lyngk.Move) uint8 {
	top := g.Top(m.From)
	h := g.Height(m.From) + g.Height(m.To)
	own := m.Claim == top || g.Owner(top) == g.Turn()
	var c uint8 = 1
	switch {
	case own && h == maxHeight(g):
		return mcts.NumClasses - 1
	case own:
		c = uint8(h)
	}
	if m.Claim != lyngk.NoColor && m.Claim != top {
		c--
	}
	return c
}

func maxHeight(g *lyngk.Game) int {
	if g.Variant() == lyngk.Stack6 {
		return 6
	}
	return 5
}

// Playout finishes the game (see the package comment) and returns the
// winner, 0 for a tie, and the scratch buffer buf.
func (policy) Playout(g *lyngk.Game, r *mcts.RNG, buf []lyngk.Move) (int, []lyngk.Move) {
	for g.Status() == games.Playing {
		var pick lyngk.Move
		pick, _, buf = playoutMove(g, r, buf)
		if err := g.Apply(pick); err != nil {
			panic("lyngksearch: a legal move is refused: " + err.Error())
		}
	}
	return g.Winner(), buf
}

// playoutMove is the move of a playout for the player to move in g, a
// game that goes on: a move that completes an own stack when there is one
// (scoring is true then), else a random one (see the package comment). It
// returns buf, the scratch room it may grow.
func playoutMove(g *lyngk.Game, r *mcts.RNG, buf []lyngk.Move) (pick lyngk.Move, scoring bool, _ []lyngk.Move) {
	maxH := maxHeight(g)
	me := g.Turn()
	claims := 0
	for c := lyngk.Ivory; c <= lyngk.Black; c++ {
		if g.Owner(c) == me {
			claims++
		}
	}
	buf = g.LegalPlain(buf[:0])
	n := 0
	for _, m := range buf {
		if g.Height(m.From)+g.Height(m.To) != maxH {
			continue
		}
		switch top := g.Top(m.From); g.Owner(top) {
		case me:
		case 0:
			// A neutral stack completing the height scores with the
			// claim of its colour.
			if claims == 2 {
				continue
			}
			m.Claim = top
		default:
			continue
		}
		// Reservoir sampling: each scoring move equally likely.
		n++
		if r.Intn(n) == 0 {
			pick = m
		}
	}
	if n > 0 {
		return pick, true, buf
	}
	if len(buf) == 0 || r.Next()&1 == 0 {
		buf = g.Legal(buf[:0])
	}
	return buf[r.Intn(len(buf))], false, buf
}
