package yinshsearch

import (
	"context"
	"errors"
	"math"
	"time"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/mcts"
	"lyngk.example/lyngk/engine/yinsh"
)

// NodesPerPlayout converts a budget in playouts (games.Think.Playouts,
// mcts.Options.Iterations) into the nodes of the alpha-beta search: a
// node (a position reached, its turns listed or its evaluation made)
// cost about 3.5 µs of CPU in a middle game when this was set, a random
// playout of the previous robot about 85 µs (BenchmarkSearch and
// BenchmarkIterate), so that a budget in playouts bought about the same
// CPU under either robot. Since the search plays its turns with
// yinsh.Game.Play a node costs a fifth less (1.7 µs against 2.2 µs, and
// 78 µs a playout, on a quiet machine): a budget buys some 55 % of the
// previous robot's CPU. It stays 25 so that the levels given in playouts
// search the very trees, and play the very turns, their matches measured.
const NodesPerPlayout = 25

// The bounds of the search: maxPly bounds the depth of the stack of
// positions, maxDepth the iterative deepening; a won game scores winScore
// less the plies to reach it, so that a nearer win is preferred.
const (
	maxPly    = 64
	maxDepth  = 40
	winScore  = 1_000_000
	infScore  = 2 * winScore
	mateBound = winScore - 1000
)

// ttBits sizes the transposition table: 2^16 entries of about 40 bytes,
// allocated once per search (a few MB, a fraction of a millisecond).
const ttBits = 16

type ttEntry struct {
	key   uint64
	move  yinsh.Turn
	score int32
	depth int8
	flag  uint8 // exact, lower or upper bound; 0: empty
}

const (
	flagExact = 1 + iota
	flagLower
	flagUpper
)

// errStopped ends a search whose budget ran out.
var errStopped = errors.New("yinshsearch: stopped")

// frame is one ply of the search: the position and room for its turns.
type frame struct {
	g     yinsh.Game
	moves []yinsh.Turn
	keys  []int32
}

// searcher is one alpha-beta search: its budget, transposition table,
// stack of positions and move-ordering memory (killers and history).
type searcher struct {
	ctx      context.Context
	deadline time.Time // zero without a time budget
	budget   int       // nodes, 0 without a node budget
	nodes    int
	hard     bool // the budget may stop the search (after depth 1)
	tu       *tuning
	tt       []ttEntry
	stack    [maxPly + 1]frame
	killers  [maxPly][2]yinsh.Turn
	history  [yinsh.NumPoints][yinsh.NumPoints]int32
}

// tuning is what may differ between two robots of this search: the
// evaluation's weights and the reductions of the search, so that the
// tests can pit a variant against the robot.
type tuning struct {
	w       weights
	lmr     bool // late move reductions
	quiesce bool // the quiescence search of rows ready
}

// robotTuning is the robot's.
var robotTuning = tuning{w: standard, lmr: true, quiesce: true}

// alphaBeta chooses a turn for the player to move in g: iterative
// deepening of a principal-variation search with a transposition table,
// within o's budget (see the package comment).
func alphaBeta(ctx context.Context, g *yinsh.Game, o mcts.Options, tu *tuning) (mcts.Result[yinsh.Turn], error) {
	if g.Status() != games.Playing {
		return mcts.Result[yinsh.Turn]{}, mcts.ErrNoMove
	}
	if o.Iterations <= 0 && o.Think <= 0 {
		return mcts.Result[yinsh.Turn]{}, errors.New("yinshsearch: give a playout budget or a think time")
	}
	start := time.Now()
	s := &searcher{ctx: ctx, tu: tu, tt: make([]ttEntry, 1<<ttBits)}
	if o.Iterations > 0 {
		s.budget = o.Iterations * NodesPerPlayout
	} else {
		s.deadline = start.Add(o.Think)
	}
	s.stack[0].g = *g
	root := g.Legal(nil)
	if len(root) == 1 {
		return mcts.Result[yinsh.Turn]{Move: root[0], Value: 0.5}, nil
	}
	// The seed orders the root turns before the first iteration ranks
	// them, so that equal turns are chosen among by the seed.
	r := mcts.RNG(o.Seed)
	for i := len(root) - 1; i > 0; i-- {
		j := r.Intn(i + 1)
		root[i], root[j] = root[j], root[i]
	}
	rootKeys := make([]int32, len(root))
	s.orderKeys(0, root, rootKeys, yinsh.Turn{}, false)
	sortByKeys(root, rootKeys)

	best, bestScore := root[0], 0
	for depth := 1; depth <= maxDepth; depth++ {
		s.hard = depth > 1
		m, v, err := s.rootSearch(root, depth)
		if err != nil && !errors.Is(err, errStopped) {
			return mcts.Result[yinsh.Turn]{}, err
		}
		if m != nil {
			best, bestScore = *m, v
		}
		if err != nil || v >= mateBound || v <= -mateBound {
			break
		}
		// Bring the best turn to the front for the next iteration.
		for i := range root {
			if root[i] == best {
				copy(root[1:i+1], root[:i])
				root[0] = best
				break
			}
		}
	}
	return mcts.Result[yinsh.Turn]{Move: best, Playouts: (s.nodes + NodesPerPlayout - 1) / NodesPerPlayout, Value: chance(bestScore)}, nil
}

