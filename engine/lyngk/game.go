package lyngk

import (
	"math/bits"

	"lyngk.example/lyngk/engine/games"
)

// Variant is the standard game or the stack6 variant (rulebook H), named
// by Rules' Variants.
type Variant uint8

// The variants.
const (
	Standard Variant = iota
	Stack6
)

// maxHistory bounds the move record. Every real move merges two stacks, so a
// game from at most 43 stacks has at most 42 of them; a pass is recorded only
// after a real move or a SetTurn, so at most 43 passes.
const maxHistory = 88

// Game is a LYNGK position with its move record. It holds fixed-size arrays
// only: a Game is a value, and copying it takes a full snapshot.
type Game struct {
	// Stacks, one entry per point. pcs holds the pieces bottom first, 3 bits
	// (a Color) each; mask has bit c set when colour c (Ivory..Black) is in
	// the stack. Jokers may repeat, so they stay out of the mask.
	pcs  [NumPoints]uint32
	h    [NumPoints]uint8
	top  [NumPoints]Color
	mask [NumPoints]uint8

	// Bitboards kept in step with the arrays above: occupied points; points
	// by top colour; points whose stack holds colour c; points by height.
	// nb[p] is, for an occupied point p, the set of the first stacks met in
	// the six directions from p: the straight-line moves, kept up to date as
	// points fill and empty.
	occ  uint64
	nb   [NumPoints]uint64
	tops [Joker + 1]uint64
	has  [Black + 1]uint64
	hgt  [7]uint64

	owner   [Joker + 1]uint8 // 0 = neutral, else the player who claimed the colour
	claims  [2][2]Color
	nclaims [2]uint8
	removed [2]uint8

	variant Variant
	status  games.Outcome
	turn    uint8 // 1 or 2; 0 when over
	winner  uint8

	nhist uint8
	hist  [maxHistory]Move
}

// New returns the start position of gamerz board number board (SPEC §1): the
// 43 pieces shuffled with glibc random() seeded by srandom(board), placed row
// by row. Player 1 moves first.
func New(board int, v Variant) Game {
	var pieces [NumPoints]Color
	n := 0
	for c := Ivory; c <= Black; c++ {
		for range 8 {
			pieces[n] = c
			n++
		}
	}
	for ; n < NumPoints; n++ {
		pieces[n] = Joker
	}
	r := newGlibcRandom(uint32(board))
	for l := uint32(NumPoints); l >= 2; l-- {
		i := r.next() % l
		pieces[l-1], pieces[i] = pieces[i], pieces[l-1]
	}
	g := Game{variant: v, turn: 1}
	for i, p := range geo.start {
		g.put(p, uint32(pieces[i]), 1)
	}
	return g
}

// glibcRandom is glibc's random() after srandom(seed) with the default TYPE_3
// state: an additive generator over a ring of 31 words, where each output
// word is the sum of the words 31 and 3 places back.
type glibcRandom struct {
	r    [31]uint32
	f, b int // the slot written next, and the slot added to it
}

func newGlibcRandom(seed uint32) glibcRandom {
	if seed == 0 {
		seed = 1
	}
	g := glibcRandom{f: 3, b: 0}
	// srandom fills the state with 16807*r[i-1] % (2^31-1), computed by
	// Schrage's method on signed 32-bit words as glibc does.
	word := int32(seed)
	g.r[0] = uint32(word)
	for i := 1; i < 31; i++ {
		hi, lo := word/127773, word%127773
		word = 16807*lo - 2836*hi
		if word < 0 {
			word += 2147483647
		}
		g.r[i] = uint32(word)
	}
	for range 310 {
		g.next()
	}
	return g
}

// next returns the next output of random(): the new word shifted right once.
func (g *glibcRandom) next() uint32 {
	g.r[g.f] += g.r[g.b]
	v := g.r[g.f]
	if g.f++; g.f == len(g.r) {
		g.f = 0
	}
	if g.b++; g.b == len(g.r) {
		g.b = 0
	}
	return v >> 1
}

// put places a stack of height h > 0 on an empty point.
func (g *Game) put(p Point, pcs uint32, h uint8) {
	g.occupy(p)
	g.setStack(p, pcs, h)
}

// clear empties an occupied point.
func (g *Game) clear(p Point) {
	g.unsetStack(p)
	g.vacate(p)
}

// setStack writes the stack on an occupied point whose stack data is clear.
func (g *Game) setStack(p Point, pcs uint32, h uint8) {
	b := uint64(1) << p
	top := Color(pcs >> (3 * (h - 1)) & 7)
	var mask uint8
	for i := range h {
		if c := Color(pcs >> (3 * i) & 7); c != Joker {
			mask |= 1 << c
			g.has[c] |= b
		}
	}
	g.pcs[p], g.h[p], g.top[p], g.mask[p] = pcs, h, top, mask
	g.tops[top] |= b
	g.hgt[h] |= b
}

