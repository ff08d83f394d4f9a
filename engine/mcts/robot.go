package mcts

import (
	"context"
	"fmt"

	"lyngk.example/lyngk/engine/games"
)

// Rules is the part of a Policy that a game's own position answers by
// itself, with the methods of *G (those of games.Playable): a game's
// policy embeds Rules and writes only Class and Playout, its own
// knowledge of the game.
type Rules[G any, M comparable, P interface {
	*G
	Status() games.Outcome
	Turn() int
	Legal(buf []M) []M
	Apply(m M) error
}] struct{}

// Playing reports whether g's status is games.Playing.
func (Rules[G, M, P]) Playing(g *G) bool { return P(g).Status() == games.Playing }

// Turn is g's player to move.
func (Rules[G, M, P]) Turn(g *G) int { return P(g).Turn() }

// Legal appends g's legal moves to buf.
func (Rules[G, M, P]) Legal(g *G, buf []M) []M { return P(g).Legal(buf) }

// Apply plays m on g.
func (Rules[G, M, P]) Apply(g *G, m M) error { return P(g).Apply(m) }

// Robot is a game's robot player: the search of its Policy with its
// Config, and its answer to a draw offer. It is the game contract's
// games.Robot for positions of the default adapter (games.Adapt) with G
// inside, so that a game writes only its policy, its tuning and Draw.
type Robot[G any, M interface {
	comparable
	games.Move
}, P Policy[G, M]] struct {
	Policy P
	Config Config
	// Draw says whether the robot, player `player` of g, accepts a draw
	// offered now.
	Draw func(g *G, player int) bool
}

// Search chooses a move for the player to move in g (the package's
// Search with the robot's policy and tuning).
func (r Robot[G, M, P]) Search(ctx context.Context, g *G, o Options) (Result[M], error) {
	return Search(ctx, g, r.Policy, r.Config, o)
}

// Tree returns one search tree for g (tests and benchmarks).
func (r Robot[G, M, P]) Tree(g *G, seed uint64, budget int) *Tree[G, M, P] {
	return NewTree(g, r.Policy, r.Config, seed, budget)
}

// Think is Search of the game's own position in p, within o's budget.
func (r Robot[G, M, P]) Think(ctx context.Context, p games.Position, o games.Think) (games.Thought, error) {
	g, ok := games.Unwrap[G](p)
	if !ok {
		return games.Thought{}, fmt.Errorf("mcts: %w: %T", games.ErrNotOurs, p)
	}
	res, err := r.Search(ctx, g, Options{Iterations: o.Playouts, Think: o.Time, Workers: o.Workers, Seed: o.Seed})
	if err != nil {
		return games.Thought{}, err
	}
	return games.Thought{Move: res.Move, Playouts: res.Playouts, Value: res.Value}, nil
}

// AcceptDraw is Draw of the game's own position in p; a position of
// another game is no game of the robot's to keep playing, so yes.
func (r Robot[G, M, P]) AcceptDraw(p games.Position, player int) bool {
	g, ok := games.Unwrap[G](p)
	return !ok || r.Draw(g, player)
}
