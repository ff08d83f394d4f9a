package robotmatch

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/games/gamestest"
)

// first is a robot that plays the first legal move, or, when cheat says
// so for the position, the move a1 whatever the position.
type first struct{ cheat func(p games.Position) bool }

func (f first) Think(_ context.Context, p games.Position, _ games.Think) (games.Thought, error) {
	s := p.Legal()[0]
	if f.cheat != nil && f.cheat(p) {
		// a1 parsed in a position of its own: a move value the rules
		// made, but not for this position.
		fresh, err := gamestest.TicTacToe.New(1, "standard")
		if err != nil {
			return games.Thought{}, err
		}
		m, _, err := fresh.Parse("a1")
		return games.Thought{Move: m}, err
	}
	m, _, err := p.Parse(s)
	return games.Thought{Move: m}, err
}

func (first) AcceptDraw(games.Position, int) bool { return true }

// TestPlay: colours alternate (the first legal move wins for player 1 in
// tic-tac-toe, so A wins its games as player 1 and loses the others), every
// move is counted on its side, and the table has a row for the match and
// one for each player.
func TestPlay(t *testing.T) {
	a := Player{Name: "a", Robot: first{}, Think: games.Think{Playouts: 1}, CPU: time.Second}
	b := Player{Name: "b", Robot: first{}, Think: games.Think{Playouts: 1}}
	var lines []string
	r, err := Play(context.Background(), Match{Rules: gamestest.TicTacToe, A: a, B: b, Games: 4, First: 101},
		func(s string) { lines = append(lines, s) })
	if err != nil {
		t.Fatal(err)
	}
	if r.Won != 2 || r.Tied != 0 || r.Lost != 2 || r.Score() != 0.5 || len(lines) != 4 {
		t.Errorf("match: %d won, %d tied, %d lost (score %v); progress %q", r.Won, r.Tied, r.Lost, r.Score(), lines)
	}
	// Player 1 moves 4 times and player 2 three times in each game.
	if r.Moves != 28 || r.Sides[0].Moves != 14 || r.Sides[1].Moves != 14 || r.Sides[0].Over != 0 {
		t.Errorf("moves %d, sides %+v", r.Moves, r.Sides)
	}
	table := Table([]Result{r})
	for _, want := range []string{"| Tictactoe | a | b | 4 | 50 % | 15–85 % | 2–0–2 |", "| Tictactoe | a | 14 |", "| 1s | 0 |", "| Tictactoe | b | 14 |"} {
		if !strings.Contains(table, want) {
			t.Errorf("table without %q:\n%s", want, table)
		}
	}
}

// TestPlayIllegal: a robot that plays a move the rules refuse in the
// position (a1 again, a move of another position) ends the match with
// ErrIllegalMove naming the game, the move and the robot; nothing is
// trusted because the robot made it.
func TestPlayIllegal(t *testing.T) {
	cheat := Player{Name: "cheat", Robot: first{cheat: func(p games.Position) bool { return len(p.Moves()) == 2 }}, Think: games.Think{Playouts: 1}}
	honest := Player{Name: "honest", Robot: first{}, Think: games.Think{Playouts: 1}}
	_, err := Play(context.Background(), Match{Rules: gamestest.TicTacToe, A: cheat, B: honest, Games: 2, First: 1}, nil)
	if !errors.Is(err, ErrIllegalMove) || !strings.Contains(err.Error(), "game 0 (board 1), move 3: cheat") {
		t.Fatalf("a cheating robot's match: %v", err)
	}
}

// failing is a robot whose every move fails with err, or ctx's error once
// ctx has ended.
type failing struct{ err error }

func (f failing) Think(ctx context.Context, _ games.Position, _ games.Think) (games.Thought, error) {
	if ctx.Err() != nil {
		return games.Thought{}, ctx.Err()
	}
	return games.Thought{}, f.err
}

func (failing) AcceptDraw(games.Position, int) bool { return true }