// unsetStack clears the stack data of an occupied point, leaving it occupied.
func (g *Game) unsetStack(p Point) {
	b := uint64(1) << p
	g.tops[g.top[p]] &^= b
	g.hgt[g.h[p]] &^= b
	for m := g.mask[p]; m != 0; m &= m - 1 {
		g.has[bits.TrailingZeros8(m)] &^= b
	}
	g.pcs[p], g.h[p], g.top[p], g.mask[p] = 0, 0, 0, 0
}

// occupy marks an empty point occupied and updates the neighbour sets: on
// each of the three lines through p, the nearest stacks a and b on either
// side, which saw each other, now see p instead.
func (g *Game) occupy(p Point) {
	r := &geo.ray[p]
	bit := uint64(1) << p
	var own uint64
	for d := range 3 {
		up, down := r[d]&g.occ, r[d+3]&g.occ
		a, b := up&-up, uint64(1<<63)>>bits.LeadingZeros64(down)
		own |= a | b
		if a != 0 {
			g.nb[bits.TrailingZeros64(a)] = g.nb[bits.TrailingZeros64(a)]&^b | bit
		}
		if b != 0 {
			g.nb[bits.TrailingZeros64(b)] = g.nb[bits.TrailingZeros64(b)]&^a | bit
		}
	}
	g.nb[p] = own
	g.occ |= bit
}

// vacate marks an occupied point empty: the nearest stacks on either side
// of p on each line now see each other.
func (g *Game) vacate(p Point) {
	r := &geo.ray[p]
	bit := uint64(1) << p
	g.occ &^= bit
	for d := range 3 {
		up, down := r[d]&g.occ, r[d+3]&g.occ
		a, b := up&-up, uint64(1<<63)>>bits.LeadingZeros64(down)
		if a != 0 {
			g.nb[bits.TrailingZeros64(a)] = g.nb[bits.TrailingZeros64(a)]&^bit | b
		}
		if b != 0 {
			g.nb[bits.TrailingZeros64(b)] = g.nb[bits.TrailingZeros64(b)]&^bit | a
		}
	}
	g.nb[p] = 0
}

// maxHeight is the highest stack allowed (rulebook E5, H3).
func (g *Game) maxHeight() uint8 {
	if g.variant == Stack6 {
		return 6
	}
	return 5
}

// Apply plays m for the player to move: the claim, if any, then the move, as
// one atomic action (rulebook D4). Then the automatic passes and the end of
// the game are settled: the next player passes if they cannot move even by
// claiming a free colour; when neither player can move, the game is over.
// Errors wrap ErrIllegalMove (a *MoveError naming the squares and the
// rulebook reason) or ErrGameOver; on error g is unchanged.
func (g *Game) Apply(m Move) error {
	if g.status != games.Playing || g.turn == 0 {
		return ErrGameOver
	}
	if err := g.check(m); err != nil {
		return err
	}
	g.play(m)
	return nil
}

// play performs a move already known to be legal.
func (g *Game) play(m Move) {
	me := g.turn
	if m.Claim != NoColor {
		g.owner[m.Claim] = me
		g.claims[me-1][g.nclaims[me-1]] = m.Claim
		g.nclaims[me-1]++
	}
	p, q := m.From, m.To
	h := g.h[p] + g.h[q]
	pcs := g.pcs[q] | g.pcs[p]<<(3*g.h[q])
	top := g.top[p]
	g.clear(p)
	g.unsetStack(q)
	g.hist[g.nhist] = m
	g.nhist++
	own := g.owner[top] == me
	switch {
	case g.variant == Standard && h == 5 && own:
		// Rulebook E9: the completed stack leaves the board and scores.
		g.removed[me-1]++
		g.vacate(q)
	case g.variant == Stack6 && h == 6 && own:
		// Rulebook H4: sudden death.
		g.setStack(q, pcs, h)
		g.status, g.winner, g.turn = games.Won, me, 0
		return
	default:
		g.setStack(q, pcs, h)
	}
	g.settle(3 - me)
}

// settle gives the turn to player next, or makes them pass when they cannot
// move (rulebook E11-E12), or ends the game when neither player can move
// (rulebook G1).
func (g *Game) settle(next uint8) {
	switch {
	case g.canMove(next):
		g.turn = next
	case g.canMove(3 - next):
		g.hist[g.nhist] = Pass
		g.nhist++
		g.turn = 3 - next
	default:
		g.finish()
	}
}

