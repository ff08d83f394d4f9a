package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/engine/lyngksearch"
	"lyngk.example/lyngk/engine/robotmatch"
	"lyngk.example/lyngk/engine/robotmatch/outside"
	"lyngk.example/lyngk/engine/yinsh"
	"lyngk.example/lyngk/engine/yinshsearch"
)

// TestBenchRobot is the strength benchmark, make bench-robot: in each game
// the server offers, every level against the one below it, every level
// against the previous robot (lyngksearch.Baseline, yinshsearch.Baseline)
// thinking at the level's own budget, and the weakest level against a
// random and a greedy player (random, greedy), colours alternating, the stronger
// side's score with its 95 % interval; every robot move read back by the
// rules (an illegal one fails the benchmark at once), and every level's
// CPU a move checked against its stated budget (engine.RobotLevel.CPU).
// It prints the Markdown tables of README's benchmarks.
//
// The levels are the server's own (robot_levels' default, robot thinking
// robot_think's default). Environment:
//
//	LYNGK_BENCH_ROBOT=1           runs it (else skipped)
//	LYNGK_BENCH_ROBOT_GAMES=N     games a match (100)
//	LYNGK_BENCH_ROBOT_LEVELS=L    the levels, as robot_levels writes them (all)
//	LYNGK_BENCH_ROBOT_GAME=G      the games, by word: lyngk, yinsh (both)
//
// One search runs at a time (robotmatch measures the process's CPU), so
// it takes one core; the Makefile's default (the two lowest levels at 100
// games a match) takes under an hour of it. All levels at 100 games a
// match take days, most of them the matches at 10 s a move: a YINSH game
// against robot-max is some 35 moves of 10 s on its side alone.
func TestBenchRobot(t *testing.T) {
	if os.Getenv("LYNGK_BENCH_ROBOT") == "" {
		t.Skip("the strength benchmark runs with make bench-robot (LYNGK_BENCH_ROBOT=1)")
	}
	n := 100
	if s := os.Getenv("LYNGK_BENCH_ROBOT_GAMES"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 1 {
			t.Fatalf("LYNGK_BENCH_ROBOT_GAMES=%q: want a number of games", s)
		}
	}
	cfg := defaultConfig()
	if s := os.Getenv("LYNGK_BENCH_ROBOT_LEVELS"); s != "" {
		cfg.RobotLevels = s
	}
	levels, err := cfg.robotLevels()
	if err != nil {
		t.Fatal(err)
	}
	words := strings.FieldsFunc(os.Getenv("LYNGK_BENCH_ROBOT_GAME"), func(r rune) bool { return r == ',' || r == ' ' })
	baseline := map[string]games.Robot{"lyngk": lyngksearch.Baseline(), "yinsh": yinshsearch.Baseline()}
	var results []robotmatch.Result
	play := func(m robotmatch.Match) {
		t.Helper()
		r, err := robotmatch.Play(context.Background(), m, func(s string) { t.Log(s) })
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, r)
	}
	for _, gm := range offered() {
		if len(words) > 0 && !slices.Contains(words, gm.Name()) {
			continue
		}
		player := func(i int) robotmatch.Player {
			l := levels[i]
			return robotmatch.Player{Name: l.ID, Robot: gm.Robot, Think: l.Think, CPU: l.CPU}
		}
		for i := 1; i < len(levels); i++ {
			play(robotmatch.Match{Rules: gm, A: player(i), B: player(i - 1), Games: n, First: 1})
		}
		for i, l := range levels {
			old := robotmatch.Player{Name: "baseline at " + l.ID, Robot: baseline[gm.Name()], Think: l.Think}
			play(robotmatch.Match{Rules: gm, A: player(i), B: old, Games: n, First: 1})
		}
		// The floor: the weakest level against players that know nothing
		// (random) or only what scores at once (greedy).
		for _, floor := range []robotmatch.Player{{Name: "random", Robot: random{}}, {Name: "greedy", Robot: greedy{}}} {
			play(robotmatch.Match{Rules: gm, A: player(0), B: floor, Games: n, First: 1})
		}
	}
	table := robotmatch.Table(results)
	fmt.Print("\n" + table)
	for _, r := range results {
		for i, p := range []robotmatch.Player{r.A, r.B} {
			if s := r.Sides[i]; s.Over > 0 {
				t.Errorf("%s, %s against %s: %d of %d moves took more CPU than its budget of %v (the most %v)",
					r.Game, p.Name, []robotmatch.Player{r.B, r.A}[i].Name, s.Over, s.Moves, p.CPU, s.MaxCPU)
			}
		}
	}
}

