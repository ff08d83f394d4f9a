package mcts

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"
)

// ErrNoMove is returned for a position without a move: the game is over.
var ErrNoMove = errors.New("search: the game is over, there is no move to choose")

// Options set the budget of a search: Iterations playouts in all when it is
// above 0 (deterministic for a Seed), else as many as fit in Think.
type Options struct {
	Iterations int
	Think      time.Duration
	// Workers is the number of trees grown in parallel (root parallelism),
	// at least 1.
	Workers int
	Seed    uint64
}

// Result is the robot's choice and what the search saw.
type Result[M comparable] struct {
	Move M
	// Playouts is the number of iterations run, all workers together.
	Playouts int
	// Value is the mean result of Move for the player to move, 0..1
	// (1 = a sure win), from the visits of the root.
	Value float64
}

// NumClasses bounds the classes a Policy gives moves: 0..NumClasses-1.
const NumClasses = 8

// Policy is what a game brings to the search: its rules as the tree sees
// them and its playout. G is the position (a value: the tree copies it),
// M a move. A Policy must be safe for concurrent use by the workers (a
// stateless value is).
type Policy[G any, M comparable] interface {
	// Playing reports whether the game goes on.
	Playing(g *G) bool
	// Turn returns the player to move, 1 or 2.
	Turn(g *G) int
	// Legal appends the legal moves of g to buf, in a fixed order.
	Legal(g *G, buf []M) []M
	// Class ranks a legal move by one look at the board, 0..NumClasses-1,
	// higher first.
	Class(g *G, m M) uint8
	// Apply plays a legal move.
	Apply(g *G, m M) error
	// Playout plays g to its end drawing from r and returns the winner (0
	// for a tie) and buf, scratch room for moves it may grow.
	Playout(g *G, r *RNG, buf []M) (winner int, _ []M)
}

// Config is the tuning of a game's search: the exploration constant of
// UCB, the value of an unvisited child, the weight of the class bonus, the
// visits a leaf needs before it is expanded, the arena size in nodes, and
// room for the legal moves of any position.
type Config struct {
	Explore, FPU, ClassBonus float64
	ExpandAt                 uint32
	// Grow, when set, raises the visits a leaf needs as the arena fills:
	// ExpandAt times the arena's size over its free room (twice ExpandAt
	// half full, ten times at nine tenths), so that a long search keeps
	// growing its tree, ever more selectively, where a fixed ExpandAt
	// fills the arena within the first part of the budget.
	Grow       bool
	ArenaNodes int
	MaxMoves   int
}

// Tuned is a Config with the tuning the strength runs set for LYNGK
// (engine/README.md), which YINSH's runs found good enough too: the
// exploration constant of UCB 0.6, an unvisited child worth 0.5, a class
// bonus of 0.08, expansion at the second visit; arenaNodes and maxMoves
// are the game's own.
func Tuned(arenaNodes, maxMoves int) Config {
	return Config{Explore: 0.6, FPU: 0.5, ClassBonus: 0.08, ExpandAt: 2, ArenaNodes: arenaNodes, MaxMoves: maxMoves}
}

// clockEvery is the number of iterations between two looks at the clock.
const clockEvery = 64

