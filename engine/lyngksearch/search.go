package lyngksearch

import (
	"context"

	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/engine/mcts"
)

// ErrNoMove is returned for a position without a move: the game is over.
var ErrNoMove = mcts.ErrNoMove

// Options set the budget of a search: Iterations playouts in all when it is
// above 0 (deterministic for a Seed), else as many as fit in Think.
type Options = mcts.Options

// Result is the robot's choice and what the search saw.
type Result = mcts.Result[lyngk.Move]

// Search chooses a move for the player to move in g. It returns ErrNoMove
// when the game is over and ctx.Err() when ctx ends first (a time-budget
// search stops at the deadline without error). A position with a single
// legal move is answered at once.
func Search(ctx context.Context, g *lyngk.Game, o Options) (Result, error) {
	return mcts.Search(ctx, g, policy{}, config, o)
}

// config is LYNGK's tuning, set by the strength runs (engine/README.md): the
// exploration constant of UCB, the value of an unvisited child, the weight
// of the class bonus, the visits a leaf needs before it is expanded, the
// arena size, and room for the legal moves of any position (about 1,100 at
// the start, claim variants included; Legal grows the buffer if ever
// needed).
var config = mcts.Config{
	Explore:    0.6,
	FPU:        0.5,
	ClassBonus: 0.08,
	ExpandAt:   2,
	ArenaNodes: 1 << 20,
	MaxMoves:   maxMoves,
}

const maxMoves = 2048

// newTree returns one search tree for g (tests and benchmarks).
func newTree(g *lyngk.Game, seed uint64, budget int) *mcts.Tree[lyngk.Game, lyngk.Move, policy] {
	return mcts.NewTree(g, policy{}, config, seed, budget)
}

// policy is LYNGK's part of the search: its rules, move classes and
// playout (see the package comment).
type policy struct{}

func (policy) Playing(g *lyngk.Game) bool { return g.Status() == lyngk.Playing }

func (policy) Turn(g *lyngk.Game) int { return g.Turn() }

func (policy) Legal(g *lyngk.Game, buf []lyngk.Move) []lyngk.Move { return g.Legal(buf) }

func (policy) Class(g *lyngk.Game, m lyngk.Move) uint8 { return class(g, m) }

func (policy) Apply(g *lyngk.Game, m lyngk.Move) error { return g.Apply(m) }

func (policy) Playout(g *lyngk.Game, r *mcts.RNG, buf []lyngk.Move) (int, []lyngk.Move) {
	return playOut(g, r, buf)
}

// class ranks a move of the player to move by one look at the board: 7
// when it completes a stack of the mover's own colour (a removal, or the
// stack6 win), else the height of the own-topped stack it builds (2..5),
// else 1; one less when it claims a colour the moving stack is not topped
// by (a claim spent without use).
func class(g *lyngk.Game, m lyngk.Move) uint8 {
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

// playOut finishes the game (see the package comment) and returns the
// winner, 0 for a tie, and the scratch buffer buf.
func playOut(g *lyngk.Game, r *mcts.RNG, buf []lyngk.Move) (int, []lyngk.Move) {
	maxH := maxHeight(g)
	for g.Status() == lyngk.Playing {
		me := g.Turn()
		claims := 0
		for c := lyngk.Ivory; c <= lyngk.Black; c++ {
			if g.Owner(c) == me {
				claims++
			}
		}
		buf = g.LegalPlain(buf[:0])
		scoring := 0
		var pick lyngk.Move
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
			scoring++
			if r.Intn(scoring) == 0 {
				pick = m
			}
		}
		if scoring == 0 {
			if len(buf) == 0 || r.Next()&1 == 0 {
				buf = g.Legal(buf[:0])
			}
			pick = buf[r.Intn(len(buf))]
		}
		if err := g.Apply(pick); err != nil {
			panic("lyngksearch: a legal move is refused: " + err.Error())
		}
	}
	return g.Winner(), buf
}
