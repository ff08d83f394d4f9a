package robotmatch

import (
	"context"
	"errors"
	"math"
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
