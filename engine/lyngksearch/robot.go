package lyngksearch

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/engine/mcts"
)

// robot is the search with the evaluation: the moves of the position to
// play are ranked by the evaluation of the position each leads to, and
// the tree search (policy guided) looks at the Width best of them only,
// or the LongWidth best in a search of a think time longer than longThink
// (width).
type robot struct {
	Policy           guided
	Config           mcts.Config
	Width, LongWidth int
}

// longThink is the think time above which a search keeps LongWidth moves
// at its root: the robot level's 2 s (unless the operator sets another).
const longThink = 2 * time.Second

// width is the number of moves the root of a search with budget o keeps:
// Width, or LongWidth for a think time longer than longThink, which has
// the playouts to look at moves the evaluation ranks lower (robot-max's
// 10 s: 100 moves, deploy/BENCHMARKS.md, "An eighth sitting"); 0 keeps
// them all.
func (r robot) width(o mcts.Options) int {
	if o.Iterations <= 0 && o.Think > longThink {
		return r.LongWidth
	}
	return r.Width
}

// rootMoves returns the legal moves of g (guided's Legal) ranked by the
// evaluation after each, best for the player to move first (a move that
// wins the game first of all), ties in Legal order, at most width of them
// (all when width is 0).
func (r robot) rootMoves(g *lyngk.Game, width int) []lyngk.Move {
	moves := r.Policy.Legal(g, nil)
	me := g.Turn()
	type scored struct {
		m lyngk.Move
		e float64
	}
	all := make([]scored, len(moves))
	for i, m := range moves {
		h := *g
		if err := h.Apply(m); err != nil {
			panic("lyngksearch: a legal move is refused: " + err.Error())
		}
		var e float64
		switch h.Status() {
		case games.Playing:
			e = r.Policy.W.evaluate(&h)
		case games.Won:
			e = 100 * float64(3-2*h.Winner())
		}
		if me == 2 {
			e = -e
		}
		all[i] = scored{m, e}
	}
	slices.SortStableFunc(all, func(a, b scored) int { return cmp.Compare(b.e, a.e) })
	if width > 0 && len(all) > width {
		all = all[:width]
	}
	for i := range all {
		moves[i] = all[i].m
	}
	return moves[:len(all)]
}

// Search chooses a move for the player to move in g among its best by the
// evaluation (width; mcts.Search with the tree's root so narrowed), in the
// standard game; in stack6 it is the previous robot's (Baseline). A
// think time includes the ranking; the search still gets its one playout
// a worker when the ranking took it all.
func (r robot) Search(ctx context.Context, g *lyngk.Game, o mcts.Options) (mcts.Result[lyngk.Move], error) {
	if g.Variant() != lyngk.Standard {
		// The evaluation knows the standard game only (stacks of five
		// removed); stack6 keeps the previous robot.
		return baseline.Search(ctx, g, o)
	}
	p, cfg := r.Policy, r.Config
	if o.Think > 0 && o.Iterations <= 0 {
		cfg.ArenaNodes = arenaNodes(o.Think)
	}
	if width := r.width(o); g.Status() == games.Playing && width > 0 {
		start := time.Now()
		p.root = &rootFilter{game: *g, moves: r.rootMoves(g, width)}
		if o.Think > 0 {
			o.Think = max(o.Think-time.Since(start), time.Nanosecond)
		}
	}
	return mcts.Search(ctx, g, p, cfg, o)
}

// arenaNodes is the arena of a search of think time d: config's arena
// (2^20 nodes, about 20 MB) up to 2 s, which a search fills in about a
// quarter of a second of playouts at ExpandAt 2 and Grow then spreads
// over the rest, and as much again for every further 2 s, at most eight
// times config's (2^23 nodes, about 170 MB, 16 s): a longer search gets a
// larger tree, not only better counts at the leaves of the same tree
// (robot-max's 10 s: 5.2 million nodes, about 105 MB).
func arenaNodes(d time.Duration) int {
	perTwoSeconds := config.ArenaNodes
	return min(max(perTwoSeconds, int(d.Seconds()*float64(perTwoSeconds)/2)), 8*perTwoSeconds)
}

// Tree returns one search tree for g (tests and benchmarks).
func (r robot) Tree(g *lyngk.Game, seed uint64, budget int) *mcts.Tree[lyngk.Game, lyngk.Move, guided] {
	return mcts.NewTree(g, r.Policy, r.Config, seed, budget)
}

// Think is Search of the LYNGK position in p, within o's budget.
func (r robot) Think(ctx context.Context, p games.Position, o games.Think) (games.Thought, error) {
	g, ok := lyngk.Of(p)
	if !ok {
		return games.Thought{}, fmt.Errorf("lyngksearch: %w: %T", games.ErrNotOurs, p)
	}
	res, err := r.Search(ctx, g, mcts.Options{Iterations: o.Playouts, Think: o.Time, Workers: o.Workers, Seed: o.Seed})
	if err != nil {
		return games.Thought{}, err
	}
	return games.Thought{Move: res.Move, Playouts: res.Playouts, Value: res.Value}, nil
}

// AcceptDraw accepts a draw unless the robot would win were the game
// counted now (acceptDraw); a position of another game, yes.
func (r robot) AcceptDraw(p games.Position, player int) bool {
	g, ok := lyngk.Of(p)
	return !ok || acceptDraw(g, player)
}

// rootFilter is the root of a search and the moves the tree looks at
// there.
type rootFilter struct {
	game  lyngk.Game
	moves []lyngk.Move
}
