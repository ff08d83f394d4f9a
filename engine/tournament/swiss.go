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
	// wish and strength are want(), computed once the history is read.
	wish     int8
	strength int
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
	for i := range ps {
		ps[i].wish, ps[i].strength = ps[i].want()
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
	rank := make([]int, n)
	for i, p := range order {
		rank[p] = i
	}
	s := &swissSearch{ps: ps, met: met, rank: rank, budget: searchWork}
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
		for mode := strict; mode <= anyPairing; mode++ {
			s.mode = mode
			s.failed = map[string]bool{}
			// Each pass has a share of what is left, so that one which
			// cannot succeed leaves room for the next.
			s.limit = max(0, s.budget-passWork[mode])
			pairs, ok := s.pair(rest)
			if !ok {
				continue
			}
			round := s.colour(pairs)
			if bye != Bye {
				round = append(round, Game{White: bye, Black: Bye, Result: WhiteWon})
			}
			return round, mode != strict, nil
		}
	}
	if s.budget <= 0 {
		return nil, false, fmt.Errorf("%w: no pairing found in the search's bounds", ErrNoPairing)
	}
	return nil, false, fmt.Errorf("%w: every remaining pairing repeats a game", ErrNoPairing)
}

// The passes of the search, in order: the Dutch order with the colour
// rules, the Dutch order without them, and any pairing without a repeat.
// The last chooses first the player with the fewest opponents left, which
// finds a pairing where the Dutch order runs into dead ends (a Swiss of
// nearly as many rounds as players, where the lowest have met each other).
const (
	strict = iota
	relaxed
	anyPairing
)

// The bounds of the search, counted in pairs looked at and players
// copied, so that a call
// costs a few seconds at most whatever the history. searchWork is the
// whole; passWork the most each pass may use of it for each bye tried.
// When it is spent the answer is ErrNoPairing, whether or not some
// pairing exists; a field of a usual length pairs in a few thousand.
const (
	searchWork = 40_000_000
	// degreeCheck: the search checks that every player left has somebody
	// to meet only when this many or fewer are left (the check costs the
	// square of their number; dead ends are found near the bottom).
	degreeCheck = 32
)

var passWork = [...]int{strict: 1_000_000, relaxed: 4_000_000, anyPairing: 30_000_000}

// swissSearch finds the pairing by backtracking: the best unpaired player
// takes his preferred opponent who is allowed, the rest is paired the
// same way, and if that fails the next opponent is tried. A set of
// players found unpairable is remembered, so no set is searched twice.
type swissSearch struct {
	ps     []swissPlayer
	met    [][]bool
	rank   []int // the place of each player in the ranking
	mode   int
	failed map[string]bool
	// budget is what is left of searchWork; the pass in progress stops
	// when it falls to limit.
	budget, limit int
}

// allowed: no repeat, and (unless relaxed) not two players who must both
// have the same colour.
func (s *swissSearch) allowed(a, b int) bool {
	s.budget--
	if s.met[a][b] {
		return false
	}
	if s.mode != strict {
		return true
	}
	ca, sa := s.ps[a].wish, s.ps[a].strength
	cb, sb := s.ps[b].wish, s.ps[b].strength
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
	ct := s.ps[top].wish
	fits := func(p int) bool {
		c := s.ps[p].wish
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
	if s.failed[string(key)] || s.budget <= s.limit {
		return nil, false
	}
	s.budget -= len(rest) // the copying and ordering below
	top, candidates := rest[0], []int(nil)
	if s.mode == anyPairing || len(rest) <= degreeCheck {
		// A player with nobody left he may meet makes the set
		// unpairable: seeing it here saves searching every way to pair
		// the others. The last pass starts with the player who has the
		// fewest opponents left.
		fewest := len(rest)
		for _, a := range rest {
			k := 0
			for _, b := range rest {
				if b != a && s.allowed(a, b) {
					k++
				}
			}
			if k == 0 {
				s.failed[string(key)] = true
				return nil, false
			}
			if s.mode == anyPairing && k < fewest {
				top, fewest = a, k
			}
		}
	}
	if s.mode == anyPairing {
		candidates = without(rest, top)
	} else {
		candidates = s.candidates(rest)
	}
	for _, c := range candidates {
		if !s.allowed(top, c) {
			continue
		}
		others := slices.DeleteFunc(slices.Clone(rest), func(p int) bool { return p == c || p == top })
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
	for i, pr := range pairs {
		if s.rank[pr[1]] < s.rank[pr[0]] {
			pairs[i] = [2]int{pr[1], pr[0]}
		}
	}
	slices.SortFunc(pairs, func(x, y [2]int) int { return s.rank[x[0]] - s.rank[y[0]] })
	round := make(Round, 0, len(pairs)+1)
	for i, pr := range pairs {
		a, b := pr[0], pr[1]
		ca, sa := s.ps[a].wish, s.ps[a].strength
		cb, sb := s.ps[b].wish, s.ps[b].strength
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

// without returns a copy of s without x.
func without(s []int, x int) []int {
	return slices.DeleteFunc(slices.Clone(s), func(p int) bool { return p == x })
}
