package outside

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/robotmatch"
	"lyngk.example/lyngk/engine/yinsh"
)

// TestMain runs the test binary as the stand-in program when the test asks
// for it (OUTSIDE_STANDIN set; its argument names its behaviour), else the
// tests.
func TestMain(m *testing.M) {
	if os.Getenv("OUTSIDE_STANDIN") != "" && len(os.Args) == 2 {
		os.Exit(standIn(os.Args[1]))
	}
	os.Exit(m.Run())
}

// standIn is a program of the protocol made of our own rules: it keeps the
// game, reads the opponent's lines, and plays the first legal turn. Its
// mode makes it misbehave after its first turns: "play" never does,
// "exit" exits, "garbage" writes a line that is no turn, "illegal" places
// a ring on its own ring, "silent" answers nothing.
func standIn(mode string) int {
	in := bufio.NewScanner(os.Stdin)
	if !in.Scan() {
		return 2
	}
	var me, size, limit, row int
	if _, err := fmt.Sscan(in.Text(), &me, &size, &limit, &row); err != nil || size != 5 || row != 5 {
		fmt.Fprintf(os.Stderr, "stand-in: bad first line %q\n", in.Text())
		return 2
	}
	g := yinsh.New(yinsh.Normal)
	turns := 0
	for g.Status() == games.Playing {
		if g.Turn() != me {
			if !in.Scan() {
				return 0
			}
			s, err := FromProgram(in.Text())
			if err == nil {
				var t yinsh.Turn
				if t, _, err = yinsh.ParseTurn(s); err == nil {
					err = g.Apply(t)
				}
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "stand-in: %q: %v\n", in.Text(), err)
				return 2
			}
			continue
		}
		turns++
		if turns > 2 {
			switch mode {
			case "exit":
				return 1
			case "garbage":
				fmt.Println("P 9 9 Q")
				continue
			case "illegal":
				fmt.Println("P " + CoordOf(g.Rings(me)[0]).String())
				continue
			case "silent":
				time.Sleep(time.Hour)
			}
		}
		t := g.Legal(nil)[0]
		line, err := ToProgram(t.String())
		if err != nil {
			fmt.Fprintf(os.Stderr, "stand-in: %v\n", err)
			return 2
		}
		fmt.Println(" " + line) // a leading space, as the course's programs write
		if err := g.Apply(t); err != nil {
			return 2
		}
	}
	return 0
}

// standInProgram is the stand-in behind a Program.
func standInProgram(t *testing.T, mode string) *Program {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("OUTSIDE_STANDIN", "1") // the children inherit it; this test's process has read it already
	return &Program{Command: []string{exe, mode}, Turn: 10 * time.Second, Stderr: os.Stderr}
}

// TestMatch: two stand-ins play a match through the bridge and the match
// harness: every turn crosses the protocol both ways and is read by the
// rules, the games end, each program runs one process a game, and their
// turns are counted and timed.
func TestMatch(t *testing.T) {
	a, b := standInProgram(t, "play"), standInProgram(t, "play")
	defer a.Close()
	defer b.Close()
	r, err := robotmatch.Play(context.Background(), robotmatch.Match{Rules: yinsh.Rules,
		A: robotmatch.Player{Name: "a", Robot: a, Forfeits: true},
		B: robotmatch.Player{Name: "b", Robot: b, Forfeits: true}, Games: 2, First: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Games() != 2 || len(r.Forfeits) != 0 || r.Sides[0].Moves+r.Sides[1].Moves < 2*20 {
		t.Fatalf("match: %+v", r)
	}
	// Both players play the first legal turn, so the two games are the
	// same with the colours swapped: A wins one and loses the other, or
	// both are ties.
	if r.Won != r.Lost {
		t.Errorf("the same game twice, colours swapped: %d won, %d tied, %d lost", r.Won, r.Tied, r.Lost)
	}
	for name, p := range map[string]*Program{"a": a, "b": b} {
		s := p.Stats()
		if s.Starts != 2 || s.Crashes != 0 || s.Turns == 0 || s.Wall <= 0 || s.MaxWall > s.Wall {
			t.Errorf("%s: stats %+v", name, s)
		}
	}
	if got := a.Stats().Turns + b.Stats().Turns; got != r.Sides[0].Moves+r.Sides[1].Moves {
		t.Errorf("turns timed %d, moves played %d", got, r.Sides[0].Moves+r.Sides[1].Moves)
	}
	// A played player 1 in game 0 and player 2 in game 1: its process of
	// game 0 was stopped when game 1 began, not left waiting.
	if a.procs[0] != nil || a.procs[1] == nil {
		t.Errorf("a's processes after the match: player 1 %v, player 2 %v; want only player 2's", a.procs[0] != nil, a.procs[1] != nil)
	}
}

// TestMisbehave: a program that exits, writes what is no turn, plays an
// illegal turn, or answers nothing in time loses each game by forfeit with
// the reason, and the next game starts it anew.
func TestMisbehave(t *testing.T) {
	for mode, want := range map[string]string{
		"exit":    "the program exited",
		"garbage": "protocol",
		"illegal": "not among the legal moves",
		"silent":  "no turn from the program within",
	} {
		t.Run(mode, func(t *testing.T) {
			bad := standInProgram(t, mode)
			if mode == "silent" {
				bad.Turn = 300 * time.Millisecond
			}
			good := standInProgram(t, "play")
			defer bad.Close()
			defer good.Close()
			r, err := robotmatch.Play(context.Background(), robotmatch.Match{Rules: yinsh.Rules,
				A: robotmatch.Player{Name: "good", Robot: good},
				B: robotmatch.Player{Name: "bad", Robot: bad, Forfeits: true}, Games: 2, First: 1}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if r.Won != 2 || r.Sides[1].Forfeits != 2 || len(r.Forfeits) != 2 {
				t.Fatalf("%d won, sides %+v, %q", r.Won, r.Sides, r.Forfeits)
			}
			for _, f := range r.Forfeits {
				if !strings.Contains(f, want) {
					t.Errorf("forfeit %q, want %q", f, want)
				}
			}
			if s := bad.Stats(); s.Starts != 2 {
				t.Errorf("stats %+v: want a process a game", s)
			}
		})
	}
}

// TestThinkRefuses: a position of another game, a blitz game, and a game
// whose record the program cannot have followed are refused, not played.
func TestThinkRefuses(t *testing.T) {
	p := standInProgram(t, "play")
	defer p.Close()
	blitz, err := yinsh.Rules.New(1, "blitz")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Think(context.Background(), blitz, games.Think{}); err == nil {
		t.Error("a blitz game played")
	}
	// Player 1 to move after two turns of ours it never saw: it would
	// have to be told both, which the protocol cannot say.
	pos, err := yinsh.Rules.New(1, "normal")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"f6", "f7"} {
		m, _, err := pos.Parse(s)
		if err != nil || pos.Play(m) != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	if _, err := p.Think(context.Background(), pos, games.Think{}); err == nil || !strings.Contains(err.Error(), "2 turns of the opponent") {
		t.Errorf("a game joined in the middle: %v", err)
	}
}
