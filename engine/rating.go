package engine

import (
	"fmt"
	"math"
)

// Elo ratings. Everybody starts at 1600 (SPEC §3). A rating is provisional
// while its player has finished fewer than provisionalGames games; such a
// rating moves with K = 40, an established one with K = 20 (the FIDE
// factors for new and established players), so that a newcomer finds their
// level within a few games and a long record is not upset by one result.
const (
	provisionalGames = 10
	kProvisional     = 40
	kEstablished     = 20
)

func kFactor(s standing) float64 {
	if s.rated() < provisionalGames {
		return kProvisional
	}
	return kEstablished
}

// expected is the Elo expectation of a player rated a against one rated b.
func expected(a, b float64) float64 { return 1 / (1 + math.Pow(10, (b-a)/400)) }

func roundRating(x float64) int { return int(math.Round(x)) }

// updateRatings rates a finished game in its game's ratings: every
// finished game counts, whatever ended it (rules, resignation, forfeit,
// agreed draw), but the games of a tournament created without -rated.
func (r *request) updateRatings(g *game) error {
	if g.Unrated {
		return nil // a tournament's game without -rated
	}
	var us [2]*user
	var ss [2]standing
	name := g.Game
	for i, p := range g.Players {
		u, ok, err := r.loadUser(p)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("engine: board %d: player %q has no record", g.Board, p)
		}
		us[i], ss[i] = u, u.in(name)
	}
	score := 0.5
	switch g.Winner {
	case 1:
		score = 1
	case 2:
		score = 0
	}
	e := expected(ss[0].Rating, ss[1].Rating)
	k0, k1 := kFactor(ss[0]), kFactor(ss[1])
	ss[0].Rating += k0 * (score - e)
	ss[1].Rating += k1 * ((1 - score) - (1 - e))
	for i, u := range us {
		s := &ss[i]
		switch {
		case g.Winner == 0:
			s.Tied++
		case g.Winner == i+1:
			s.Won++
		default:
			s.Lost++
		}
		g.Ratings[i] = rating{Value: roundRating(s.Rating), Provisional: s.rated() < provisionalGames}
		u.set(name, *s)
		if err := r.saveUser(u); err != nil {
			return err
		}
	}
	return nil
}
