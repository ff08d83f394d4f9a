package tournament

import (
	"fmt"
	"slices"
)

// Swiss pairs the next round of a Swiss tournament from the rounds played
// (all finished), by the simplified Dutch system of the package comment.
// Withdrawn players are left out. The bye, when there is one, is the
// round's last game, already scored as a win.
func Swiss(players []Player, played []Round) (Round, error) {
	round, _, err := swiss(players, played)
	return round, err
}

// swissPlayer is what the pairing knows of a player after the rounds played.
type swissPlayer struct {
	score   int
	rating  int
	hadBye  bool
	colours []int8 // +1 White, -1 Black, in order; byes leave no colour
}

// want returns the colour the player should have next (+1 White, -1 Black,
// 0 no preference) and how strongly: 3 absolute (the last two games of one
// colour, or two more of one colour than of the other), 2 strong (one
// more), 1 mild (level: the other colour than last time), 0 none.
func (p swissPlayer) want() (colour int8, strength int) {
	n := len(p.colours)
	if n == 0 {
		return 0, 0
	}
	diff := 0
	for _, c := range p.colours {
		diff += int(c)
	}
	last := p.colours[n-1]
	switch {
	case n >= 2 && p.colours[n-2] == last:
		return -last, 3
	case diff >= 2 || diff <= -2:
		return -sign(diff), 3
	case diff != 0:
		return -sign(diff), 2
	}
	return -last, 1
}

func sign(x int) int8 {
	if x < 0 {
		return -1
	}
	return 1
}

// swiss is Swiss, also saying whether the colour rules had to be relaxed
// to find a pairing (the tests check the rules whenever they were not).
func swiss(players []Player, played []Round) (Round, bool, error) {
	n := len(players)
	if err := checkCount(n); err != nil {
		return nil, false, err
	}
	if err := checkRounds(n, played); err != nil {
		return nil, false, err
	}
	ps := make([]swissPlayer, n)
	met := make([][]bool, n)
	for i := range ps {
		ps[i].rating = players[i].Rating
		met[i] = make([]bool, n)
	}
	for r, round := range played {
		for _, g := range round {
			if !g.Finished() {
				return nil, false, fmt.Errorf("%w: round %d: %d-%d", ErrUnfinished, r+1, g.White, g.Black)
			}
			w, b := g.Points()
			ps[g.White].score += w
			if g.IsBye() {
				ps[g.White].hadBye = true
				continue
			}
			ps[g.Black].score += b
			met[g.White][g.Black], met[g.Black][g.White] = true, true
			ps[g.White].colours = append(ps[g.White].colours, 1)
			ps[g.Black].colours = append(ps[g.Black].colours, -1)
		}
	}
	var order []int // the active players, best first
	for i, p := range players {
		if !p.Withdrawn {
			order = append(order, i)
		}
	}
	if len(order) < 2 {
		return nil, false, fmt.Errorf("%w: %d players left", ErrNoPairing, len(order))
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if ps[a].score != ps[b].score {
			return ps[b].score - ps[a].score
		}
		return ps[b].rating - ps[a].rating
	})
	s := &swissSearch{ps: ps, met: met}
	// The bye goes to the lowest-ranked player who has not had one and
	// without whom the others can be paired; the colour rules are relaxed
	// only when no pairing keeps them with that bye.
	byes := []int{Bye}
	if len(order)%2 == 1 {
		byes = byes[:0]
		for i := len(order) - 1; i >= 0; i-- {
			if !ps[order[i]].hadBye {
				byes = append(byes, order[i])
			}
		}
		if len(byes) == 0 {
			return nil, false, fmt.Errorf("%w: every player has had the bye", ErrNoPairing)
		}
	}
	for _, bye := range byes {
		rest := slices.DeleteFunc(slices.Clone(order), func(p int) bool { return p == bye })
		for _, relaxed := range []bool{false, true} {
			s.relaxed = relaxed
			s.failed = map[string]bool{}
			pairs, ok := s.pair(rest)
			if !ok {
				continue
			}
			round := s.colour(pairs)
			if bye != Bye {
				round = append(round, Game{White: bye, Black: Bye, Result: WhiteWon})
			}
			return round, relaxed, nil
		}
	}
	return nil, false, fmt.Errorf("%w: every remaining pairing repeats a game", ErrNoPairing)
}

