package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/engine/lyngksearch"
	"lyngk.example/lyngk/engine/mcts"
)

// robotThink is the robot's default think time; robotSeed makes a
// -playouts answer reproducible.
const (
	robotThink = 2 * time.Second
	robotSeed  = 1
)

const analyzeUsage = "usage: lyngk analyze (-seed N | -position FILE) [-stack6] [-turn 1|2] [-players A,B] [-json] [MOVE…]"

// runAnalyze is `lyngk analyze` (SPEC §5): it sets up board N (-seed) or the
// position in FILE (-position: a board block as displayed; -stack6 when the
// file lacks the "Stack6 Mode" line), gives the turn to -turn (default 1),
// applies the MOVE arguments in order and prints the board block, or with
// -json the analysis object. Flags may also follow the moves. A "--"
// argument is skipped: passes are automatic, also right after the set-up.
//
// An illegal move exits 1 with "move K (MOVE): REASON" on stderr, where MOVE
// is the argument as given and K is the number the move would have had in
// the game, counting the recorded passes, so K matches the "moves" list and
// a "#n" suffix; a "#n" that differs from K is refused likewise. Bad usage
// exits 2; an unreadable or malformed position file exits 1.
func runAnalyze(args []string, stdout, stderr io.Writer) int {
	if name, rest, ok := gameArg(args); ok {
		all := offered()
		i := slices.IndexFunc(all, func(g games.Game) bool { return g.Name() == strings.ToLower(name) })
		switch {
		case i < 0:
			fmt.Fprintf(stderr, "lyngk analyze: no game %q (the games: %s)\n%s\n", name, gameNames(all), analyzeGameUsage)
			return 2
		case i > 0:
			return runAnalyzeGame(all[i], rest, stdout, stderr)
		}
		args = rest // the first game, LYNGK: the flags below
	}
	fs := flag.NewFlagSet("analyze", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, analyzeUsage)
		fs.PrintDefaults()
	}
	seed := fs.Int("seed", 0, "start from gamerz board number `N`")
	position := fs.String("position", "", "start from the board block in `FILE`")
	stack6 := fs.Bool("stack6", false, "play the stack6 variant")
	turn := fs.Int("turn", 1, "the player to move first, 1 or 2")
	players := fs.String("players", "", "the player names `A,B` (default player1,player2, or those of the position file)")
	asJSON := fs.Bool("json", false, "print a JSON object instead of the board")
	robot := fs.Bool("robot", false, "print the robot's move for the player to move instead of the board (with -json: add it as \"robot\")")
	think := fs.Duration("think", robotThink, "the robot's think time")
	playouts := fs.Int("playouts", 0, "let the robot think `N` playouts instead of a time, which makes its move reproducible")

	// Flags may follow the moves. A pass argument is skipped whatever its
	// number ("--#30"), and the flag package would take "--#30" for a flag.
	args = slices.Clone(args)
	for i, a := range args {
		if strings.HasPrefix(a, "--#") {
			args[i] = "--"
		}
	}
	var moves []string
	for {
		if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
			return 0
		} else if err != nil {
			return 2
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if rest[0] != "--" {
			moves = append(moves, rest[0])
		}
		args = rest[1:]
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	usageErr := func(msg string) int {
		fmt.Fprintf(stderr, "lyngk analyze: %s\n%s\n", msg, analyzeUsage)
		return 2
	}
	switch {
	case set["seed"] == set["position"]:
		return usageErr("give exactly one of -seed and -position")
	case set["seed"] && *seed < 1:
		return usageErr("-seed wants a board number, 1 or more")
	case *turn != 1 && *turn != 2:
		return usageErr("-turn wants 1 or 2")
	case (set["think"] || set["playouts"]) && !*robot:
		return usageErr("-think and -playouts go with -robot")
	case *think <= 0 || *playouts < 0:
		return usageErr("-think wants a positive duration such as 2s, -playouts a positive number")
	}
	var names [2]string
	if set["players"] {
		a, b, ok := strings.Cut(*players, ",")
		if !ok || a == "" || b == "" || strings.Contains(b, ",") {
			return usageErr("-players wants two names, as in -players alice,bob")
		}
		names = [2]string{a, b}
	}

	var g lyngk.Game
	if set["seed"] {
		variant := lyngk.Standard
		if *stack6 {
			variant = lyngk.Stack6
		}
		g = lyngk.New(*seed, variant)
		if !set["players"] {
			names = [2]string{"player1", "player2"}
		}
	} else {
		data, err := os.ReadFile(*position)
		if err != nil {
			fmt.Fprintf(stderr, "lyngk analyze: %v\n", err)
			return 1
		}
		block := string(data)
		if *stack6 && !strings.HasPrefix(strings.TrimLeft(block, "\r\n"), "Stack6 Mode") {
			block = "Stack6 Mode\n" + block
		}
		var fileNames [2]string
		g, fileNames, err = lyngk.ParseBoard(block)
		if err != nil {
			fmt.Fprintf(stderr, "lyngk analyze: %s: %v\n", *position, err)
			return 1
		}
		if !set["players"] {
			names = fileNames
		}
	}
	g.SetTurn(*turn)

	for _, arg := range moves {
		k := g.MoveCount() + 1
		m, num, err := lyngk.ParseMove(arg)
		switch {
		case err != nil:
		case m.IsPass():
			continue
		case num != 0 && num != k:
			err = fmt.Errorf("this is move %d, not move %d", k, num)
		default:
			err = g.Apply(m)
		}
		if err != nil {
			fmt.Fprintf(stderr, "move %d (%s): %s\n", k, arg, reason(err))
			return 1
		}
	}

	var robotMove string
	if *robot {
		res, err := lyngksearch.Robot.Search(context.Background(), &g, mcts.Options{
			Iterations: *playouts, Think: *think, Workers: runtime.NumCPU(), Seed: robotSeed,
		})
		if err != nil {
			fmt.Fprintf(stderr, "lyngk analyze: %s\n", strings.TrimPrefix(err.Error(), "search: "))
			return 1
		}
		robotMove = res.Move.String()
		if !*asJSON {
			fmt.Fprintln(stdout, robotMove)
			return 0
		}
	}
	if !*asJSON {
		fmt.Fprint(stdout, g.Board(names))
		return 0
	}
	a := engine.Analyze(lyngk.Position(g), names)
	a.Robot = robotMove
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(a); err != nil {
		fmt.Fprintf(stderr, "lyngk analyze: %v\n", err)
		return 1
	}
	if _, err := stdout.Write(out.Bytes()); err != nil {
		return 1
	}
	return 0
}

// gameNames lists the words of the games, "lyngk, yinsh".
func gameNames(all []games.Game) string {
	var names []string
	for _, g := range all {
		names = append(names, g.Name())
	}
	return strings.Join(names, ", ")
}

// reason returns the part of a move error meant for the player: the rulebook
// reason of an illegal move, else the message without the package prefix.
func reason(err error) string {
	var me *lyngk.MoveError
	if errors.As(err, &me) {
		return me.Reason
	}
	return strings.TrimPrefix(err.Error(), "lyngk: ")
}