// TestBenchRobotOutside plays the server's YINSH robot against an outside
// YINSH program (package outside: a child process speaking the line
// protocol of the university course's YINSH bots), colours alternating,
// our robot thinking the same time a turn as the program, one game at a
// time. Every turn of the program is read by the rules; a crash, a line
// that is no turn, an illegal turn or no answer within a minute loses the
// program that game, and the forfeits are printed apart. It prints the
// match's table and the program's time a turn. deploy/BENCHMARKS.md says
// which program was measured and how it was built. Environment:
//
//	ROBOT_OUTSIDE='CMD ARGS'      the program's command line, split at spaces (else skipped)
//	ROBOT_OUTSIDE_GAMES=N         games (10)
//	ROBOT_OUTSIDE_THINK=D         our robot's time a turn, a Go duration (2s)
//	ROBOT_OUTSIDE_LIMIT=S         the time limit told to the program for its game, in seconds (150)
func TestBenchRobotOutside(t *testing.T) {
	command := strings.Fields(os.Getenv("ROBOT_OUTSIDE"))
	if len(command) == 0 {
		t.Skip("plays an outside YINSH program named by ROBOT_OUTSIDE")
	}
	n, limit := 10, 0
	think := 2 * time.Second
	var err error
	if s := os.Getenv("ROBOT_OUTSIDE_GAMES"); s != "" {
		if n, err = strconv.Atoi(s); err != nil || n < 1 {
			t.Fatalf("ROBOT_OUTSIDE_GAMES=%q: want a number of games", s)
		}
	}
	if s := os.Getenv("ROBOT_OUTSIDE_THINK"); s != "" {
		if think, err = time.ParseDuration(s); err != nil || think <= 0 {
			t.Fatalf("ROBOT_OUTSIDE_THINK=%q: want a duration such as 2s", s)
		}
	}
	if s := os.Getenv("ROBOT_OUTSIDE_LIMIT"); s != "" {
		if limit, err = strconv.Atoi(s); err != nil || limit < 1 {
			t.Fatalf("ROBOT_OUTSIDE_LIMIT=%q: want seconds", s)
		}
	}
	program := &outside.Program{Command: command, Limit: limit, Turn: time.Minute}
	defer program.Close()
	name := filepath.Base(command[0])
	r, err := robotmatch.Play(context.Background(), robotmatch.Match{Rules: yinsh.Rules,
		A:     robotmatch.Player{Name: "robot at " + think.String(), Robot: yinshsearch.Robot, Think: games.Think{Time: think}},
		B:     robotmatch.Player{Name: name, Robot: program, Forfeits: true},
		Games: n, First: 1}, func(s string) { t.Log(s + "; " + times(name, program.Stats())) })
	if err != nil {
		t.Fatal(err)
	}
	fmt.Print("\n" + robotmatch.Table([]robotmatch.Result{r}))
	fmt.Printf("\n%s; %d games forfeited\n", times(name, program.Stats()), r.Sides[1].Forfeits)
	for _, f := range r.Forfeits {
		fmt.Println("forfeit: " + f)
	}
}

// times is what an outside program's turns took so far: the progress of
// a long match says it after each game, so that a match stopped early
// still has the figures of the games it played.
func times(name string, s outside.Stats) string {
	n := time.Duration(max(s.Turns, 1))
	return fmt.Sprintf("%s: %d turns, wall a turn %v mean, %v most; CPU a turn %v mean, %v most; %d processes",
		name, s.Turns, (s.Wall / n).Round(time.Millisecond), s.MaxWall.Round(time.Millisecond),
		(s.CPU / n).Round(time.Millisecond), s.MaxCPU.Round(time.Millisecond), s.Starts)
}

// random is a robot that plays uniformly among the legal moves (LYNGK's
// claims included, YINSH's whole turns), drawn from its seed: the floor
// of the benchmark, which every level must beat nearly always.
type random struct{}

func (random) Think(_ context.Context, p games.Position, o games.Think) (games.Thought, error) {
	legal := p.Legal()
	m, _, err := p.Parse(legal[rand.New(rand.NewPCG(o.Seed, 1)).IntN(len(legal))])
	return games.Thought{Move: m}, err
}