// finish ends the game and decides it (rulebook G1-G3, H6): removed stacks
// first, then the stacks on the board topped by each player's own colours,
// from height 4 down (standard) or 5 down (stack6).
func (g *Game) finish() {
	g.turn = 0
	d := int(g.removed[0]) - int(g.removed[1])
	for k := g.maxHeight() - 1; k >= 1 && d == 0; k-- {
		d = g.owned(1, k) - g.owned(2, k)
	}
	switch {
	case d > 0:
		g.status, g.winner = games.Won, 1
	case d < 0:
		g.status, g.winner = games.Won, 2
	default:
		g.status, g.winner = games.Tie, 0
	}
}

// owned counts the stacks of height k topped by a colour player claimed.
func (g *Game) owned(player int, k uint8) int {
	n := 0
	for _, c := range g.claims[player-1][:g.nclaims[player-1]] {
		n += bits.OnesCount64(g.tops[c] & g.hgt[k])
	}
	return n
}

// SetTurn makes player (1 or 2) the one to move, for positions read with
// ParseBoard. It starts a new move record (the position becomes its start)
// and settles at once: a player who cannot move passes, and when neither
// can, the game is over. Other values of player are ignored.
func (g *Game) SetTurn(player int) {
	if player != 1 && player != 2 {
		return
	}
	g.nhist = 0
	g.status, g.winner = games.Playing, 0
	g.settle(uint8(player))
}

// Turn returns the player to move, 1 or 2; 0 when the game is over.
func (g *Game) Turn() int { return int(g.turn) }

// Status returns whether the game goes on, was won, or was a tie.
func (g *Game) Status() games.Outcome { return g.status }

// Winner returns 1 or 2 when the game was won, else 0.
func (g *Game) Winner() int { return int(g.winner) }

// Variant returns the game's variant.
func (g *Game) Variant() Variant { return g.variant }

// Claims returns the colours player (1 or 2) claimed, in claim order.
func (g *Game) Claims(player int) []Color {
	if player != 1 && player != 2 {
		return nil
	}
	return append([]Color(nil), g.claims[player-1][:g.nclaims[player-1]]...)
}

// Free returns the colours nobody claimed yet, in the order I, B, R, G, K.
func (g *Game) Free() []Color {
	var free []Color
	for c := Ivory; c <= Black; c++ {
		if g.owner[c] == 0 {
			free = append(free, c)
		}
	}
	return free
}

// Removed returns the number of 5-stacks player (1 or 2) removed.
func (g *Game) Removed(player int) int {
	if player != 1 && player != 2 {
		return 0
	}
	return int(g.removed[player-1])
}

// Moves returns the move record, passes included; move number n is
// Moves()[n-1].
func (g *Game) Moves() []Move { return append([]Move(nil), g.hist[:g.nhist]...) }

// MoveCount returns len(Moves()).
func (g *Game) MoveCount() int { return int(g.nhist) }

// Stack returns the pieces on p, top piece first as on the board ("KIB"),
// or "" when p is empty or no point.
func (g *Game) Stack(p Point) string {
	if !p.valid() || g.h[p] == 0 {
		return ""
	}
	var b [6]byte
	for i := range g.h[p] {
		b[i] = Color(g.pcs[p] >> (3 * (g.h[p] - 1 - i)) & 7).Letter()
	}
	return string(b[:g.h[p]])
}

// Height returns the number of pieces on p: 0 when p is empty or no point.
// Unlike Stack it does not allocate, for searches that look at every move.
func (g *Game) Height(p Point) int {
	if !p.valid() {
		return 0
	}
	return int(g.h[p])
}

// Top returns the colour on top of the stack on p: NoColor when p is empty
// or no point.
func (g *Game) Top(p Point) Color {
	if !p.valid() || g.h[p] == 0 {
		return NoColor
	}
	return g.top[p]
}

// Owner returns the player (1 or 2) who claimed colour c, or 0 when c is
// free, a joker or no colour.
func (g *Game) Owner(c Color) int {
	if c > Joker {
		return 0
	}
	return int(g.owner[c])
}

// Colors returns the set of colours in the stack on p, bit c for colour c
// (Ivory..Black); jokers stay out, as they may stand for any colour
// (rulebook E5). 0 when p is empty or no point. A robot's evaluation reads
// it to tell whether two stacks may ever merge.
func (g *Game) Colors(p Point) uint8 {
	if !p.valid() {
		return 0
	}
	return g.mask[p]
}

// Sees returns the set of stacks (bit q for point q) that the stack on p
// reaches in a straight line over empty points, the first stack in each of
// the six directions (rulebook E3); 0 when p is empty or no point. It is
// symmetric: q is in Sees(p) exactly when p is in Sees(q). LYNGK bounces
// (rulebook F) are not included.
func (g *Game) Sees(p Point) uint64 {
	if !p.valid() {
		return 0
	}
	return g.nb[p]
}