// Search chooses a move for the player to move in g. It returns ErrNoMove
// when the game is over and ctx.Err() when ctx ends first (a time-budget
// search stops at the deadline without error). A position with a single
// legal move is answered at once.
func Search[G any, M comparable, P Policy[G, M]](ctx context.Context, g *G, p P, cfg Config, o Options) (Result[M], error) {
	if !p.Playing(g) {
		return Result[M]{}, ErrNoMove
	}
	if o.Iterations <= 0 && o.Think <= 0 {
		return Result[M]{}, fmt.Errorf("search: give an iteration budget or a think time")
	}
	root := p.Legal(g, nil)
	if len(root) == 1 {
		return Result[M]{Move: root[0], Value: 0.5}, nil
	}
	workers := max(o.Workers, 1)
	var deadline time.Time
	if o.Iterations <= 0 {
		deadline = time.Now().Add(o.Think)
	}
	trees := make([]*Tree[G, M, P], workers)
	var wg sync.WaitGroup
	for i := range trees {
		budget := 0
		if o.Iterations > 0 {
			budget = o.Iterations / workers
			if i < o.Iterations%workers {
				budget++
			}
		}
		t := NewTree(g, p, cfg, o.Seed+uint64(i), budget)
		trees[i] = t
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.run(ctx, deadline)
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return Result[M]{}, err
	}

	// The root children are in class order in every tree; sum by move.
	visits := make(map[M][2]uint64, len(root))
	playouts := 0
	for _, t := range trees {
		playouts += t.iterations
		r := &t.nodes[0]
		for _, c := range t.nodes[r.first : r.first+int32(r.nkids)] {
			v := visits[c.move]
			visits[c.move] = [2]uint64{v[0] + uint64(c.n), v[1] + uint64(c.w)}
		}
	}
	best, bestN := root[0], uint64(0)
	for _, m := range root {
		if v := visits[m]; v[0] > bestN {
			best, bestN = m, v[0]
		}
	}
	res := Result[M]{Move: best, Playouts: playouts, Value: 0.5}
	if v := visits[best]; v[0] > 0 {
		res.Value = float64(v[1]) / float64(2*v[0])
	}
	return res, nil
}

// node is one move in a tree. w counts half points (2 per win, 1 per tie)
// for the player who made the move; first is the index of the first child
// in the arena, 0 while the node is not expanded (the root is node 0 and
// never anybody's child).
type node[M comparable] struct {
	move  M
	class uint8
	nkids uint16
	n, w  uint32
	first int32
}

// Tree is one worker's search: its arena, generator and scratch buffers,
// all allocated before the first iteration.
type Tree[G any, M comparable, P Policy[G, M]] struct {
	p          P
	cfg        Config
	root       G
	cur        G // the game of the iteration, kept here so it never escapes
	nodes      []node[M]
	rng        RNG
	budget     int
	iterations int
	path       []int32
	movers     []uint8
	moves      []M
	classes    []uint8
	playout    []M
}

// NewTree returns a tree for g with its root expanded, seeded with seed,
// for budget iterations (0: as many as run calls for). Search uses one per
// worker; a game's tests use one to measure an iteration.
func NewTree[G any, M comparable, P Policy[G, M]](g *G, p P, cfg Config, seed uint64, budget int) *Tree[G, M, P] {
	size := cfg.ArenaNodes
	if budget > 0 {
		// A budget bounds the expansions: budget/ExpandAt of them, each
		// with at most MaxMoves children, and never more than the cap.
		size = min(size, 1+budget*cfg.MaxMoves/int(cfg.ExpandAt))
	}
	t := &Tree[G, M, P]{
		p:       p,
		cfg:     cfg,
		root:    *g,
		nodes:   make([]node[M], 1, size),
		rng:     RNG(seed),
		budget:  budget,
		path:    make([]int32, 0, 128),
		movers:  make([]uint8, 0, 128),
		moves:   make([]M, 0, cfg.MaxMoves),
		classes: make([]uint8, 0, cfg.MaxMoves),
		playout: make([]M, 0, cfg.MaxMoves),
	}
	t.expand(0, g)
	return t
}

// Full reports whether the arena may lack room for one more expansion.
func (t *Tree[G, M, P]) Full() bool { return len(t.nodes)+t.cfg.MaxMoves > cap(t.nodes) }

// run iterates until the budget is spent, the deadline passes or ctx ends.
// A think time gets at least one playout per worker, however late the
// worker started on a busy machine.
func (t *Tree[G, M, P]) run(ctx context.Context, deadline time.Time) {
	for t.budget <= 0 || t.iterations < t.budget {
		if t.iterations%clockEvery == 0 {
			if ctx.Err() != nil || (t.budget <= 0 && t.iterations > 0 && !time.Now().Before(deadline)) {
				return
			}
		}
		t.Iterate()
		t.iterations++
	}
}

