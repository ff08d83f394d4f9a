package yinshsearch

import (
	"context"

	"lyngk.example/lyngk/engine/mcts"
	"lyngk.example/lyngk/engine/yinsh"
)

// ErrNoMove is returned for a position without a move: the game is over.
var ErrNoMove = mcts.ErrNoMove

// Options set the budget of a search: Iterations playouts in all when it is
// above 0 (deterministic for a Seed), else as many as fit in Think.
type Options = mcts.Options

// Result is the robot's choice and what the search saw.
type Result = mcts.Result[yinsh.Turn]

// Search chooses a whole turn for the player to move in g. It returns
// ErrNoMove when the game is over and ctx.Err() when ctx ends first (a
// time-budget search stops at the deadline without error). A position with
// a single legal turn is answered at once.
func Search(ctx context.Context, g *yinsh.Game, o Options) (Result, error) {
	return mcts.Search(ctx, g, policy{}, config, o)
}

// config is YINSH's tuning (engine/README.md): LYNGK's constants, which the strength
// runs found good enough here too, and an arena of 2^18 nodes (about 10 MB
// a tree: a node holds a whole turn).
var config = mcts.Config{
	Explore:    0.6,
	FPU:        0.5,
	ClassBonus: 0.08,
	ExpandAt:   2,
	ArenaNodes: 1 << 18,
	MaxMoves:   maxTurns,
}

// maxTurns is room for the legal turns of a position (85 placements; a
// movement position has a few dozen to a few hundred; Legal grows the
// buffer if ever needed).
const maxTurns = 1024

func newTree(g *yinsh.Game, seed uint64, budget int) *mcts.Tree[yinsh.Game, yinsh.Turn, policy] {
	return mcts.NewTree(g, policy{}, config, seed, budget)
}

// policy is YINSH's part of the search (see the package comment).
type policy struct{}

func (policy) Playing(g *yinsh.Game) bool { return g.Status() == yinsh.Playing }

func (policy) Turn(g *yinsh.Game) int { return g.Turn() }

func (policy) Legal(g *yinsh.Game, buf []yinsh.Turn) []yinsh.Turn { return g.Legal(buf) }

func (policy) Class(g *yinsh.Game, t yinsh.Turn) uint8 { return class(g, t) }

func (policy) Apply(g *yinsh.Game, t yinsh.Turn) error { return g.Apply(t) }

func (policy) Playout(g *yinsh.Game, r *mcts.RNG, buf []yinsh.Turn) (int, []yinsh.Turn) {
	return playOut(g, r), buf
}

// class ranks a turn by one look at the board: 7 when its own removals
// win, 6 when it removes a row of the mover's after the move, else 1 to 5
// by the markers its move turns to the mover's colour (each opponent's
// marker flipped counts +1, each own -1, from 3 for none); a placement is
// 2 on a point with at least two points on each of its six lines, else 1.
func class(g *yinsh.Game, t yinsh.Turn) uint8 {
	me := g.Turn()
	switch {
	case t.NPost > 0 && g.Removed(me)+int(t.NPre)+int(t.NPost) >= target(g):
		return mcts.NumClasses - 1
	case t.NPost > 0:
		return mcts.NumClasses - 2
	case t.Action == yinsh.Place:
		if central[t.To] {
			return 2
		}
		return 1
	case t.Action != yinsh.Move:
		return 0
	}
	gain := 3
	between, n := yinsh.Between(t.From, t.To)
	for _, p := range between[:n] {
		switch pl, ring := g.Piece(p); {
		case ring || pl == 0:
		case pl == me:
			gain--
		default:
			gain++
		}
	}
	return uint8(min(max(gain, 1), 5))
}

func target(g *yinsh.Game) int {
	if g.Variant() == yinsh.Blitz {
		return 1
	}
	return 3
}

// central marks the points with at least two points on each of their six
// lines.
var central = func() (c [yinsh.NumPoints]bool) {
	for p := range yinsh.Point(yinsh.NumPoints) {
		c[p] = yinsh.Reach(p) >= 2
	}
	return c
}()

// playOut finishes the game with random turns (yinsh.RandomTurn) and
// returns the winner, 0 for a tie.
func playOut(g *yinsh.Game, r *mcts.RNG) int {
	for g.Status() == yinsh.Playing {
		if err := g.Apply(g.RandomTurn(r.Intn)); err != nil {
			panic("yinshsearch: a random turn is refused: " + err.Error())
		}
	}
	return g.Winner()
}
