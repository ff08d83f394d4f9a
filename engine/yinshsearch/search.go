package yinshsearch

import (
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/mcts"
	"lyngk.example/lyngk/engine/yinsh"
)

// policy is the previous robot's part of the Monte Carlo tree search
// (Baseline): its turn classes and playout; the rules are the position's
// own.
//
// Each turn gets a class from one look at the board (Class): a turn whose
// own removals win ranks highest, then one that removes a row of the
// mover's, then ring moves by the markers they turn to the mover's colour;
// placements rank a point with room on all six lines above an edge point.
// Unvisited children are tried in class order, so a winning turn is tried
// first.
//
// A playout plays the game to its end with yinsh.Game.RandomTurn: a random
// ring and direction with a destination, random rows and rings for the
// removals. That is not uniform over whole turns, but it costs one ring
// move's check instead of the list of every turn (about 80 µs of CPU for
// a playout from a middle game, against several hundred with Legal).
type policy struct {
	mcts.Rules[yinsh.Game, yinsh.Turn, *yinsh.Game]
}

// Playout plays g out with playOut; it needs no room for moves.
func (policy) Playout(g *yinsh.Game, r *mcts.RNG, buf []yinsh.Turn) (int, []yinsh.Turn) {
	return playOut(g, r), buf
}

// Class ranks a turn by one look at the board: 7 when its own removals
// win, 6 when it removes a row of the mover's after the move, else 1 to 5
// by the markers its move turns to the mover's colour (each opponent's
// marker flipped counts +1, each own -1, from 3 for none); a placement is
// 2 on a point with at least two points on each of its six lines, else 1.
func (policy) Class(g *yinsh.Game, t yinsh.Turn) uint8 {
	me := g.Turn()
	switch {
	case t.NPost > 0 && g.Removed(me)+int(t.NPre)+int(t.NPost) >= target(g):
		return mcts.NumClasses - 1
	case t.NPost > 0:
		return mcts.NumClasses - 2
	case t.Action == yinsh.Place:
		if central[t.To] {
			return 2
		}
		return 1
	case t.Action != yinsh.Move:
		return 0
	}
	gain := 3
	between, n := yinsh.Between(t.From, t.To)
	for _, p := range between[:n] {
		switch pl, ring := g.Piece(p); {
		case ring || pl == 0:
		case pl == me:
			gain--
		default:
			gain++
		}
	}
	return uint8(min(max(gain, 1), 5))
}

func target(g *yinsh.Game) int {
	if g.Variant() == yinsh.Blitz {
		return 1
	}
	return 3
}

// central marks the points with at least two points on each of their six
// lines.
var central = func() (c [yinsh.NumPoints]bool) {
	for p := range yinsh.Point(yinsh.NumPoints) {
		c[p] = yinsh.Reach(p) >= 2
	}
	return c
}()

// playOut finishes the game with random turns (yinsh.RandomTurn) and
// returns the winner, 0 for a tie.
func playOut(g *yinsh.Game, r *mcts.RNG) int {
	for g.Status() == games.Playing {
		if err := g.Apply(g.RandomTurn(r.Intn)); err != nil {
			panic("yinshsearch: a random turn is refused: " + err.Error())
		}
	}
	return g.Winner()
}
