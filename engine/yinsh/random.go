package yinsh

// RandomTurn returns a legal turn of the player to move, each choice drawn
// with intn (which returns a number in [0, n)): the rows and rings of the
// removals uniformly at each step, a ring move by drawing a ring and a
// direction until one has a destination, then a destination on that line.
// It is for playouts: far cheaper than Legal, but not uniform over whole
// turns. The game must not be over.
func (g *Game) RandomTurn(intn func(n int) int) Turn {
	me := g.turn - 1
	b := g.b
	var t Turn
	removals := func(rs *[MaxRemovals]Removal, n *uint8) bool {
		for rows := b.rows(me); rows != (set{}); rows = b.rowsIn(me, rows) {
			w := nth(rows, intn(rows.count()))
			ring := nth(b.rings[me], intn(b.rings[me].count()))
			b.removeRow(me, int(w), ring)
			rs[*n] = Removal{From: geo.windows[w].from, To: geo.windows[w].to, Ring: ring}
			*n++
			if b.removed[me] == g.target() {
				return true
			}
		}
		return false
	}
	if removals(&t.Pre, &t.NPre) {
		return t
	}
	if b.placed < placements {
		free := b.occupied()
		free[0], free[1] = ^free[0], ^free[1]&(1<<(NumPoints-64)-1)
		t.Action, t.To = Place, nth(free, intn(free.count()))
		return t
	}
	if !b.canMove(me) {
		return t
	}
	rings := b.rings[0].or(b.rings[1])
	marks := b.markers[0].or(b.markers[1])
	var dests [10]Point
	for {
		p := nth(b.rings[me], intn(b.rings[me].count()))
		n := 0
		jumped := false
		for _, q := range p.rays(intn(len(directions))) {
			if rings.has(q) {
				break
			}
			if marks.has(q) {
				jumped = true
				continue
			}
			dests[n] = q
			n++
			if jumped {
				break
			}
		}
		if n > 0 {
			t.Action, t.From, t.To = Move, p, dests[intn(n)]
			break
		}
	}
	b.move(me, t.From, t.To)
	removals(&t.Post, &t.NPost)
	return t
}

// nth returns the i-th point of s in point order.
func nth(s set, i int) Point {
	for range i {
		s.del(s.first())
	}
	return s.first()
}
