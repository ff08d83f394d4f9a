package tournament

import (
	"fmt"
	"slices"
	"strings"
)

// The championship's league rules.
const (
	// LeagueSize is the size the leagues aim at: the number of leagues is
	// the number of players divided by it, rounded to the nearest (at
	// least one), and their sizes differ by at most one, the larger on
	// top.
	LeagueSize = 10
	// Promoted: the first two of every league but the top one go up.
	Promoted = 2
	// Relegated: from the sixth place down, the players of every league
	// but the bottom one go down.
	Relegated = 6
)

// Entrant is a player of the championship: his user id and rating.
type Entrant struct {
	ID     string
	Rating int
}

// League is the user ids of one league. Given to NextLeagues it is the
// previous edition's final standings, best first; returned, it is the new
// league ordered by rating (the higher first; equal ratings by id).
type League []string

// NextLeagues makes the leagues of the next edition, the top one first.
// entrants are every player enrolled in it: the previous edition's players
// who did not leave and the newcomers; previous is the last edition's
// leagues with their final standings (none for the first edition, whose
// leagues are cut from the entrants by rating).
//
// A player who stays is placed in his league, one up if he was among the
// first Promoted of a league below the top, one down if he finished
// Relegated-th or lower in a league above the bottom. A newcomer goes to
// the highest league whose lowest-rated returning player he outrates (the
// bottom one when he outrates none). The leagues are then brought to
// their sizes from the top down. A league with too many players sends the
// least entitled down to the next: within a league the promoted come
// first, then those who stayed, by place, then the newcomers, by rating,
// then the relegated, by place. A league with too few takes players from
// the leagues below, the nearest first, never one who left that league or
// a higher one in this change: first those who stayed in theirs, best
// placed first, then newcomers by rating, then the promoted. So in a
// chain of full leagues of ten, where five go down and two come up, the
// three vacancies are filled by the third to fifth of the league below.
func NextLeagues(entrants []Entrant, previous []League) ([]League, error) {
	if len(entrants) < 2 {
		return nil, fmt.Errorf("%w: %d players in the championship", ErrBadInput, len(entrants))
	}
	rating := make(map[string]int, len(entrants))
	for _, e := range entrants {
		if _, dup := rating[e.ID]; dup || e.ID == "" {
			return nil, fmt.Errorf("%w: player %q twice or empty", ErrBadInput, e.ID)
		}
		rating[e.ID] = e.Rating
	}
	// The placement of every returning player.
	type place struct {
		from, pos, to int // league left, 0-based place in it, league joined
	}
	places := map[string]place{}
	for l, league := range previous {
		for pos, id := range league {
			if _, dup := places[id]; dup {
				return nil, fmt.Errorf("%w: player %q twice in the last edition", ErrBadInput, id)
			}
			to := l
			switch {
			case l > 0 && pos < Promoted:
				to = l - 1
			case l < len(previous)-1 && pos >= Relegated-1:
				to = l + 1
			}
			places[id] = place{from: l, pos: pos, to: to}
		}
	}
	k := max(1, (len(entrants)+LeagueSize/2)/LeagueSize)
	groups := make([][]string, max(k, len(previous)))
	lowest := make([]int, len(groups)) // the lowest rating of the returning players of each group
	has := make([]bool, len(groups))
	var newcomers []string
	for _, e := range entrants {
		p, ok := places[e.ID]
		if !ok {
			newcomers = append(newcomers, e.ID)
			continue
		}
		groups[p.to] = append(groups[p.to], e.ID)
		if !has[p.to] || e.Rating < lowest[p.to] {
			lowest[p.to], has[p.to] = e.Rating, true
		}
	}
	byRating := func(a, b string) int {
		if rating[a] != rating[b] {
			return rating[b] - rating[a]
		}
		return strings.Compare(a, b)
	}
	slices.SortFunc(newcomers, byRating)
	for _, id := range newcomers {
		g := max(len(previous)-1, 0)
		for i := range previous {
			if has[i] && rating[id] > lowest[i] {
				g = i
				break
			}
		}
		groups[g] = append(groups[g], id)
	}
	// class orders entitlement within a league: promoted 0, stayers 1,
	// newcomers 2, relegated 3; then by place, or by rating for newcomers.
	class := func(id string, l int) (int, int) {
		p, ok := places[id]
		switch {
		case !ok:
			return 2, 0
		case p.from > l:
			return 0, p.pos
		case p.from == l:
			return 1, p.pos
		}
		return 3, p.pos
	}
	entitled := func(l int) func(a, b string) int {
		return func(a, b string) int {
			ca, pa := class(a, l)
			cb, pb := class(b, l)
			switch {
			case ca != cb:
				return ca - cb
			case ca == 2:
				return byRating(a, b)
			}
			return pa - pb
		}
	}
	// filling orders the players of a lower league for a vacancy above.
	filling := func(l int) func(a, b string) int {
		rank := func(id string) (int, int) {
			p, ok := places[id]
			switch {
			case !ok:
				return 1, -rating[id]
			case p.from == l:
				return 0, p.pos
			case p.from > l:
				return 2, p.pos
			}
			return 3, p.pos
		}
		return func(a, b string) int {
			ca, pa := rank(a)
			cb, pb := rank(b)
			if ca != cb {
				return ca - cb
			}
			return pa - pb
		}
	}
	sizes := make([]int, k)
	for i := range sizes {
		sizes[i] = len(entrants) / k
		if i < len(entrants)%k {
			sizes[i]++
		}
	}
	leagues := make([]League, k)
	for l := range k {
		if l == k-1 { // the bottom league takes whoever is left
			for _, g := range groups[l:] {
				leagues[l] = append(leagues[l], g...)
			}
			break
		}
		slices.SortStableFunc(groups[l], entitled(l))
		if len(groups[l]) > sizes[l] {
			groups[l+1] = append(groups[l+1], groups[l][sizes[l]:]...)
			groups[l] = groups[l][:sizes[l]]
		}
		for below := l + 1; below < len(groups) && len(groups[l]) < sizes[l]; below++ {
			slices.SortStableFunc(groups[below], filling(below))
			var keep []string
			for _, id := range groups[below] {
				p, ok := places[id]
				if len(groups[l]) < sizes[l] && (!ok || p.from > l) {
					groups[l] = append(groups[l], id)
				} else {
					keep = append(keep, id)
				}
			}
			groups[below] = keep
		}
		leagues[l] = groups[l]
	}
	for _, league := range leagues {
		slices.SortFunc(league, byRating)
	}
	return leagues, nil
}
