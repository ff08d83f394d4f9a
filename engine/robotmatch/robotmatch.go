// Package robotmatch plays matches between robot players (games.Robot at a
// budget) of any game, for the strength benchmark (make bench-robot): the
// levels against each other and against the previous robot. Nothing the
// robots say is trusted: every move is written out, read back by the
// game's rules in the position and found among its legal moves before it
// is played, and a refusal ends the match with ErrIllegalMove (or, for a
// player that Forfeits, an outside program's, loses it the game). Each
// move's CPU is measured and compared with the player's stated budget.
//
// Moves are thought one at a time, so that the CPU of the process while a
// search runs is that search's (cputime: a search's worker goroutines and
// the garbage collector it causes count too, which the daemon's one
// search per core pays as well). A match so uses one core. Where the
// system gives no CPU time (outside unix) every move reads 0.
package robotmatch

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/internal/cputime"
)

// ErrIllegalMove: a robot chose a move the rules refuse in the position
// it was asked about.
var ErrIllegalMove = errors.New("robotmatch: illegal robot move")

// Player is one side of a match: a robot thinking at a budget.
type Player struct {
	Name  string // as the tables write it
	Robot games.Robot
	// Think is the budget of each move; Workers 0 is one, and the match
	// sets Seed.
	Think games.Think
	// CPU is the most CPU a move may take (the level's stated budget);
	// 0: not checked.
	CPU time.Duration
	// Forfeits: an error of the robot or an illegal move loses it the game
	// (Side.Forfeits, Result.Forfeits) instead of ending the match. For
	// an outside program (package outside), whose failures are its own and
	// not ours to fix; a context that ends still ends the match.
	Forfeits bool
}

// Match is Games games of Rules (variant Variant, "" the default) between A and B,
// colours alternating: A is player 1 in even games, player 2 in odd ones.
// Game i starts at board First+i (LYNGK's start depends on it) and seeds
// the searches with First+i, so that a match at playout budgets is
// replayed move for move and a match played in parts (First 1, then 41)
// plays no game of another part again, in YINSH too, whose start is
// always the empty board.
//
// A match may stop before its Games: with Threshold set, once its score
// shows A's true score above or below it (Verdict: the match so stopped
// is wrong at most 2.5 % of the time on each side); with Limit set,
// when the time is up (a game that would not end in time on the mean
// of those played is not begun, and one still running at the limit is
// dropped, unscored). Result.Stop says which.
type Match struct {
	Rules     games.Rules
	Variant   string
	A, B      Player
	Games     int
	First     int
	Threshold float64       // the score tested, in 0..1; 0: play every game
	Limit     time.Duration // the longest the match may take; 0: no limit
}

// Why a match stopped (Result.Stop).
const (
	StopGames = "games" // all its games played
	StopAbove = "above" // the score shown above the threshold (Verdict)
	StopBelow = "below" // the score shown below it
	StopTime  = "time"  // the time limit
)

// Side is what one player of a match spent: its moves, their CPU in all,
// the most any took, how many took more than its stated budget, and the
// games it forfeited (Player.Forfeits).
type Side struct {
	Moves    int
	CPU      time.Duration
	MaxCPU   time.Duration
	Over     int
	Forfeits int
}

// Result is a match's score, A's: won, tied and lost games.
type Result struct {
	Game, Variant   string // the game's title and variant
	A, B            Player
	Won, Tied, Lost int
	Moves           int     // in all games, passes included
	Sides           [2]Side // A's and B's
	Elapsed         time.Duration
	// Forfeits says why each forfeited game was lost, in order.
	Forfeits []string
	// Stop is why the match ended (StopGames, StopAbove, StopBelow,
	// StopTime), of its Threshold and Limit.
	Stop      string
	Threshold float64
	Limit     time.Duration
}

// Games is the number of games played.
func (r Result) Games() int { return r.Won + r.Tied + r.Lost }