// chance maps a score for the player to move to his chance of winning,
// 0..1: a ring up is about three chances in four.
func chance(v int) float64 {
	switch {
	case v >= mateBound:
		return 1
	case v <= -mateBound:
		return 0
	}
	return 1 / (1 + math.Exp(-float64(v)/900))
}

// rootSearch searches the root turns to depth and returns the best turn
// and its score; on errStopped, the best turn among those searched to the
// end that beats the first (nil when none is known).
func (s *searcher) rootSearch(root []yinsh.Turn, depth int) (*yinsh.Turn, int, error) {
	g := &s.stack[0].g
	me := g.Turn()
	alpha, beta := -infScore, infScore
	var best *yinsh.Turn
	for i := range root {
		child := &s.stack[1].g
		*child = *g
		child.Play(root[i])
		var v int
		var err error
		if i == 0 {
			v, err = s.child(1, depth-1, alpha, beta, me)
		} else {
			v, err = s.child(1, depth-1, alpha, alpha+1, me)
			if err == nil && v > alpha {
				v, err = s.child(1, depth-1, alpha, beta, me)
			}
		}
		if err != nil {
			return best, alpha, err
		}
		if v > alpha {
			alpha, best = v, &root[i]
		}
	}
	return best, alpha, nil
}

// child scores the position at ply for me, the player who moved into it:
// the game's result, or the search from its mover's side (the same player
// again when the other passed).
func (s *searcher) child(ply, depth, alpha, beta, me int) (int, error) {
	c := &s.stack[ply].g
	switch {
	case c.Status() != games.Playing:
		switch c.Winner() {
		case 0:
			return 0, nil
		case me:
			return winScore - ply, nil
		}
		return -winScore + ply, nil
	case c.Turn() == me:
		return s.search(ply, depth, alpha, beta)
	}
	v, err := s.search(ply, depth, -beta, -alpha)
	return -v, err
}

// search is the principal-variation search of the position at ply (the
// game goes on there) to depth, for its player to move.
func (s *searcher) search(ply, depth, alpha, beta int) (int, error) {
	s.nodes++
	if s.hard && s.budget > 0 && s.nodes >= s.budget {
		return 0, errStopped
	}
	if s.nodes&255 == 0 {
		if err := s.ctx.Err(); err != nil {
			return 0, err
		}
		if s.hard && !s.deadline.IsZero() && !time.Now().Before(s.deadline) {
			return 0, errStopped
		}
	}
	f := &s.stack[ply]
	g := &f.g
	if depth <= 0 || ply >= maxPly {
		return s.quiesce(ply, depth, alpha, beta)
	}
	key := hashOf(g)
	e := &s.tt[key&(1<<ttBits-1)]
	var ttMove yinsh.Turn
	hasTT := false
	if e.flag != 0 && e.key == key {
		ttMove, hasTT = e.move, true
		if int(e.depth) >= depth {
			v := int(e.score)
			switch {
			case e.flag == flagExact,
				e.flag == flagLower && v >= beta,
				e.flag == flagUpper && v <= alpha:
				return v, nil
			}
		}
	}
	f.moves = g.Legal(f.moves[:0])
	if cap(f.keys) < len(f.moves) {
		f.keys = make([]int32, len(f.moves), cap(f.moves))
	}
	f.keys = f.keys[:len(f.moves)]
	s.orderKeys(ply, f.moves, f.keys, ttMove, hasTT)
	me := g.Turn()
	alpha0 := alpha
	best, bestMove := -infScore, f.moves[0]
	for i := range f.moves {
		// Selection sort as we go: a cut-off usually comes early.
		k := i
		for j := i + 1; j < len(f.moves); j++ {
			if f.keys[j] > f.keys[k] {
				k = j
			}
		}
		f.moves[i], f.moves[k] = f.moves[k], f.moves[i]
		f.keys[i], f.keys[k] = f.keys[k], f.keys[i]
		m := f.moves[i]
		child := &s.stack[ply+1].g
		*child = *g
		child.Play(m)
		var v int
		var err error
		switch {
		case i == 0:
			v, err = s.child(ply+1, depth-1, alpha, beta, me)
		default:
			// Late turns of a quiet kind are searched a ply less first
			// (late move reduction): the ordering puts the good ones early.
			d := depth - 1
			if s.tu.lmr && depth >= 3 && i >= lateMoves && f.keys[i] < 1<<27 {
				d--
			}
			v, err = s.child(ply+1, d, alpha, alpha+1, me)
			if err == nil && v > alpha && d < depth-1 {
				v, err = s.child(ply+1, depth-1, alpha, alpha+1, me)
			}
			if err == nil && v > alpha && v < beta {
				v, err = s.child(ply+1, depth-1, alpha, beta, me)
			}
		}
		if err != nil {
			return 0, err
		}
		if v > best {
			best, bestMove = v, m
		}
		if v > alpha {
			alpha = v
		}
		if alpha >= beta {
			if m.NPost == 0 && m != s.killers[ply][0] {
				s.killers[ply][1], s.killers[ply][0] = s.killers[ply][0], m
			}
			if m.Action != yinsh.NoAction {
				s.history[from(m)][m.To] += int32(depth * depth)
			}
			break
		}
	}
	flag := uint8(flagExact)
	switch {
	case best <= alpha0:
		flag = flagUpper
	case best >= beta:
		flag = flagLower
	}
	*e = ttEntry{key: key, move: bestMove, score: int32(best), depth: int8(depth), flag: flag}
	return best, nil
}