// swissSearch finds the pairing by backtracking: the best unpaired player
// takes his preferred opponent who is allowed, the rest is paired the
// same way, and if that fails the next opponent is tried. A set of
// players found unpairable is remembered, so no set is searched twice.
type swissSearch struct {
	ps      []swissPlayer
	met     [][]bool
	relaxed bool
	failed  map[string]bool
}

// allowed: no repeat, and (unless relaxed) not two players who must both
// have the same colour.
func (s *swissSearch) allowed(a, b int) bool {
	if s.met[a][b] {
		return false
	}
	if s.relaxed {
		return true
	}
	ca, sa := s.ps[a].want()
	cb, sb := s.ps[b].want()
	return !(sa == 3 && sb == 3 && ca == cb)
}

// candidates orders the opponents of rest[0], the best unpaired player
// (rest is ranked). His score group is the players of rest with his
// score; of its g players the top half (g/2, he among them) meets the
// bottom half in order, so he prefers the first of the bottom half, then
// the others of the bottom half, then the top half from its lowest up;
// among the bottom half those whose colour wishes fit his come first.
// Then come the lower groups, best first (he floats down to the highest
// he can meet). A player alone in his group floats down the same way.
func (s *swissSearch) candidates(rest []int) []int {
	top := rest[0]
	g := 1
	for g < len(rest) && s.ps[rest[g]].score == s.ps[top].score {
		g++
	}
	out := make([]int, 0, len(rest)-1)
	h := g / 2
	if h == 0 {
		h = 1
	}
	ct, _ := s.ps[top].want()
	fits := func(p int) bool {
		c, _ := s.ps[p].want()
		return c == 0 || ct == 0 || c != ct
	}
	for _, p := range rest[h:g] {
		if fits(p) {
			out = append(out, p)
		}
	}
	for _, p := range rest[h:g] {
		if !fits(p) {
			out = append(out, p)
		}
	}
	for i := h - 1; i >= 1; i-- {
		out = append(out, rest[i])
	}
	return append(out, rest[g:]...)
}

// pair pairs every player of rest (ranked), or reports that it cannot.
func (s *swissSearch) pair(rest []int) ([][2]int, bool) {
	if len(rest) == 0 {
		return nil, true
	}
	key := make([]byte, len(rest))
	for i, p := range rest {
		key[i] = byte(p)
	}
	if s.failed[string(key)] {
		return nil, false
	}
	top := rest[0]
	for _, c := range s.candidates(rest) {
		if !s.allowed(top, c) {
			continue
		}
		others := slices.DeleteFunc(slices.Clone(rest[1:]), func(p int) bool { return p == c })
		if pairs, ok := s.pair(others); ok {
			return append([][2]int{{top, c}}, pairs...), true
		}
	}
	s.failed[string(key)] = true
	return nil, false
}

// colour gives each pair its colours, boards in the order of the pairs
// (the higher-ranked player of each first). Both wishes are granted when
// they differ; when they clash the stronger wish wins and, equal, the
// higher-ranked player's; when neither has played yet the higher-ranked
// player has White on the odd boards and Black on the even ones.
func (s *swissSearch) colour(pairs [][2]int) Round {
	round := make(Round, 0, len(pairs)+1)
	for i, pr := range pairs {
		a, b := pr[0], pr[1]
		ca, sa := s.ps[a].want()
		cb, sb := s.ps[b].want()
		var aWhite bool
		switch {
		case ca == 0 && cb == 0:
			aWhite = i%2 == 0
		case ca != cb && ca != 0:
			aWhite = ca == 1
		case ca != cb: // b alone has a wish
			aWhite = cb == -1
		case sb > sa:
			aWhite = cb == -1
		default:
			aWhite = ca == 1
		}
		if aWhite {
			round = append(round, Game{White: a, Black: b})
		} else {
			round = append(round, Game{White: b, Black: a})
		}
	}
	return round
}