// Score is A's share of the points, a tie counting half.
func (r Result) Score() float64 {
	if r.Games() == 0 {
		return 0
	}
	return (float64(r.Won) + float64(r.Tied)/2) / float64(r.Games())
}

// Interval is the 95 % Wilson score interval of Score: unlike the normal
// approximation it stays within 0..1 and holds for scores near 0 or 1
// and for the few games of a short run.
func (r Result) Interval() (lo, hi float64) {
	return wilson(r.Score(), r.Games(), 1.959964)
}

// Verdict is StopAbove when the score so far shows A's true score to be
// above threshold, StopBelow when it shows it below, "" while it does not
// tell, in a match of at most games games that looks after every game
// (Match.Threshold). Each verdict is the interval of Score wholly on one
// side of threshold, an interval wider than 95 % (stopZ): looking after
// every game gives a 95 % interval many chances to stray (a match whose
// true score is 65 % would be called above it 14 % of the time in 100
// games), so the width is chosen for the whole match to be wrong at most
// 2.5 % of the time on each side.
func (r Result) Verdict(threshold float64, games int) string {
	above, below := stopZ(threshold, games)
	return r.verdict(threshold, above, below)
}

// verdict is Verdict with the z of each side's interval.
func (r Result) verdict(threshold, zAbove, zBelow float64) string {
	n := r.Games()
	if n == 0 {
		return ""
	}
	if lo, _ := wilson(r.Score(), n, zAbove); lo > threshold {
		return StopAbove
	}
	if _, hi := wilson(r.Score(), n, zBelow); hi < threshold {
		return StopBelow
	}
	return ""
}

// wrongAt is the most a verdict of a sequential match may be wrong, on
// each side: with both, 5 %, as a single 95 % interval.
const wrongAt = 0.025

// stopZ returns, for each verdict, the z of the Wilson interval that a
// match of at most games games checks after every game: the smallest, in
// steps of 0.01 from 1.96 (the 95 % interval of one look), for which a
// match whose true score is exactly threshold ends with that verdict at
// most wrongAt of the time (wrongVerdict). A true score farther on the
// other side is wrongly called less often still. Ties count as wins and
// losses here; half a point has less variance than a whole one, so a
// match with ties errs less.
func stopZ(threshold float64, games int) (above, below float64) {
	z := func(up bool) float64 {
		for i := 0; ; i++ {
			z := 1.96 + float64(i)/100
			if wrongVerdict(threshold, games, z, up) <= wrongAt || i > 1000 {
				return z
			}
		}
	}
	return z(true), z(false)
}

// wrongVerdict is the chance that a match of at most games games whose
// true score is threshold, checking after every game whether the
// Wilson interval at z lies wholly above it (above) or wholly below it,
// says so at some game: exactly, over the number of wins of the matches
// that have not yet stopped (the other verdict's stop left out, which
// only overstates the chance).
func wrongVerdict(threshold float64, games int, z float64, above bool) float64 {
	going := []float64{1} // going[k]: the chance of k wins and no verdict yet
	wrong := 0.0
	for n := 1; n <= games; n++ {
		next := make([]float64, n+1)
		for k, p := range going {
			next[k+1] += p * threshold
			next[k] += p * (1 - threshold)
		}
		for k, p := range next {
			lo, hi := wilson(float64(k)/float64(n), n, z)
			if (above && lo > threshold) || (!above && hi < threshold) {
				wrong += p
				next[k] = 0
			}
		}
		going = next
	}
	return wrong
}

// wilson is the Wilson score interval of proportion p of n trials at z.
func wilson(p float64, n int, z float64) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	nf := float64(n)
	mid := p + z*z/(2*nf)
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf))
	d := 1 + z*z/nf
	return max(0, (mid-half)/d), min(1, (mid+half)/d)
}

