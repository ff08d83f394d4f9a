package lyngksearch

import (
	"math"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/engine/mcts"
)

// guided is the robot's policy: the classes of policy, one lower for a
// move that gives the opponent a stack to complete; the moves without a
// claim spent elsewhere; and policy's playouts, to the end or cut at a
// depth where the evaluation scores the position (see the package
// comment).
type guided struct {
	policy
	// W is the evaluation.
	W *weights
	// Depth is the number of moves a playout plays before the evaluation
	// scores it, and Quiet how many more it plays at most while the
	// player to move can complete a stack, so that a stack about to be
	// removed is counted removed. Depth 0 plays to the end.
	Depth, Quiet int
	// Sharpness turns an evaluation e (in stacks) into player 1's chance
	// of a win, 1/(1+exp(-Sharpness*e)); at 0 the sign of e decides.
	Sharpness float64
	// root, when set, narrows the moves of the search's root position
	// (robot.Search); read only, so the workers share it.
	root *rootFilter
}

// Class is policy's class, less one (at least 0) for a move that gives the
// opponent a stack to complete.
func (p guided) Class(g *lyngk.Game, m lyngk.Move) uint8 {
	c := p.policy.Class(g, m)
	if c > 0 && c < mcts.NumClasses-1 && gives(g, m) {
		c--
	}
	return c
}

// Playout plays as policy's playout does, to the end or, with a Depth, at
// most Depth moves (more while a stack is being completed), then draws the
// winner from the evaluation's chances. The stack6 variant, which the
// evaluation does not know, plays to the end.
func (p guided) Playout(g *lyngk.Game, r *mcts.RNG, buf []lyngk.Move) (int, []lyngk.Move) {
	if g.Variant() != lyngk.Standard {
		return p.policy.Playout(g, r, buf)
	}
	for n := 0; g.Status() == games.Playing; n++ {
		var pick lyngk.Move
		var scoring bool
		pick, scoring, buf = playoutMove(g, r, buf)
		if p.Depth > 0 && n >= p.Depth && (!scoring || n >= p.Depth+p.Quiet) {
			break
		}
		if err := g.Apply(pick); err != nil {
			panic("lyngksearch: a legal move is refused: " + err.Error())
		}
	}
	if g.Status() != games.Playing {
		return g.Winner(), buf
	}
	e := p.W.evaluate(g)
	if p.Sharpness <= 0 {
		switch {
		case e > 0:
			return 1, buf
		case e < 0:
			return 2, buf
		}
		return 0, buf
	}
	chance := 1 / (1 + math.Exp(-p.Sharpness*e))
	if float64(r.Next()>>11)/(1<<53) < chance {
		return 1, buf
	}
	return 2, buf
}

// Legal is the moves the tree looks at: the legal moves without those that
// claim a colour the moving stack is not topped by. Such a claim only
// spends one of the player's two; the same move without it is there, so no
// position loses all its moves.
func (p guided) Legal(g *lyngk.Game, buf []lyngk.Move) []lyngk.Move {
	if p.root != nil && *g == p.root.game {
		return append(buf, p.root.moves...)
	}
	n := len(buf)
	buf = g.Legal(buf)
	out := buf[:n]
	for _, m := range buf[n:] {
		if m.Claim == lyngk.NoColor || m.Claim == g.Top(m.From) {
			out = append(out, m)
		}
	}
	return out
}
