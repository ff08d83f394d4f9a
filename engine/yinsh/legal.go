package yinsh

import "lyngk.example/lyngk/engine/games"

// Legal appends every legal whole turn of the player to move to buf and
// returns it: each sequence of removals owed (row, then ring, in every
// order), each placement or ring move, each sequence of the mover's own
// removals. Two removals made in the other order are two turns. It is empty
// when the game is over. Nothing is allocated when buf has room.
func (g *Game) Legal(buf []Turn) []Turn {
	if g.status != games.Playing || g.turn == 0 {
		return buf
	}
	gen := generator{buf: buf, me: g.turn - 1, target: g.target()}
	gen.removals(g.b, Turn{}, g.b.rows(gen.me), false)
	return gen.buf
}

type generator struct {
	buf    []Turn
	me     uint8
	target uint8
}

// removals lists the removals of rows on b (the rows owed before the
// action, or the mover's after it): every row, every ring, then the rest.
// Removing markers makes no new row, so the rows left are among rows. With
// no row left it goes on to the action, or emits t.
func (gen *generator) removals(b board, t Turn, rows set, after bool) {
	me := gen.me
	if rows == (set{}) {
		if after {
			gen.buf = append(gen.buf, t)
		} else {
			gen.action(&b, t)
		}
		return
	}
	for ws := rows; ws != (set{}); {
		w := ws.first()
		ws.del(w)
		for r := b.rings[me]; r != (set{}); {
			ring := r.first()
			r.del(ring)
			nb := b
			nb.removeRow(me, int(w), ring)
			nt := t
			rm := Removal{From: geo.windows[w].from, To: geo.windows[w].to, Ring: ring}
			if after {
				nt.Post[nt.NPost] = rm
				nt.NPost++
			} else {
				nt.Pre[nt.NPre] = rm
				nt.NPre++
			}
			if nb.removed[me] == gen.target {
				gen.buf = append(gen.buf, nt)
				continue
			}
			gen.removals(nb, nt, nb.rowsIn(me, rows), after)
		}
	}
}

// action lists the placements or ring moves on b, each followed by the
// mover's removals; with neither, t as it is (removals alone).
func (gen *generator) action(b *board, t Turn) {
	me := gen.me
	if b.placed < placements {
		occ := b.occupied()
		for p := range Point(NumPoints) {
			if !occ.has(p) {
				nt := t
				nt.Action, nt.To = Place, p
				gen.buf = append(gen.buf, nt)
			}
		}
		return
	}
	rings := b.rings[0].or(b.rings[1])
	marks := b.markers[0].or(b.markers[1])
	n0 := len(gen.buf)
	for r := b.rings[me]; r != (set{}); {
		p := r.first()
		r.del(p)
		for d := range directions {
			jumped := false
			for _, q := range p.rays(d) {
				if rings.has(q) {
					break
				}
				if marks.has(q) {
					jumped = true
					continue
				}
				nb := *b
				changed := nb.move(me, p, q)
				nt := t
				nt.Action, nt.From, nt.To = Move, p, q
				gen.removals(nb, nt, nb.rowsThrough(me, changed), true)
				if jumped {
					break
				}
			}
		}
	}
	if len(gen.buf) == n0 {
		gen.buf = append(gen.buf, t)
	}
}