// Play plays the match and returns A's result. progress, when not nil,
// gets a line after each game. A robot's error (ctx ended) or an illegal
// move ends the match with that error, unless the player Forfeits: then
// it loses that game and the match goes on.
func Play(ctx context.Context, m Match, progress func(string)) (r Result, err error) {
	if m.Variant == "" {
		m.Variant, _ = m.Rules.Variant("")
	}
	r = Result{Game: m.Rules.Title(), Variant: m.Variant, A: m.A, B: m.B, Stop: StopGames, Threshold: m.Threshold, Limit: m.Limit}
	start := time.Now()
	defer func() { r.Elapsed = time.Since(start) }()
	limited := ctx
	if m.Limit > 0 {
		var cancel context.CancelFunc
		limited, cancel = context.WithDeadline(ctx, start.Add(m.Limit))
		defer cancel()
	}
	var zAbove, zBelow float64
	if m.Threshold > 0 {
		zAbove, zBelow = stopZ(m.Threshold, m.Games)
	}
	for i := range m.Games {
		if m.Threshold > 0 {
			if v := r.verdict(m.Threshold, zAbove, zBelow); v != "" {
				r.Stop = v
				break
			}
		}
		if m.Limit > 0 && i > 0 && time.Since(start)*time.Duration(i+1)/time.Duration(i) > m.Limit {
			r.Stop = StopTime
			break
		}
		pos, err := m.Rules.New(m.First+i, m.Variant)
		if err != nil {
			return r, fmt.Errorf("robotmatch: %s board %d: %w", r.Game, m.First+i, err)
		}
		aSide := 1 + i%2
		winner, forfeit := 0, ""
		for k := 0; pos.Outcome() == games.Playing; k++ {
			side := 0
			p := m.A
			if pos.Turn() != aSide {
				side, p = 1, m.B
			}
			think := p.Think
			think.Workers = max(think.Workers, 1)
			think.Seed = seed(m.First+i, k, side)
			before := cputime.Now()
			th, err := p.Robot.Think(limited, pos.Clone(), think)
			used := cputime.Now() - before
			if err == nil && limited.Err() != nil && ctx.Err() == nil {
				// A move thought past the limit is cut short: the game
				// is dropped like one the robot gave up on.
				err = limited.Err()
			}
			if err != nil && ctx.Err() == nil && limited.Err() != nil {
				r.Stop = StopTime
				return r, nil
			}
			if err != nil && (!p.Forfeits || ctx.Err() != nil) {
				return r, fmt.Errorf("robotmatch: %s, game %d, move %d: %s: %w", r.Game, i, len(pos.Moves())+1, p.Name, err)
			}
			if err == nil {
				if err = apply(pos, th.Move); err != nil && !p.Forfeits {
					return r, fmt.Errorf("%w: %s, game %d (board %d), move %d: %s: %w",
						ErrIllegalMove, r.Game, i, m.First+i, len(pos.Moves())+1, p.Name, err)
				}
			}
			s := &r.Sides[side]
			if err != nil {
				s.Forfeits++
				winner = 3 - pos.Turn()
				forfeit = fmt.Sprintf("game %d (board %d), move %d: %s: %v", i, m.First+i, len(pos.Moves())+1, p.Name, err)
				r.Forfeits = append(r.Forfeits, forfeit)
				break
			}
			s.Moves++
			s.CPU += used
			s.MaxCPU = max(s.MaxCPU, used)
			if p.CPU > 0 && used > p.CPU {
				s.Over++
			}
		}
		if forfeit == "" {
			winner = pos.Winner()
		}
		r.Moves += len(pos.Moves())
		result := "won"
		switch winner {
		case aSide:
			r.Won++
		case 0:
			r.Tied++
			result = "tied"
		default:
			r.Lost++
			result = "lost"
		}
		if forfeit != "" {
			result += " by forfeit (" + forfeit + ")"
		}
		if progress != nil {
			lo, hi := r.Interval()
			progress(fmt.Sprintf("%s: %s (player %d) %s against %s in %d moves; %d won, %d tied, %d lost, 95 %% interval %.0f–%.0f %%, %v",
				r.Game, m.A.Name, aSide, result, m.B.Name, len(pos.Moves()), r.Won, r.Tied, r.Lost, 100*lo, 100*hi, time.Since(start).Round(time.Second)))
		}
	}
	return r, nil
}

