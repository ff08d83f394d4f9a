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

	"lyngk.example/lyngk/engine"
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
//	LYNGK_BENCH_ROBOT_MATCHES=K   the kinds of match: levels (each over the
//	                              one below), baseline, floor (all three)
//	LYNGK_BENCH_ROBOT_STOP=1      a match stops once its score shows it
//	                              above or below its threshold
//	                              (benchThreshold, robotmatch's Verdict)
//	LYNGK_BENCH_ROBOT_MINUTES=M   each match stops after M minutes with
//	                              the games it finished
//	LYNGK_BENCH_ROBOT_FIRST=B     the board and seeds of the first game (1),
//	                              so that a long match is played in parts
//
// One search runs at a time (robotmatch measures the process's CPU), so
// it takes one core; the Makefile's default (the two lowest levels at 100
// games a match) takes under an hour of it. All levels at 100 games a
// match take days, most of them the matches at 10 s a move: a YINSH game
// against robot-max is some 35 moves of 10 s on its side alone; the
// sequential stop and the time limit are for them.
func TestBenchRobot(t *testing.T) {
	if os.Getenv("LYNGK_BENCH_ROBOT") == "" {
		t.Skip("the strength benchmark runs with make bench-robot (LYNGK_BENCH_ROBOT=1)")
	}
	var plan benchPlan
	var err error
	if plan.games, err = envNumber("LYNGK_BENCH_ROBOT_GAMES", 100); err != nil {
		t.Fatal(err)
	}
	minutes, err := envNumber("LYNGK_BENCH_ROBOT_MINUTES", 0)
	if err != nil {
		t.Fatal(err)
	}
	plan.limit = time.Duration(minutes) * time.Minute
	if plan.first, err = envNumber("LYNGK_BENCH_ROBOT_FIRST", 1); err != nil {
		t.Fatal(err)
	}
	plan.stop = os.Getenv("LYNGK_BENCH_ROBOT_STOP") != ""
	cfg := defaultConfig()
	if s := os.Getenv("LYNGK_BENCH_ROBOT_LEVELS"); s != "" {
		cfg.RobotLevels = s
	}
	if plan.levels, err = cfg.robotLevels(); err != nil {
		t.Fatal(err)
	}
	words := func(key string) []string {
		return strings.FieldsFunc(os.Getenv(key), func(r rune) bool { return r == ',' || r == ' ' })
	}
	plan.kinds = words("LYNGK_BENCH_ROBOT_MATCHES")
	for _, k := range plan.kinds {
		if !slices.Contains(benchKinds, k) {
			t.Fatalf("LYNGK_BENCH_ROBOT_MATCHES: no kind %q: choose among %s", k, strings.Join(benchKinds, " "))
		}
	}
	var results []robotmatch.Result
	for _, gm := range offered() {
		if w := words("LYNGK_BENCH_ROBOT_GAME"); len(w) > 0 && !slices.Contains(w, gm.Name()) {
			continue
		}
		for _, m := range plan.matches(gm) {
			r, err := robotmatch.Play(context.Background(), m, func(s string) { t.Log(s) })
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %s against %s stopped after %d games: %s", r.Game, r.A.Name, r.B.Name, r.Games(), r.Why())
			results = append(results, r)
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

// envNumber is the whole number of at least 1 in the environment's key,
// def when unset.
func envNumber(key string, def int) (int, error) {
	s := os.Getenv(key)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s=%q: want a whole number of at least 1", key, s)
	}
	return n, nil
}

// benchKinds are the kinds of match of the benchmark, in its order.
var benchKinds = []string{"levels", "baseline", "floor"}

// benchPlan is what the benchmark plays: the kinds of match (all when
// none named) between levels, games a match from board first, whether a
// match stops on its verdict (benchThreshold), and each match's time limit.
type benchPlan struct {
	levels []engine.RobotLevel
	kinds  []string
	games  int
	first  int
	stop   bool
	limit  time.Duration
}

// benchThreshold is the score a match of kind tests in game: a level is
// stronger than the one below it, or than the floor, at 65 %; against
// the previous robot the figures asked of the new robots at equal time,
// 90 % in YINSH and 75 % in LYNGK (a playout level is held to the same
// figure at its own budget).
func benchThreshold(kind, game string) float64 {
	switch {
	case kind != "baseline":
		return 0.65
	case game == "yinsh":
		return 0.90
	}
	return 0.75
}

// matches are the plan's matches in gm, each level's robot thinking at
// the level's budget, colours alternating from board p.first.
func (p benchPlan) matches(gm games.Game) []robotmatch.Match {
	baseline := map[string]games.Robot{"lyngk": lyngksearch.Baseline(), "yinsh": yinshsearch.Baseline()}
	player := func(i int) robotmatch.Player {
		l := p.levels[i]
		return robotmatch.Player{Name: l.ID, Robot: gm.Robot, Think: l.Think, CPU: l.CPU}
	}
	var out []robotmatch.Match
	add := func(kind string, a, b robotmatch.Player) {
		m := robotmatch.Match{Rules: gm, A: a, B: b, Games: p.games, First: p.first, Limit: p.limit}
		if p.stop {
			m.Threshold = benchThreshold(kind, gm.Name())
		}
		out = append(out, m)
	}
	on := func(kind string) bool { return len(p.kinds) == 0 || slices.Contains(p.kinds, kind) }
	if on("levels") {
		for i := 1; i < len(p.levels); i++ {
			add("levels", player(i), player(i-1))
		}
	}
	if on("baseline") {
		for i, l := range p.levels {
			add("baseline", player(i), robotmatch.Player{Name: "baseline at " + l.ID, Robot: baseline[gm.Name()], Think: l.Think})
		}
	}
	// The floor: the weakest level against players that know nothing
	// (random) or only what scores at once (greedy).
	if on("floor") && len(p.levels) > 0 {
		for _, floor := range []robotmatch.Player{{Name: "random", Robot: random{}}, {Name: "greedy", Robot: greedy{}}} {
			add("floor", player(0), floor)
		}
	}
	return out
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

// TestBenchPlan: the benchmark's matches for its settings: each kind of
// match chosen alone, the thresholds of the sequential stop (65 % over
// the level below, 90 % YINSH and 75 % LYNGK over the previous robot),
// none without it, and the time limit on every match.
func TestBenchPlan(t *testing.T) {
	cfg := defaultConfig()
	cfg.RobotLevels = "robot-max,robot"
	levels, err := cfg.robotLevels()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]games.Game{}
	for _, gm := range offered() {
		byName[gm.Name()] = gm
	}
	describe := func(ms []robotmatch.Match) string {
		var s []string
		for _, m := range ms {
			s = append(s, fmt.Sprintf("%s %s-%s %v %d from %d %v", m.Rules.Name(), m.A.Name, m.B.Name, m.Threshold, m.Games, m.First, m.Limit))
		}
		return strings.Join(s, "; ")
	}
	tests := []struct {
		game  string
		kinds []string
		stop  bool
		want  string
	}{
		{"yinsh", []string{"levels"}, true, "yinsh robot-max-robot 0.65 7 from 41 5m0s"},
		{"yinsh", []string{"baseline"}, true, "yinsh robot-baseline at robot 0.9 7 from 41 5m0s; yinsh robot-max-baseline at robot-max 0.9 7 from 41 5m0s"},
		{"lyngk", []string{"baseline"}, true, "lyngk robot-baseline at robot 0.75 7 from 41 5m0s; lyngk robot-max-baseline at robot-max 0.75 7 from 41 5m0s"},
		{"lyngk", []string{"floor", "levels"}, false, "lyngk robot-max-robot 0 7 from 41 5m0s; lyngk robot-random 0 7 from 41 5m0s; lyngk robot-greedy 0 7 from 41 5m0s"},
		{"lyngk", nil, true, "lyngk robot-max-robot 0.65 7 from 41 5m0s; lyngk robot-baseline at robot 0.75 7 from 41 5m0s; " +
			"lyngk robot-max-baseline at robot-max 0.75 7 from 41 5m0s; lyngk robot-random 0.65 7 from 41 5m0s; lyngk robot-greedy 0.65 7 from 41 5m0s"},
	}
	for _, tt := range tests {
		p := benchPlan{levels: levels, kinds: tt.kinds, games: 7, first: 41, stop: tt.stop, limit: 5 * time.Minute}
		if got := describe(p.matches(byName[tt.game])); got != tt.want {
			t.Errorf("%s %v stop %v:\n got %s\nwant %s", tt.game, tt.kinds, tt.stop, got, tt.want)
		}
	}
}
