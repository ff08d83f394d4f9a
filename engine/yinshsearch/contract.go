package yinshsearch

import (
	"context"
	"errors"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/yinsh"
)

// Robot is YINSH's robot player in the game contract (games.Robot).
type Robot struct{}

var _ games.Robot = Robot{}

// Think is [Search] of a position of yinsh.Rules.
func (Robot) Think(ctx context.Context, p games.Position, o games.Think) (games.Thought, error) {
	g, ok := yinsh.Of(p)
	if !ok {
		return games.Thought{}, errors.New("yinshsearch: not a YINSH position")
	}
	res, err := Search(ctx, g, Options{Iterations: o.Playouts, Think: o.Time, Workers: o.Workers, Seed: o.Seed})
	if err != nil {
		return games.Thought{}, err
	}
	return games.Thought{Move: res.Move, Playouts: res.Playouts, Value: res.Value}, nil
}

// AcceptDraw accepts a draw unless player has removed more rings than the
// opponent: the count that decides a game ended by the empty pool
// (rulebook H).
func (Robot) AcceptDraw(p games.Position, player int) bool {
	g, ok := yinsh.Of(p)
	return !ok || g.Removed(player) <= g.Removed(3-player)
}
