package tournament

import (
	"fmt"
	"slices"
)

// Standing is one line of a standings table. Scores are integers: Score
// and HeadToHead in half points, SB in quarter points (FormatHalves,
// FormatQuarters write them).
type Standing struct {
	Player int
	// Rank is 1 for the leader; players equal on the score and every
	// tie-break share a rank (and are listed by player index).
	Rank int
	// Score: win 2, draw 1, loss 0 half points; a bye is a win, a forfeit
	// a loss for the forfeiter and a win for his opponent.
	Score int
	// SB, the Sonneborn-Berger score: the final scores of the opponents
	// he beat plus half the final scores of those he drew, over games
	// played on the board (byes and forfeits add nothing).
	SB int
	// HeadToHead: the points he scored in the games among the players
	// level with him on Score and SB (forfeits included, as results
	// between them); zero when nobody is level.
	HeadToHead int
	// Wins: games won on the board (not byes, not forfeits).
	Wins int
	// Games: games finished, byes and forfeits included.
	Games int
}

// Standings scores the finished games of rounds among n players and
// orders them by score, then Sonneborn-Berger, then head to head, then
// games won. Unfinished games are left out.
func Standings(n int, rounds []Round) ([]Standing, error) {
	if err := checkCount(n); err != nil {
		return nil, err
	}
	if err := checkRounds(n, rounds); err != nil {
		return nil, err
	}
	st := make([]Standing, n)
	for i := range st {
		st[i].Player = i
	}
	each := func(f func(g Game, w, b int)) {
		for _, round := range rounds {
			for _, g := range round {
				if g.Finished() {
					w, b := g.Points()
					f(g, w, b)
				}
			}
		}
	}
	each(func(g Game, w, b int) {
		st[g.White].Score += w
		st[g.White].Games++
		if g.IsBye() {
			return
		}
		st[g.Black].Score += b
		st[g.Black].Games++
		if g.played() {
			switch g.Result {
			case WhiteWon:
				st[g.White].Wins++
			case BlackWon:
				st[g.Black].Wins++
			}
		}
	})
	// Sonneborn-Berger needs every final score first. A won game adds the
	// opponent's score (h half points = 2h quarters), a drawn one half of
	// it (h quarters).
	each(func(g Game, w, b int) {
		if !g.played() {
			return
		}
		st[g.White].SB += w * st[g.Black].Score
		st[g.Black].SB += b * st[g.White].Score
	})
	level := func(a, b int) bool { return st[a].Score == st[b].Score && st[a].SB == st[b].SB }
	each(func(g Game, w, b int) {
		if !g.IsBye() && level(g.White, g.Black) {
			st[g.White].HeadToHead += w
			st[g.Black].HeadToHead += b
		}
	})
	key := func(s Standing) [4]int { return [4]int{s.Score, s.SB, s.HeadToHead, s.Wins} }
	slices.SortStableFunc(st, func(a, b Standing) int {
		ka, kb := key(a), key(b)
		for i := range ka {
			if ka[i] != kb[i] {
				return kb[i] - ka[i]
			}
		}
		return a.Player - b.Player
	})
	for i := range st {
		st[i].Rank = i + 1
		if i > 0 && key(st[i]) == key(st[i-1]) {
			st[i].Rank = st[i-1].Rank
		}
	}
	return st, nil
}

// String writes a line as a table shows it: "2. #3 4½ (SB 9¾, H2H 1, W 4)".
func (s Standing) String() string {
	return fmt.Sprintf("%d. #%d %s (SB %s, H2H %s, W %d)", s.Rank, s.Player, FormatHalves(s.Score), FormatQuarters(s.SB), FormatHalves(s.HeadToHead), s.Wins)
}
