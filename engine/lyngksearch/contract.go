package lyngksearch

import (
	"context"
	"errors"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
)

// Robot is LYNGK's robot player in the game contract (games.Robot).
type Robot struct{}

var _ games.Robot = Robot{}

// Think is [Search] of a position of lyngk.Rules.
func (Robot) Think(ctx context.Context, p games.Position, o games.Think) (games.Thought, error) {
	g, ok := lyngk.Of(p)
	if !ok {
		return games.Thought{}, errors.New("lyngksearch: not a LYNGK position")
	}
	res, err := Search(ctx, g, Options{Iterations: o.Playouts, Think: o.Time, Workers: o.Workers, Seed: o.Seed})
	if err != nil {
		return games.Thought{}, err
	}
	return games.Thought{Move: res.Move, Playouts: res.Playouts, Value: res.Value}, nil
}

// AcceptDraw accepts a draw unless player would win were the game counted
// now (rulebook G).
func (Robot) AcceptDraw(p games.Position, player int) bool {
	g, ok := lyngk.Of(p)
	return !ok || countLead(g, player) <= 0
}

// countLead is how far player p is ahead of the opponent in the count of
// rulebook G: the first nonzero difference of removed stacks, then of
// owned stacks of each height from the tallest down; 0 for an even count.
func countLead(pos *lyngk.Game, p int) int {
	if d := pos.Removed(p) - pos.Removed(3-p); d != 0 {
		return d
	}
	maxH := 5
	if pos.Variant() == lyngk.Stack6 {
		maxH = 6
	}
	var owned [3][7]int
	for q := range lyngk.Point(lyngk.NumPoints) {
		if o := pos.Owner(pos.Top(q)); o != 0 {
			owned[o][pos.Height(q)]++
		}
	}
	// A full-height stack still on the board never scores (it was neutral
	// when completed), as in lyngk's own count.
	for k := maxH - 1; k >= 1; k-- {
		if d := owned[p][k] - owned[3-p][k]; d != 0 {
			return d
		}
	}
	return 0
}