func (random) AcceptDraw(games.Position, int) bool { return true }

// greedy is a one-ply robot that knows what scores, the step above random:
// in LYNGK it removes a stack when it can, else makes its tallest own stack
// (topped by a colour it claimed, or claims with this move); in YINSH it
// completes a row of its colour when it can, else leaves the most markers
// of its colour minus the opponent's. Ties are drawn from its seed.
type greedy struct{}

func (greedy) Think(_ context.Context, p games.Position, o games.Think) (games.Thought, error) {
	r := rand.New(rand.NewPCG(o.Seed, 2))
	if g, ok := games.Unwrap[lyngk.Game](p); ok {
		return games.Thought{Move: best(g.Legal(nil), r, func(m lyngk.Move) int {
			h := *g
			if h.Apply(m) != nil {
				return -1
			}
			me := g.Turn()
			switch top := g.Top(m.From); {
			case h.Removed(me) > g.Removed(me):
				return 10
			case top == m.Claim || g.Owner(top) == me:
				return g.Height(m.From) + g.Height(m.To)
			}
			return 0
		})}, nil
	}
	if g, ok := games.Unwrap[yinsh.Game](p); ok {
		return games.Thought{Move: best(g.Legal(nil), r, func(tn yinsh.Turn) int {
			h := *g
			if h.Apply(tn) != nil {
				return -1 << 30
			}
			if tn.NPost > 0 {
				return 1 << 20
			}
			me := g.Turn()
			return len(h.Markers(me)) - len(h.Markers(3-me))
		})}, nil
	}
	return games.Thought{}, fmt.Errorf("greedy: no game of mine: %T", p)
}

func (greedy) AcceptDraw(games.Position, int) bool { return true }

// best is a move of the highest score, ties drawn with r.
func best[M any](moves []M, r *rand.Rand, score func(M) int) M {
	var top []M
	high := 0
	for _, m := range moves {
		switch s := score(m); {
		case len(top) == 0 || s > high:
			top, high = append(top[:0], m), s
		case s == high:
			top = append(top, m)
		}
	}
	return top[r.IntN(len(top))]
}

// TestGreedyRobot: the benchmark's greedy robot completes a row in YINSH
// whenever it can, and removes a stack in LYNGK whenever it can.
func TestGreedyRobot(t *testing.T) {
	for _, gm := range offered() {
		found := 0
		for seed := uint64(1); found < 5 && seed < 50; seed++ {
			variant, _ := gm.Variant("")
			pos, err := gm.New(int(seed), variant)
			if err != nil {
				t.Fatal(err)
			}
			for k := uint64(0); pos.Outcome() == games.Playing && found < 5; k++ {
				scores := false
				for _, s := range pos.Legal() {
					after := pos.Clone()
					m, _, err := after.Parse(s)
					if err != nil || after.Play(m) != nil {
						t.Fatalf("%s: legal move %s refused", gm.Name(), s)
					}
					scores = scores || scored(pos, after)
				}
				th, err := greedy{}.Think(context.Background(), pos, games.Think{Seed: seed<<16 | k})
				if err != nil {
					t.Fatal(err)
				}
				before := pos.Clone()
				m, _, err := pos.Parse(th.Move.String())
				if err != nil || pos.Play(m) != nil {
					t.Fatalf("%s: greedy's move %s refused", gm.Name(), th.Move)
				}
				if scores {
					found++
					if !scored(before, pos) {
						t.Errorf("%s, seed %d: greedy played %s, which scores nothing, where a move scores", gm.Name(), seed, th.Move)
					}
				}
			}
		}
		if found < 5 {
			t.Errorf("%s: only %d positions where a move scores", gm.Name(), found)
		}
	}
}

// scored reports whether the move from before to after removed something
// for the player who made it: a LYNGK stack, a YINSH row.
func scored(before, after games.Position) bool {
	me := before.Turn()
	if g, ok := games.Unwrap[lyngk.Game](before); ok {
		h, _ := games.Unwrap[lyngk.Game](after)
		return h.Removed(me) > g.Removed(me)
	}
	g, _ := games.Unwrap[yinsh.Game](before)
	h, _ := games.Unwrap[yinsh.Game](after)
	return h.Removed(me) > g.Removed(me) || len(h.Markers(me)) < len(g.Markers(me))-4
}