// quiesce scores the position at ply for its player to move beyond the
// search's depth: the evaluation, unless he may make a row at once (a
// row is a ring, far above what the evaluation weighs), when the turns
// that make a row are searched too, qPlies deep at most, and he takes the
// better of the evaluation and those.
func (s *searcher) quiesce(ply, depth, alpha, beta int) (int, error) {
	f := &s.stack[ply]
	g := &f.g
	v := viewOf(g)
	sc, threat := evaluate(&v, &s.tu.w)
	if g.Turn() == 2 {
		sc = -sc
	}
	if !threat || !s.tu.quiesce || depth <= -qPlies || ply >= maxPly || sc >= beta {
		return sc, nil
	}
	alpha = max(alpha, sc)
	best := sc
	f.moves = g.Legal(f.moves[:0])
	me := g.Turn()
	for _, m := range f.moves {
		if m.NPost == 0 {
			continue
		}
		child := &s.stack[ply+1].g
		*child = *g
		child.Play(m)
		v, err := s.child(ply+1, depth-1, alpha, beta, me)
		if err != nil {
			return 0, err
		}
		best = max(best, v)
		alpha = max(alpha, v)
		if alpha >= beta {
			break
		}
	}
	return best, nil
}

// lateMoves is the number of turns of a node searched to the full depth
// before the late move reduction.
const lateMoves = 4

// qPlies bounds the quiescence search: a row made, answered by a row.
const qPlies = 3

// from is the point a turn's ring leaves, its destination for a
// placement: the history table's first index.
func from(m yinsh.Turn) yinsh.Point {
	if m.Action == yinsh.Place {
		return m.To
	}
	return m.From
}

// orderKeys ranks the turns of the position at ply, higher first: the
// table's turn, turns that win, turns that remove a row of the mover's,
// the killers, then ring moves by the markers they turn to the mover's
// colour and the history of cut-offs; placements by their freedom.
func (s *searcher) orderKeys(ply int, moves []yinsh.Turn, keys []int32, ttMove yinsh.Turn, hasTT bool) {
	g := &s.stack[ply].g
	v := viewOf(g)
	me := v.toMove
	goal := 3
	if g.Variant() == yinsh.Blitz {
		goal = 1
	}
	for i, m := range moves {
		var k int32
		switch {
		case hasTT && m == ttMove:
			k = 1 << 30
		case m.NPost > 0 && v.removed[me]+int(m.NPre)+int(m.NPost) >= goal:
			k = 1 << 29
		case m.NPost > 0:
			k = 1<<28 + int32(m.NPost)<<20
		case m == s.killers[min(ply, maxPly-1)][0]:
			k = 1 << 27
		case m == s.killers[min(ply, maxPly-1)][1]:
			k = 1<<27 - 1
		case m.Action == yinsh.Move:
			between, n := yinsh.Between(m.From, m.To)
			gain := 0
			for _, p := range between[:n] {
				switch {
				case v.markers[1-me].has(p):
					gain++
				case v.markers[me].has(p):
					gain--
				}
			}
			k = int32(gain+10)<<20 + min(s.history[m.From][m.To], 1<<20-1)
		case m.Action == yinsh.Place:
			k = int32(yinsh.Reach(m.To))<<20 + min(s.history[m.To][m.To], 1<<20-1)
		}
		keys[i] = k
	}
}

// sortByKeys sorts moves by keys, higher first, stable.
func sortByKeys(moves []yinsh.Turn, keys []int32) {
	for i := 1; i < len(moves); i++ {
		for j := i; j > 0 && keys[j] > keys[j-1]; j-- {
			moves[j], moves[j-1] = moves[j-1], moves[j]
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
}

// hashOf is the transposition table's key of a position: its pieces, the
// player to move and the rings removed, mixed.
func hashOf(g *yinsh.Game) uint64 {
	r, m := g.Bits()
	h := uint64(g.Turn()) | uint64(g.Removed(1))<<4 | uint64(g.Removed(2))<<8
	for _, w := range [8]uint64{r[0][0], r[0][1], r[1][0], r[1][1], m[0][0], m[0][1], m[1][0], m[1][1]} {
		h = mix(h ^ w)
	}
	return h
}

// mix is splitmix64's finalizer.
func mix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
