package tournament

import (
	"errors"
	"fmt"
)

// MaxPlayers bounds every function of the package: a round robin of 256
// players is already 255 games each, far beyond what a server should
// accept, and the Swiss search keys its memory by player index in a byte.
// The engine sets its own, smaller, limits on top.
const MaxPlayers = 256

// Bye stands for the missing opponent: a game whose Black is Bye is a bye
// for its White, scored as a win and played by nobody.
const Bye = -1

// Errors callers branch on. Every error of the package wraps one of them.
var (
	// ErrBadInput: too few or too many players, a player index out of
	// range, a player twice in one round, a history that is not what the
	// package paired.
	ErrBadInput = errors.New("tournament: bad input")
	// ErrUnfinished: the next round cannot be paired while a game of the
	// last one has no result.
	ErrUnfinished = errors.New("tournament: the last round is not finished")
	// ErrNoPairing: no pairing of the next round meets the rules (every
	// remaining pair has met, or every player who could take the bye has
	// had one). The package never answers with a repeat instead.
	ErrNoPairing = errors.New("tournament: no pairing of the next round is possible")
)

// Player is what pairing needs to know of a player: his rating (for the
// order of a Swiss and the seeds of a knockout) and whether he has
// withdrawn (a withdrawn player is no longer paired in a Swiss). Players
// are named by their index in the slice given to each function.
type Player struct {
	Rating    int
	Withdrawn bool
}

// Result is the outcome of one game.
type Result uint8

// The results. A forfeit (a player who let his clock run out, or who
// withdrew) is a loss for him and a win for his opponent, like a game lost
// on the board, but it is not a game played: it counts for no
// Sonneborn-Berger and for no "games won".
const (
	Pending Result = iota
	WhiteWon
	BlackWon
	Draw
	WhiteForfeited
	BlackForfeited
)

var resultNames = [...]string{"pending", "1-0", "0-1", "½-½", "-/+", "+/-"}

func (r Result) String() string {
	if int(r) < len(resultNames) {
		return resultNames[r]
	}
	return fmt.Sprintf("Result(%d)", r)
}

// Game is one game of a round (or a bye when Black is Bye).
type Game struct {
	White, Black int
	Result       Result
}

// IsBye reports whether the game is a bye for White.
func (g Game) IsBye() bool { return g.Black == Bye }

// Finished reports whether the game counts: a bye always does, a game once
// it has a result.
func (g Game) Finished() bool { return g.IsBye() || g.Result != Pending }

// Points returns what each side scored, in half points (a win 2, a draw 1,
// a loss 0). A bye is a win for White. An unfinished game scores nothing.
func (g Game) Points() (white, black int) {
	if g.IsBye() {
		return 2, 0
	}
	switch g.Result {
	case WhiteWon, BlackForfeited:
		return 2, 0
	case BlackWon, WhiteForfeited:
		return 0, 2
	case Draw:
		return 1, 1
	}
	return 0, 0
}

// played reports whether the game was played on the board to a result (no
// bye, no forfeit, not pending).
func (g Game) played() bool {
	return !g.IsBye() && (g.Result == WhiteWon || g.Result == BlackWon || g.Result == Draw)
}

// Round is the games of one round, in board order.
type Round []Game

// checkCount refuses a field too small or too large.
func checkCount(n int) error {
	if n < 2 || n > MaxPlayers {
		return fmt.Errorf("%w: %d players (2 to %d)", ErrBadInput, n, MaxPlayers)
	}
	return nil
}

// checkRounds refuses a history naming a player out of range, a player
// against himself, a player twice in a round or an unknown result.
func checkRounds(n int, rounds []Round) error {
	seen := make([]int, n)
	for r, round := range rounds {
		for _, g := range round {
			if g.White < 0 || g.White >= n || (g.Black != Bye && (g.Black < 0 || g.Black >= n)) || g.White == g.Black {
				return fmt.Errorf("%w: round %d: game %d-%d with %d players", ErrBadInput, r+1, g.White, g.Black, n)
			}
			if g.Result > BlackForfeited {
				return fmt.Errorf("%w: round %d: %v", ErrBadInput, r+1, g.Result)
			}
			for _, p := range []int{g.White, g.Black} {
				if p == Bye {
					continue
				}
				if seen[p] == r+1 {
					return fmt.Errorf("%w: round %d: player %d plays twice", ErrBadInput, r+1, p)
				}
				seen[p] = r + 1
			}
		}
	}
	return nil
}

// FormatHalves writes a score in half points as players read it: "0", "½",
// "3", "3½", "-1½".
func FormatHalves(h int) string {
	sign := ""
	if h < 0 {
		sign, h = "-", -h
	}
	switch {
	case h == 1:
		return sign + "½"
	case h%2 == 1:
		return fmt.Sprintf("%s%d½", sign, h/2)
	}
	return fmt.Sprintf("%s%d", sign, h/2)
}

// FormatQuarters writes a Sonneborn-Berger score in quarter points:
// "0", "¼", "2½", "6¾" (and a sign when negative).
func FormatQuarters(q int) string {
	if q < 0 {
		return "-" + FormatQuarters(-q)
	}
	frac := [...]string{"", "¼", "½", "¾"}[q%4]
	if q/4 == 0 && frac != "" {
		return frac
	}
	return fmt.Sprintf("%d%s", q/4, frac)
}