// seed is the search seed of move k of board i's game for side: the three mixed
// (splitmix64's finaliser), so that the two sides' and the games' seeds
// share no pattern a generator could echo.
func seed(i, k, side int) uint64 {
	z := uint64(i)<<32 | uint64(k)<<1 | uint64(side)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// apply plays m in pos through the rules alone: its notation read back in
// pos, found among pos's legal moves, and played. A robot's move value is
// never handed to Play as it is, so a move of another position, or of
// another game, cannot slip through.
func apply(pos games.Position, m games.Move) error {
	if m == nil {
		return errors.New("no move")
	}
	parsed, _, err := pos.Parse(m.String())
	if err != nil {
		return err
	}
	if !slices.Contains(pos.Legal(), parsed.String()) {
		return fmt.Errorf("%q is not among the legal moves", parsed.String())
	}
	return pos.Play(parsed)
}

// Why says why the match stopped, for the table: "all games", "above
// 65 %" (its score shown above the threshold, Verdict), "below 65 %",
// "time limit 30m0s".
func (r Result) Why() string {
	switch r.Stop {
	case StopAbove, StopBelow:
		return fmt.Sprintf("%s %.0f %%", r.Stop, 100*r.Threshold)
	case StopTime:
		return "time limit " + r.Limit.String()
	}
	return "all games"
}

// Table writes the results as Markdown, for README's benchmarks: one row
// a match (the score of the first-named player, its 95 % interval,
// games), then one row a player and game with its CPU a move (mean,
// most) against its stated budget.
func Table(results []Result) string {
	var b strings.Builder
	b.WriteString("| Game | Player | Against | Games | Score | 95 % interval | Won–tied–lost | Stopped |\n")
	b.WriteString("|---|---|---|--:|--:|---|---|---|\n")
	for _, r := range results {
		lo, hi := r.Interval()
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %.0f %% | %.0f–%.0f %% | %d–%d–%d | %s |\n",
			r.Game, r.A.Name, r.B.Name, r.Games(), 100*r.Score(), 100*lo, 100*hi, r.Won, r.Tied, r.Lost, r.Why())
	}
	type key struct{ game, name string }
	var order []key
	sides := map[key]*Side{}
	budget := map[key]time.Duration{}
	for _, r := range results {
		for i, p := range []Player{r.A, r.B} {
			k := key{r.Game, p.Name}
			s, ok := sides[k]
			if !ok {
				s = &Side{}
				sides[k], budget[k] = s, p.CPU
				order = append(order, k)
			}
			s.Moves += r.Sides[i].Moves
			s.CPU += r.Sides[i].CPU
			s.MaxCPU = max(s.MaxCPU, r.Sides[i].MaxCPU)
			s.Over += r.Sides[i].Over
		}
	}
	b.WriteString("\n| Game | Player | Moves | CPU a move, mean | most | stated budget | over it |\n")
	b.WriteString("|---|---|--:|--:|--:|--:|--:|\n")
	for _, k := range order {
		s := sides[k]
		mean := time.Duration(0)
		if s.Moves > 0 {
			mean = s.CPU / time.Duration(s.Moves)
		}
		stated := "–"
		if budget[k] > 0 {
			stated = round(budget[k]).String()
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %v | %v | %s | %d |\n", k.game, k.name, s.Moves, round(mean), round(s.MaxCPU), stated, s.Over)
	}
	return b.String()
}

// round keeps three significant digits of d, enough for a table.
func round(d time.Duration) time.Duration {
	for unit := time.Duration(1); unit < time.Hour; unit *= 10 {
		if d < 1000*unit {
			return d.Round(unit)
		}
	}
	return d.Round(time.Second)
}
