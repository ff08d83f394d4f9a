package search

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"lyngk.example/lyngk/engine/lyngk"
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
type Result struct {
	Move lyngk.Move
	// Playouts is the number of iterations run, all workers together.
	Playouts int
	// Value is the mean result of Move for the player to move, 0..1
	// (1 = a sure win), from the visits of the root.
	Value float64
}

// Search chooses a move for the player to move in g. It returns ErrNoMove
// when the game is over and ctx.Err() when ctx ends first (a time-budget
// search stops at the deadline without error). A position with a single
// legal move is answered at once.
func Search(ctx context.Context, g *lyngk.Game, o Options) (Result, error) {
	if g.Status() != lyngk.Playing {
		return Result{}, ErrNoMove
	}
	if o.Iterations <= 0 && o.Think <= 0 {
		return Result{}, fmt.Errorf("search: give an iteration budget or a think time")
	}
	root := g.Legal(nil)
	if len(root) == 1 {
		return Result{Move: root[0], Value: 0.5}, nil
	}
	workers := max(o.Workers, 1)
	var deadline time.Time
	if o.Iterations <= 0 {
		deadline = time.Now().Add(o.Think)
	}
	trees := make([]*tree, workers)
	var wg sync.WaitGroup
	for i := range trees {
		budget := 0
		if o.Iterations > 0 {
			budget = o.Iterations / workers
			if i < o.Iterations%workers {
				budget++
			}
		}
		t := newTree(g, o.Seed+uint64(i), budget)
		trees[i] = t
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.run(ctx, deadline)
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}

	// The root children are in class order in every tree; sum by move.
	visits := make(map[lyngk.Move][2]uint64, len(root))
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
	res := Result{Move: best, Playouts: playouts, Value: 0.5}
	if v := visits[best]; v[0] > 0 {
		res.Value = float64(v[1]) / float64(2*v[0])
	}
	return res, nil
}

// Tuning, set by the strength runs (README): the exploration constant of
// UCB, the value of an unvisited child, the weight of the class bonus, the
// visits a leaf needs before it is expanded, and the arena size.
const (
	explore    = 0.6
	fpu        = 0.5
	classBonus = 0.08
	expandAt   = 2
	arenaNodes = 1 << 20
	clockEvery = 64 // iterations between two looks at the clock
)

// node is one move in a tree. w counts half points (2 per win, 1 per tie)
// for the player who made the move; first is the index of the first child
// in the arena, 0 while the node is not expanded (the root is node 0 and
// never anybody's child).
type node struct {
	move  lyngk.Move
	class uint8
	nkids uint16
	n, w  uint32
	first int32
}

// tree is one worker's search: its arena, generator and scratch buffers,
// all allocated before the first iteration.
type tree struct {
	root       lyngk.Game
	nodes      []node
	rng        rng
	budget     int
	iterations int
	path       []int32
	movers     []uint8
	moves      []lyngk.Move
	classes    []uint8
	playout    []lyngk.Move
}

func newTree(g *lyngk.Game, seed uint64, budget int) *tree {
	size := arenaNodes
	if budget > 0 {
		// A budget bounds the expansions: budget/expandAt of them, each
		// with at most a thousand children, and never more than the cap.
		size = min(size, 1+budget*maxMoves/expandAt)
	}
	t := &tree{
		root:    *g,
		nodes:   make([]node, 1, size),
		rng:     rng(seed),
		budget:  budget,
		path:    make([]int32, 0, 128),
		movers:  make([]uint8, 0, 128),
		moves:   make([]lyngk.Move, 0, maxMoves),
		classes: make([]uint8, 0, maxMoves),
		playout: make([]lyngk.Move, 0, maxMoves),
	}
	t.expand(0, g)
	return t
}

// maxMoves is room for the legal moves of any position (about 1,100 at the
// start, claim variants included; Legal grows the buffer if ever needed).
const maxMoves = 2048