// TestPlayForfeits: a player that Forfeits loses the game of its illegal
// move or error, counted on its side with the reason, and the match goes
// on; a context that ends still ends the match.
func TestPlayForfeits(t *testing.T) {
	cheat := Player{Name: "cheat", Robot: first{cheat: func(p games.Position) bool { return len(p.Moves()) == 2 }}, Think: games.Think{Playouts: 1}, Forfeits: true}
	honest := Player{Name: "honest", Robot: first{}, Think: games.Think{Playouts: 1}}
	var lines []string
	r, err := Play(context.Background(), Match{Rules: gamestest.TicTacToe, A: cheat, B: honest, Games: 2, First: 1},
		func(s string) { lines = append(lines, s) })
	if err != nil {
		t.Fatal(err)
	}
	// Game 0: the cheat, player 1, forfeits its second move; game 1: it
	// plays honestly as player 2 and loses to the first legal moves.
	if r.Won != 0 || r.Lost != 2 || r.Sides[0].Forfeits != 1 || r.Sides[1].Forfeits != 0 || len(r.Forfeits) != 1 ||
		!strings.Contains(r.Forfeits[0], "game 0 (board 1), move 3: cheat") || !strings.Contains(lines[0], "lost by forfeit (game 0") {
		t.Errorf("forfeits: %d won, %d lost, sides %+v, %q, progress %q", r.Won, r.Lost, r.Sides, r.Forfeits, lines)
	}
	// The cheat's forfeited move is not counted as a move: one in game 0,
	// three in game 1.
	if r.Sides[0].Moves != 1+3 {
		t.Errorf("the cheat's moves: %d, want 4", r.Sides[0].Moves)
	}

	broken := Player{Name: "broken", Robot: failing{errors.New("crashed")}, Think: games.Think{Playouts: 1}, Forfeits: true}
	r, err = Play(context.Background(), Match{Rules: gamestest.TicTacToe, A: honest, B: broken, Games: 2, First: 1}, nil)
	if err != nil || r.Won != 2 || r.Sides[1].Forfeits != 2 || !strings.Contains(r.Forfeits[1], "broken: crashed") {
		t.Errorf("a failing robot: %v, %d won, sides %+v, %q", err, r.Won, r.Sides, r.Forfeits)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Play(ctx, Match{Rules: gamestest.TicTacToe, A: broken, B: honest, Games: 2, First: 1}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("an ended context: %v, want it to end the match", err)
	}
}

// TestWilson: the 95 % interval of known cases.
func TestWilson(t *testing.T) {
	tests := []struct {
		won, tied, lost int
		lo, hi          float64
	}{
		{50, 0, 50, 0.4038, 0.5962},
		{100, 0, 0, 0.9630, 1},
		{0, 0, 10, 0, 0.2775},
		{65, 10, 25, 0.6042, 0.7811},
	}
	for _, tt := range tests {
		lo, hi := Result{Won: tt.won, Tied: tt.tied, Lost: tt.lost}.Interval()
		if math.Abs(lo-tt.lo) > 1e-4 || math.Abs(hi-tt.hi) > 1e-4 {
			t.Errorf("%d-%d-%d: interval %.4f–%.4f, want %.4f–%.4f", tt.won, tt.tied, tt.lost, lo, hi, tt.lo, tt.hi)
		}
	}
}

// TestVerdict: the stopping rule on fixed results (the expected
// verdicts computed apart, by a program of its own). In a match of at
// most 20 games, 10 straight wins show more than 65 % and 9 do not, 5
// straight losses show less and 4 do not; in one of 100, 45 straight wins
// show more than 90 % and a first game lost shows nothing (one look at a
// 95 % interval would call it below); ties count half.
func TestVerdict(t *testing.T) {
	tests := []struct {
		won, tied, lost int
		threshold       float64
		games           int
		want            string
	}{
		{0, 0, 0, 0.65, 20, ""},
		{9, 0, 0, 0.65, 20, ""},
		{10, 0, 0, 0.65, 20, StopAbove},
		{0, 0, 4, 0.65, 20, ""},
		{0, 0, 5, 0.65, 20, StopBelow},
		{44, 0, 0, 0.90, 100, ""},
		{45, 0, 0, 0.90, 100, StopAbove},
		{0, 0, 1, 0.90, 100, ""},
		{15, 0, 0, 0.75, 40, ""},
		{16, 0, 0, 0.75, 40, StopAbove},
		{60, 0, 40, 0.65, 100, ""},
		{50, 0, 50, 0.65, 100, StopBelow},
		{18, 2, 0, 0.75, 40, ""},
		{19, 1, 0, 0.75, 40, StopAbove},
	}
	for _, tt := range tests {
		r := Result{Won: tt.won, Tied: tt.tied, Lost: tt.lost}
		if got := r.Verdict(tt.threshold, tt.games); got != tt.want {
			lo, hi := r.Interval()
			t.Errorf("%d-%d-%d at %v of %d games (95 %% interval %.4f–%.4f): verdict %q, want %q",
				tt.won, tt.tied, tt.lost, tt.threshold, tt.games, lo, hi, got, tt.want)
		}
	}
}

// TestWrongVerdict: the chance of a wrong verdict, by hand in a match of
// one game (at 90 %, one lost game puts the 95 % interval at 0–79 %: a
// wrong "below" 10 % of the time, and one won game never shows "above"),
// and as the simulation of 20000 matches at each threshold finds it;
// after the widening of stopZ at most 2.5 % on each side.
func TestWrongVerdict(t *testing.T) {
	if got := wrongVerdict(0.9, 1, 1.959964, false); math.Abs(got-0.1) > 1e-12 {
		t.Errorf("one game at 90 %%: wrong below %v, want 0.1", got)
	}
	if got := wrongVerdict(0.9, 1, 1.959964, true); got != 0 {
		t.Errorf("one game at 90 %%: wrong above %v, want 0", got)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tt := range []struct {
		threshold float64
		games     int
	}{{0.65, 20}, {0.75, 40}, {0.9, 100}} {
		za, zb := stopZ(tt.threshold, tt.games)
		for _, z := range []struct {
			above bool
			z     float64
		}{{true, za}, {false, zb}, {true, 1.959964}, {false, 1.959964}} {
			exact := wrongVerdict(tt.threshold, tt.games, z.z, z.above)
			if z.z != 1.959964 && exact > wrongAt {
				t.Errorf("%v of %d, above %v, z %.2f: wrong %.4f of the time", tt.threshold, tt.games, z.above, z.z, exact)
			}
			const matches = 20000
			wrong := 0
			for range matches {
				var r Result
				for range tt.games {
					if rng.Float64() < tt.threshold {
						r.Won++
					} else {
						r.Lost++
					}
					zA, zB := math.Inf(1), math.Inf(1)
					if z.above {
						zA = z.z
					} else {
						zB = z.z
					}
					if r.verdict(tt.threshold, zA, zB) != "" {
						wrong++
						break
					}
				}
			}
			sim := float64(wrong) / matches
			if sd := math.Sqrt(exact * (1 - exact) / matches); math.Abs(sim-exact) > 4*sd+1e-3 {
				t.Errorf("%v of %d, above %v, z %.2f: simulated %.4f, computed %.4f", tt.threshold, tt.games, z.above, z.z, sim, exact)
			}
		}
	}
}

// TestPlayStops: a match with a threshold stops at the first game its
// verdict is known (A wins as player 1 only: of at most 20 games, 9–9
// after 18 shows less than 80 %, the first score that does), says so in
// the table, and one without plays all its games.
func TestPlayStops(t *testing.T) {
	a := Player{Name: "a", Robot: first{}, Think: games.Think{Playouts: 1}}
	b := Player{Name: "b", Robot: first{}, Think: games.Think{Playouts: 1}}
	r, err := Play(context.Background(), Match{Rules: gamestest.TicTacToe, A: a, B: b, Games: 20, First: 1, Threshold: 0.8}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Games() != 18 || r.Won != 9 || r.Stop != StopBelow || r.Why() != "below 80 %" {
		t.Errorf("match with a threshold: %d–%d–%d, stop %q (%s)", r.Won, r.Tied, r.Lost, r.Stop, r.Why())
	}
	if table := Table([]Result{r}); !strings.Contains(table, "| 9–0–9 | below 80 % |") {
		t.Errorf("table without the stop:\n%s", table)
	}
	r, err = Play(context.Background(), Match{Rules: gamestest.TicTacToe, A: a, B: b, Games: 20, First: 1}, nil)
	if err != nil || r.Games() != 20 || r.Stop != StopGames || r.Why() != "all games" {
		t.Errorf("match without a threshold: %d games, stop %q, %v", r.Games(), r.Stop, err)
	}
}

// stall is a robot that thinks until its context ends.
type stall struct{}

func (stall) Think(ctx context.Context, _ games.Position, _ games.Think) (games.Thought, error) {
	<-ctx.Done()
	return games.Thought{}, ctx.Err()
}

func (stall) AcceptDraw(games.Position, int) bool { return true }

// TestPlayTimeLimit: a match whose time runs out in a game reports the
// games it finished, drops the one cut short and says why; a robot's
// error before the limit is still the match's error.
func TestPlayTimeLimit(t *testing.T) {
	// b plays its first 4 moves (its 3 of game 0, as player 2, and the
	// first of game 1) and then thinks until the limit.
	calls := 0
	a := Player{Name: "a", Robot: first{}, Think: games.Think{Playouts: 1}}
	b := Player{Name: "b", Robot: counted{stall{}, &calls, 4}, Think: games.Think{Playouts: 1}}
	r, err := Play(context.Background(), Match{Rules: gamestest.TicTacToe, A: a, B: b, Games: 10, First: 1, Limit: 100 * time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Games() != 1 || r.Stop != StopTime || r.Why() != "time limit 100ms" || r.Elapsed < 100*time.Millisecond {
		t.Errorf("match cut by its limit: %d–%d–%d, stop %q (%s), elapsed %v", r.Won, r.Tied, r.Lost, r.Stop, r.Why(), r.Elapsed)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Play(ctx, Match{Rules: gamestest.TicTacToe, A: a, B: Player{Name: "b", Robot: stall{}}, Games: 2, First: 1, Limit: time.Hour}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("a match whose context ended: %v", err)
	}
}

// counted passes its first free calls to first{} and the rest to robot.
type counted struct {
	robot games.Robot
	calls *int
	free  int
}

func (c counted) Think(ctx context.Context, p games.Position, o games.Think) (games.Thought, error) {
	*c.calls++
	if *c.calls <= c.free {
		return first{}.Think(ctx, p, o)
	}
	return c.robot.Think(ctx, p, o)
}

func (counted) AcceptDraw(games.Position, int) bool { return true }

// seeded is a robot that plays the first legal move and keeps the seed of
// each search it is asked for.
type seeded struct{ seeds *[]uint64 }

func (s seeded) Think(_ context.Context, p games.Position, o games.Think) (games.Thought, error) {
	*s.seeds = append(*s.seeds, o.Seed)
	m, _, err := p.Parse(p.Legal()[0])
	return games.Thought{Move: m}, err
}

func (seeded) AcceptDraw(games.Position, int) bool { return true }

// TestSeedsFollowBoard: a match replays its seeds, and a match played in
// parts seeds each game by its board, so the part from board 2 repeats
// no search of the part from board 1's first game (tic-tac-toe's start,
// like YINSH's, is the same on every board), while its first game is
// the second game of a match from board 1 (the colours aside). Each game
// is seven moves, player 1 winning with the first legal ones.
func TestSeedsFollowBoard(t *testing.T) {
	play := func(first, n int) []uint64 {
		var seeds []uint64
		p := Player{Name: "s", Robot: seeded{&seeds}, Think: games.Think{Playouts: 1}}
		if _, err := Play(context.Background(), Match{Rules: gamestest.TicTacToe, A: p, B: p, Games: n, First: first}, nil); err != nil {
			t.Fatal(err)
		}
		return seeds
	}
	one, again, two, both := play(1, 1), play(1, 1), play(2, 1), play(1, 2)
	if len(one) != 7 || !slices.Equal(one, again) {
		t.Errorf("board 1 twice: seeds %x and %x", one, again)
	}
	for _, s := range two {
		if slices.Contains(one, s) {
			t.Errorf("board 2 repeats seed %x of board 1: %x and %x", s, one, two)
		}
	}
	// In the match from board 1, its second game is board 2's, with the
	// sides swapped: the same seeds, move by move, as side 0 and 1 swap.
	if len(both) != 14 {
		t.Fatalf("two games: %d searches", len(both))
	}
	for k, s := range both[7:] {
		if want := seed(2, k, 1-k%2); s != want {
			t.Errorf("board 2's move %d in the match from board 1: seed %x, want %x", k, s, want)
		}
	}
	for k, s := range two {
		if want := seed(2, k, k%2); s != want {
			t.Errorf("board 2's move %d in the match from board 2: seed %x, want %x", k, s, want)
		}
	}
}
