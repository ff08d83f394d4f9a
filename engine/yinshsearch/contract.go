package yinshsearch

import (
	"context"
	"fmt"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/mcts"
	"lyngk.example/lyngk/engine/yinsh"
)

// Robot is YINSH's robot player in the game contract (games.Robot): the
// alpha-beta search over the evaluation of the package comment.
var Robot robot

// robot is the alpha-beta robot; a value of no state (each search builds
// its own), safe for concurrent use.
type robot struct{}

// Search chooses a turn for the player to move in g within o's budget:
// Iterations playouts' worth of nodes (NodesPerPlayout each),
// deterministic for a Seed, else the think time. Workers is not used: the
// search runs on one core.
func (robot) Search(ctx context.Context, g *yinsh.Game, o mcts.Options) (mcts.Result[yinsh.Turn], error) {
	return alphaBeta(ctx, g, o, &robotTuning)
}

// Think is Search of the YINSH game in p, within o's budget.
func (r robot) Think(ctx context.Context, p games.Position, o games.Think) (games.Thought, error) {
	g, ok := yinsh.Of(p)
	if !ok {
		return games.Thought{}, fmt.Errorf("yinshsearch: %w: %T", games.ErrNotOurs, p)
	}
	res, err := r.Search(ctx, g, mcts.Options{Iterations: o.Playouts, Think: o.Time, Workers: o.Workers, Seed: o.Seed})
	if err != nil {
		return games.Thought{}, err
	}
	return games.Thought{Move: res.Move, Playouts: res.Playouts, Value: res.Value}, nil
}

// AcceptDraw is acceptDraw of the YINSH game in p; a position of another
// game is no game of the robot's to keep playing, so yes.
func (robot) AcceptDraw(p games.Position, player int) bool {
	g, ok := yinsh.Of(p)
	return !ok || acceptDraw(g, player)
}

var _ games.Robot = Robot

// config is the previous robot's tuning (mcts.Tuned): an arena of 2^18
// nodes (about 10 MB a tree: a node holds a whole turn), and room for the
// legal turns of a position (85 placements; a movement position has a few
// dozen to a few hundred; Legal grows the buffer if ever needed).
var config = mcts.Tuned(1<<18, 1024)

// baseline is the previous robot: the Monte Carlo tree search with random
// playouts and turn classes (search.go).
var baseline = mcts.Robot[yinsh.Game, yinsh.Turn, policy]{Config: config, Draw: acceptDraw}

// Baseline returns the previous robot, the Monte Carlo tree search with
// random playouts, for matches against it (strength benchmarks) and as a
// weaker opponent.
func Baseline() games.Robot { return baseline }

// acceptDraw accepts a draw unless player has removed more rings than the
// opponent: the count that decides a game ended by the empty pool
// (rulebook H).
func acceptDraw(g *yinsh.Game, player int) bool { return g.Removed(player) <= g.Removed(3-player) }