// run iterates until the budget is spent, the deadline passes or ctx ends.
// A think time gets at least one playout per worker, however late the
// worker started on a busy machine.
func (t *tree) run(ctx context.Context, deadline time.Time) {
	for t.budget <= 0 || t.iterations < t.budget {
		if t.iterations%clockEvery == 0 {
			if ctx.Err() != nil || (t.budget <= 0 && t.iterations > 0 && !time.Now().Before(deadline)) {
				return
			}
		}
		t.iterate()
		t.iterations++
	}
}

// iterate is one descent, expansion, playout and back-up.
func (t *tree) iterate() {
	g := t.root
	t.path = append(t.path[:0], 0)
	t.movers = t.movers[:0]
	cur := int32(0)
	for {
		nd := &t.nodes[cur]
		if nd.first == 0 {
			if nd.n+1 >= expandAt && g.Status() == lyngk.Playing && t.expand(cur, &g) {
				continue
			}
			break
		}
		child := t.selectChild(nd)
		t.movers = append(t.movers, uint8(g.Turn()))
		if err := g.Apply(t.nodes[child].move); err != nil {
			panic("search: a stored move is illegal: " + err.Error())
		}
		t.path = append(t.path, child)
		cur = child
	}
	winner := t.playOut(&g)
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
func (t *tree) selectChild(nd *node) int32 {
	kids := t.nodes[nd.first : nd.first+int32(nd.nkids)]
	logN := math.Log(float64(nd.n + 1))
	best, bestU := 0, math.Inf(-1)
	for i := range kids {
		c := &kids[i]
		bonus := classBonus * float64(c.class)
		var u float64
		if c.n == 0 {
			u = fpu + bonus
		} else {
			n := float64(c.n)
			u = float64(c.w)/(2*n) + explore*math.Sqrt(logN/n) + bonus/(n+1)
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

// numClasses bounds class values (see class).
const numClasses = 8

// expand gives node idx its children, the legal moves of g in class order,
// and reports whether the arena had room.
func (t *tree) expand(idx int32, g *lyngk.Game) bool {
	t.moves = g.Legal(t.moves[:0])
	if len(t.nodes)+len(t.moves) > cap(t.nodes) {
		return false
	}
	t.classes = t.classes[:0]
	var count [numClasses + 1]int
	for _, m := range t.moves {
		c := class(g, m)
		t.classes = append(t.classes, c)
		count[c+1]++
	}
	// Counting sort, highest class first, stable within a class.
	var start [numClasses]int
	for c, pos := numClasses-1, 0; c >= 0; c-- {
		start[c] = pos
		pos += count[c+1]
	}
	first := len(t.nodes)
	t.nodes = t.nodes[:first+len(t.moves)]
	for i, m := range t.moves {
		c := t.classes[i]
		t.nodes[first+start[c]] = node{move: m, class: c}
		start[c]++
	}
	nd := &t.nodes[idx]
	nd.first, nd.nkids = int32(first), uint16(len(t.moves))
	return true
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
		return numClasses - 1
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
// winner, 0 for a tie.
func (t *tree) playOut(g *lyngk.Game) int {
	maxH := maxHeight(g)
	for g.Status() == lyngk.Playing {
		me := g.Turn()
		claims := 0
		for c := lyngk.Ivory; c <= lyngk.Black; c++ {
			if g.Owner(c) == me {
				claims++
			}
		}
		t.playout = g.LegalPlain(t.playout[:0])
		scoring := 0
		var pick lyngk.Move
		for _, m := range t.playout {
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
			if t.rng.intn(scoring) == 0 {
				pick = m
			}
		}
		if scoring == 0 {
			if len(t.playout) == 0 || t.rng.next()&1 == 0 {
				t.playout = g.Legal(t.playout[:0])
			}
			pick = t.playout[t.rng.intn(len(t.playout))]
		}
		if err := g.Apply(pick); err != nil {
			panic("search: a legal move is refused: " + err.Error())
		}
	}
	return g.Winner()
}

// rng is splitmix64: small, fast and fully determined by its seed.
type rng uint64

func (r *rng) next() uint64 {
	*r += 0x9e3779b97f4a7c15
	z := uint64(*r)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }
