package yinsh

import "lyngk.example/lyngk/engine/games"

// Turn returns the player to move, 1 (white) or 2 (black); 0 when over.
func (g *Game) Turn() int { return int(g.turn) }

// Status returns whether the game goes on, was won, or was a tie.
func (g *Game) Status() games.Outcome { return g.status }

// Winner returns 1 or 2 when the game was won, else 0.
func (g *Game) Winner() int { return int(g.winner) }

// Variant returns the rule set.
func (g *Game) Variant() Variant { return g.variant }

// Removed returns the rings player (1 or 2) has removed.
func (g *Game) Removed(player int) int { return int(g.b.removed[player-1]) }

// Pool returns the markers left off the board.
func (g *Game) Pool() int { return g.b.pool() }

// Placing reports whether rings are still being placed.
func (g *Game) Placing() bool { return g.b.placed < placements }

// Rings returns the points of player's rings, in point order.
func (g *Game) Rings(player int) []Point { return points(g.b.rings[player-1]) }

// Markers returns the points of the markers showing player's colour, in
// point order.
func (g *Game) Markers(player int) []Point { return points(g.b.markers[player-1]) }

// Piece describes a point: 0 vacant, else the player (1 white, 2 black) and
// whether it is a ring (else a marker).
func (g *Game) Piece(p Point) (player int, ring bool) {
	for c := range 2 {
		switch {
		case g.b.rings[c].has(p):
			return c + 1, true
		case g.b.markers[c].has(p):
			return c + 1, false
		}
	}
	return 0, false
}

// Moves returns the record: every turn in long form, passes included.
func (g *Game) Moves() []Turn { return append([]Turn(nil), g.hist[:g.nhist]...) }

// MoveCount returns the number of turns recorded, passes included.
func (g *Game) MoveCount() int { return int(g.nhist) }

// LastTurn returns the last turn recorded and whether there is one.
func (g *Game) LastTurn() (Turn, bool) {
	if g.nhist == 0 {
		return Pass, false
	}
	return g.hist[g.nhist-1], true
}

func points(s set) []Point {
	var ps []Point
	for s != (set{}) {
		p := s.first()
		s.del(p)
		ps = append(ps, p)
	}
	return ps
}

// Bits returns the rings and the markers of each player (index 0 white,
// 1 black) as bit sets: point p is bit p%64 of word p/64. It is for
// evaluations that weigh the whole board at once (a robot's), which would
// otherwise ask Piece 85 times.
func (g *Game) Bits() (rings, markers [2][2]uint64) {
	for c := range 2 {
		rings[c], markers[c] = g.b.rings[c], g.b.markers[c]
	}
	return rings, markers
}