// expandAt is the visits a leaf needs to be expanded now (Config.Grow).
func (t *Tree[G, M, P]) expandAt() uint32 {
	if !t.cfg.Grow {
		return t.cfg.ExpandAt
	}
	free := max(cap(t.nodes)-len(t.nodes), 1)
	return uint32(min(int(t.cfg.ExpandAt)*cap(t.nodes)/free, math.MaxUint32))
}

// Iterate is one descent, expansion, playout and back-up.
func (t *Tree[G, M, P]) Iterate() {
	t.cur = t.root
	g := &t.cur
	t.path = append(t.path[:0], 0)
	t.movers = t.movers[:0]
	cur := int32(0)
	for {
		nd := &t.nodes[cur]
		if nd.first == 0 {
			if nd.n+1 >= t.expandAt() && t.p.Playing(g) && t.expand(cur, g) {
				continue
			}
			break
		}
		child := t.selectChild(nd)
		t.movers = append(t.movers, uint8(t.p.Turn(g)))
		if err := t.p.Apply(g, t.nodes[child].move); err != nil {
			panic("search: a stored move is illegal: " + err.Error())
		}
		t.path = append(t.path, child)
		cur = child
	}
	var winner int
	winner, t.playout = t.p.Playout(g, &t.rng, t.playout[:0])
	t.nodes[0].n++
	for i, idx := range t.path[1:] {
		nd := &t.nodes[idx]
		nd.n++
		switch {
		case winner == 0:
			nd.w++
		case int(t.movers[i]) == winner:
			nd.w += 2
		}
	}
}

// selectChild returns the child of nd with the best bound. The visited
// children are a prefix (unvisited ones are taken in class order), so the
// scan stops at the first unvisited child.
func (t *Tree[G, M, P]) selectChild(nd *node[M]) int32 {
	kids := t.nodes[nd.first : nd.first+int32(nd.nkids)]
	logN := math.Log(float64(nd.n + 1))
	best, bestU := 0, math.Inf(-1)
	for i := range kids {
		c := &kids[i]
		bonus := t.cfg.ClassBonus * float64(c.class)
		var u float64
		if c.n == 0 {
			u = t.cfg.FPU + bonus
		} else {
			n := float64(c.n)
			u = float64(c.w)/(2*n) + t.cfg.Explore*math.Sqrt(logN/n) + bonus/(n+1)
		}
		if u > bestU {
			best, bestU = i, u
		}
		if c.n == 0 {
			break
		}
	}
	return nd.first + int32(best)
}

// expand gives node idx its children, the legal moves of g in class order,
// and reports whether the arena had room.
func (t *Tree[G, M, P]) expand(idx int32, g *G) bool {
	t.moves = t.p.Legal(g, t.moves[:0])
	if len(t.nodes)+len(t.moves) > cap(t.nodes) {
		return false
	}
	t.classes = t.classes[:0]
	var count [NumClasses + 1]int
	for _, m := range t.moves {
		c := t.p.Class(g, m)
		t.classes = append(t.classes, c)
		count[c+1]++
	}
	// Counting sort, highest class first, stable within a class.
	var start [NumClasses]int
	for c, pos := NumClasses-1, 0; c >= 0; c-- {
		start[c] = pos
		pos += count[c+1]
	}
	first := len(t.nodes)
	t.nodes = t.nodes[:first+len(t.moves)]
	for i, m := range t.moves {
		c := t.classes[i]
		t.nodes[first+start[c]] = node[M]{move: m, class: c}
		start[c]++
	}
	nd := &t.nodes[idx]
	nd.first, nd.nkids = int32(first), uint16(len(t.moves))
	return true
}

// RNG is splitmix64: small, fast and fully determined by its seed.
type RNG uint64

// Next returns the next 64 random bits.
func (r *RNG) Next() uint64 {
	*r += 0x9e3779b97f4a7c15
	z := uint64(*r)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// Intn returns a number in [0, n), n > 0.
func (r *RNG) Intn(n int) int { return int(r.Next() % uint64(n)) }
