package tournament

import (
	"fmt"
	"slices"
)

// Bracket returns the seeds (1 = the best) in bracket order for a draw of
// size players, a power of two: neighbours meet in the first stage, and
// the two halves, quarters, … are so made that seeds 1 and 2 can meet only
// in the final, 1 to 4 only in the semi-finals, and so on. It is built by
// doubling: each seed s of the draw of half the size is followed by its
// first-stage opponent size+1−s ([1 2] → [1 4 2 3] → [1 8 4 5 2 7 3 6]).
// Another size returns nil.
func Bracket(size int) []int {
	if size < 1 || size&(size-1) != 0 {
		return nil
	}
	seeds := []int{1}
	for len(seeds) < size {
		next := make([]int, 0, 2*len(seeds))
		for _, s := range seeds {
			next = append(next, s, 2*len(seeds)+1-s)
		}
		seeds = next
	}
	return seeds
}

// KnockoutState is where a knockout stands after the rounds played.
type KnockoutState struct {
	// Next is the round to play now: the replays of the stage's drawn
	// matches, or the next stage (its byes already won); empty once there
	// is a champion.
	Next Round
	// Stage counts the stages from 1 (the first); Next belongs to it.
	Stage int
	// Champion is the winner of the final, or Bye until it is decided.
	Champion int
}

// Knockout replays the rounds played (each exactly as Knockout returned it
// as Next, with results) and says what comes next. The players are seeded
// by rating (the higher first; equal ratings by index) into the bracket
// of the next power of two; the missing seeds are byes, so the top seeds
// have them. A match is one game, the higher seed with White; a drawn
// game is replayed once with the colours swapped, and if the replay is
// drawn too the higher seed goes through. A forfeit loses the match.
// Once there is a champion, Next is empty. Withdrawals are the caller's:
// a withdrawn player's games are recorded as forfeits.
func Knockout(players []Player, played []Round) (KnockoutState, error) {
	n := len(players)
	if err := checkCount(n); err != nil {
		return KnockoutState{}, err
	}
	if err := checkRounds(n, played); err != nil {
		return KnockoutState{}, err
	}
	bySeed := make([]int, n)
	for i := range bySeed {
		bySeed[i] = i
	}
	slices.SortStableFunc(bySeed, func(a, b int) int { return players[b].Rating - players[a].Rating })
	seedOf := make([]int, n)
	for s, p := range bySeed {
		seedOf[p] = s + 1
	}
	size := 1
	for size < n {
		size *= 2
	}
	entrants := make([]int, size) // the players of the stage, in bracket order
	for i, s := range Bracket(size) {
		entrants[i] = Bye
		if s <= n {
			entrants[i] = bySeed[s-1]
		}
	}
	// A match of the stage: a (the higher seed) against b, the games
	// played so far, and the winner once known.
	type match struct {
		a, b, games, winner int
	}
	st := KnockoutState{Stage: 1, Champion: Bye}
	var matches []match
	newStage := func() {
		matches = matches[:0]
		for i := 0; i+1 < len(entrants); i += 2 {
			a, b := entrants[i], entrants[i+1]
			if b != Bye && (a == Bye || seedOf[b] < seedOf[a]) {
				a, b = b, a
			}
			matches = append(matches, match{a: a, b: b, winner: Bye})
		}
	}
	// next is the round the open matches play now: a first game with the
	// higher seed White, a replay with Black; a bye (only in the first
	// stage, where b is Bye) is a game won at once.
	next := func() Round {
		var round Round
		for _, m := range matches {
			switch {
			case m.winner != Bye:
			case m.b == Bye:
				round = append(round, Game{White: m.a, Black: Bye, Result: WhiteWon})
			case m.games == 0:
				round = append(round, Game{White: m.a, Black: m.b})
			default:
				round = append(round, Game{White: m.b, Black: m.a})
			}
		}
		return round
	}
	newStage()
	for r, round := range played {
		if st.Champion != Bye {
			return KnockoutState{}, fmt.Errorf("%w: round %d after the final", ErrBadInput, r+1)
		}
		want := next()
		if len(round) != len(want) {
			return KnockoutState{}, fmt.Errorf("%w: round %d has %d games, the bracket %d", ErrBadInput, r+1, len(round), len(want))
		}
		for i, g := range round {
			if g.White != want[i].White || g.Black != want[i].Black {
				return KnockoutState{}, fmt.Errorf("%w: round %d game %d is %d-%d, the bracket's %d-%d", ErrBadInput, r+1, i+1, g.White, g.Black, want[i].White, want[i].Black)
			}
			if !g.Finished() {
				return KnockoutState{}, fmt.Errorf("%w: round %d: %d-%d", ErrUnfinished, r+1, g.White, g.Black)
			}
		}
		i := 0
		for k := range matches {
			m := &matches[k]
			if m.winner != Bye {
				continue
			}
			g := round[i]
			i++
			m.games++
			w, b := g.Points()
			switch {
			case w > b:
				m.winner = g.White
			case b > w:
				m.winner = g.Black
			case m.games == 2: // a second draw: the higher seed goes through
				m.winner = m.a
			}
		}
		if slices.ContainsFunc(matches, func(m match) bool { return m.winner == Bye }) {
			continue
		}
		entrants = entrants[:0]
		for _, m := range matches {
			entrants = append(entrants, m.winner)
		}
		if len(entrants) == 1 {
			st.Champion = entrants[0]
			continue
		}
		st.Stage++
		newStage()
	}
	if st.Champion == Bye {
		st.Next = next()
	}
	return st, nil
}
