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
)

// robotThink is the robot's default think time; robotSeed makes a
// -playouts answer reproducible.
const (
	robotThink = 2 * time.Second
	robotSeed  = 1
)

// The usage lines: SPEC §5's, of a game with the set-up add-on
// (games.Setup: LYNGK), and that of any other game.
const (
	analyzeUsage     = "usage: lyngk analyze (-seed N | -position FILE) [-stack6] [-turn 1|2] [-players A,B] [-json] [MOVE…]"
	analyzeGameUsage = "usage: lyngk analyze -game GAME [OPTION] [-players A,B] [-json] [-robot [-think D | -playouts N]] [MOVE…]"
)

// runAnalyze is `lyngk analyze` (SPEC §5), one path for every game, through
// the game contract: it sets up a position of -game GAME (LYNGK by
// default, as SPEC §5 has it), applies the MOVE arguments in order and
// prints the text board, or with -json one object: board, moves, turn,
// status, winner, the game's own fields, legal (sorted bytewise; [] when
// over), and robot with -robot. Flags may also follow the moves. A "--"
// argument is skipped: passes are automatic, also right after the set-up.
//
// A game with the set-up add-on (games.Setup) starts from board N (-seed,
// New(N, variant)) or the text board in FILE (-position), gives the turn
// to -turn (default 1), takes its variants as flags (-stack6) and keeps
// SPEC §5's usage and object. Any other game starts from its start, takes
// its challenge options (YINSH: -blitz, -b) and names game and variant
// first in the object.
//
// An illegal move exits 1 with "move K (MOVE): REASON" on stderr, where MOVE
// is the argument as given and K is the number the move would have had in
// the game, counting the recorded passes, so K matches the "moves" list and
// a "#n" suffix; a "#n" that differs from K is refused likewise. Bad usage
// exits 2; an unreadable or malformed position file exits 1.
func runAnalyze(args []string, stdout, stderr io.Writer) int {
	all := offered()
	word := lyngk.Rules.Name()
	if name, rest, ok := gameArg(args); ok {
		word, args = strings.ToLower(name), rest
	}
	i := slices.IndexFunc(all, func(g games.Game) bool { return g.Name() == word })
	if i < 0 {
		fmt.Fprintf(stderr, "lyngk analyze: no game %q (the games: %s)\n%s\n", word, gameNames(all), analyzeGameUsage)
		return 2
	}
	gm := all[i]
	setup, _ := gm.Rules.(games.Setup)
	usage := analyzeGameUsage
	if setup != nil {
		usage = analyzeUsage
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "lyngk analyze: %s\n%s\n", fmt.Sprintf(format, a...), usage)
		return 2
	}

	fs := flag.NewFlagSet("analyze", flag.ContinueOnError)
	fs.SetOutput(stderr)
	// SPEC §5's usage lists the flags after a refusal of the flag
	// package; the others' is one line, after the refusal in own words.
	fs.Usage = func() {
		if setup != nil {
			fmt.Fprintln(stderr, usage)
			fs.PrintDefaults()
		}
	}
	players := fs.String("players", "", "the player names `A,B` (default player1,player2, or those of the position file)")
	asJSON := fs.Bool("json", false, "print a JSON object instead of the board")
	robot := fs.Bool("robot", false, "print the robot's move for the player to move instead of the board (with -json: add it as \"robot\")")
	think := fs.Duration("think", robotThink, "the robot's think time")
	playouts := fs.Int("playouts", 0, "let the robot think `N` playouts instead of a time, which makes its move reproducible")
	variant, _ := gm.Variant("")
	var seed, turn *int
	var position *string
	var variants []*bool
	if setup != nil {
		seed = fs.Int("seed", 0, "start from gamerz board number `N`")
		position = fs.String("position", "", "start from the board block in `FILE`")
		turn = fs.Int("turn", 1, "the player to move first, 1 or 2")
		for _, v := range setup.VariantNames()[1:] {
			variants = append(variants, fs.Bool(v, false, "play the "+v+" variant"))
		}
	} else {
		// The game's challenge options, in any of the forms it reads;
		// the flag package would refuse the short ones.
		fs.SetOutput(io.Discard)
		args = slices.DeleteFunc(slices.Clone(args), func(a string) bool {
			v, ok := gm.Variant(a)
			if ok && a != "" {
				variant = v
			}
			return ok && a != ""
		})
	}

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
		err := fs.Parse(args)
		switch {
		case errors.Is(err, flag.ErrHelp):
			if setup == nil {
				fmt.Fprintln(stderr, usage)
			}
			return 0
		case err != nil && setup == nil:
			if _, name, ok := strings.Cut(err.Error(), "flag provided but not defined: "); ok {
				return usageErr("%s has no option %s", gm.Name(), name)
			}
			return usageErr("%v", err)
		case err != nil:
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
	switch {
	case setup != nil && set["seed"] == set["position"]:
		return usageErr("give exactly one of -seed and -position")
	case setup != nil && set["seed"] && *seed < 1:
		return usageErr("-seed wants a board number, 1 or more")
	case setup != nil && *turn != 1 && *turn != 2:
		return usageErr("-turn wants 1 or 2")
	case (set["think"] || set["playouts"]) && !*robot:
		return usageErr("-think and -playouts go with -robot")
	case *think <= 0 || *playouts < 0:
		return usageErr("-think wants a positive duration such as 2s, -playouts a positive number")
	case *robot && gm.Robot == nil:
		return usageErr("%s has no robot player", gm.Name())
	}
	names := [2]string{"player1", "player2"}
	if set["players"] {
		a, b, ok := strings.Cut(*players, ",")
		if !ok || a == "" || b == "" || strings.Contains(b, ",") {
			return usageErr("-players wants two names, as in -players alice,bob")
		}
		names = [2]string{a, b}
	}
	for i, on := range variants {
		if *on {
			variant = setup.VariantNames()[i+1]
		}
	}

	pos, fileNames, err := start(gm, setup, variant, seed, position)
	if err != nil {
		fmt.Fprintf(stderr, "lyngk analyze: %v\n", err)
		return 1
	}
	if setup != nil {
		if set["position"] && !set["players"] {
			names = fileNames
		}
		if err := setup.SetTurn(pos, *turn); err != nil {
			fmt.Fprintf(stderr, "lyngk analyze: %v\n", err)
			return 1
		}
	}
	for _, arg := range moves {
		k := len(pos.Moves()) + 1
		m, num, err := pos.Parse(arg)
		switch {
		case err != nil:
		case m.String() == games.Pass:
			continue
		case num != 0 && num != k:
			err = fmt.Errorf("this is move %d, not move %d", k, num)
		case pos.Outcome() != games.Playing:
			err = errors.New("the game is over")
		default:
			err = pos.Play(m)
		}
		if err != nil {
			fmt.Fprintf(stderr, "move %d (%s): %s\n", k, arg, moveReason(err, setup != nil))
			return 1
		}
	}

	var robotMove string
	if *robot {
		th, err := gm.Robot.Think(context.Background(), pos.Clone(), games.Think{
			Playouts: *playouts, Time: *think, Workers: runtime.NumCPU(), Seed: robotSeed,
		})
		if err != nil {
			fmt.Fprintf(stderr, "lyngk analyze: %s\n", strings.TrimPrefix(err.Error(), "search: "))
			return 1
		}
		robotMove = th.Move.String()
		if !*asJSON {
			fmt.Fprintln(stdout, robotMove)
			return 0
		}
	}
	if !*asJSON {
		fmt.Fprint(stdout, pos.Board(names))
		return 0
	}
	a := engine.Analyze(pos, names)
	var fields []games.Field
	if setup == nil {
		fields = []games.Field{{Name: "game", Value: gm.Name()}, {Name: "variant", Value: variant}}
	}
	fields = append(fields, games.Field{Name: "board", Value: a.Board}, games.Field{Name: "moves", Value: a.Moves},
		games.Field{Name: "turn", Value: a.Turn}, games.Field{Name: "status", Value: a.Status}, games.Field{Name: "winner", Value: a.Winner})
	fields = append(append(fields, a.Fields...), games.Field{Name: "legal", Value: a.Legal})
	if robotMove != "" {
		fields = append(fields, games.Field{Name: "robot", Value: robotMove})
	}
	out, err := jsonObject(fields)
	if err == nil {
		_, err = stdout.Write(out)
	}
	if err != nil {
		fmt.Fprintf(stderr, "lyngk analyze: %v\n", err)
		return 1
	}
	return 0
}

// start is the position analyze sets up: with the set-up add-on board
// seed's or the one in file position (with the players it names), else
// the game's start.
func start(gm games.Game, setup games.Setup, variant string, seed *int, position *string) (games.Position, [2]string, error) {
	switch {
	case setup == nil:
		p, err := gm.New(1, variant)
		return p, [2]string{}, err
	case *position == "":
		p, err := gm.New(*seed, variant)
		return p, [2]string{}, err
	}
	data, err := os.ReadFile(*position)
	if err != nil {
		return nil, [2]string{}, err
	}
	p, names, err := setup.ReadBoard(string(data), variant)
	if err != nil {
		return nil, names, fmt.Errorf("%s: %w", *position, err)
	}
	return p, names, nil
}

// moveReason is the part of a move's error meant for the player: the
// rules' reason of a refused move; SPEC §5 writes a notation error of a
// game with the set-up add-on as the rules' own message (with the
// notation's summary), without its package prefix.
func moveReason(err error, spec bool) string {
	me, ok := errors.AsType[*games.MoveError](err)
	switch {
	case !ok:
		return err.Error()
	case spec && errors.Is(me.Err, games.ErrNotation) && me.Cause != nil:
		_, msg, _ := strings.Cut(me.Cause.Error(), ": ")
		return msg
	}
	return me.Reason
}

// jsonObject writes fields as one JSON object, in order, HTML unescaped,
// with a newline.
func jsonObject(fields []games.Field) ([]byte, error) {
	var out bytes.Buffer
	out.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			out.WriteByte(',')
		}
		for j, v := range []any{f.Name, f.Value} {
			enc := json.NewEncoder(&out)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(v); err != nil {
				return nil, err
			}
			out.Truncate(out.Len() - 1) // Encode's newline
			if j == 0 {
				out.WriteByte(':')
			}
		}
	}
	out.WriteString("}\n")
	return out.Bytes(), nil
}

// gameNames lists the words of the games, "lyngk, yinsh".
func gameNames(all []games.Game) string {
	var names []string
	for _, g := range all {
		names = append(names, g.Name())
	}
	return strings.Join(names, ", ")
}

// gameArg finds a -game flag among args ("-game NAME", "-game=NAME", with
// one or two dashes, before or after the moves) and returns its value and
// args without it; found is false when there is none, and a -game without
// a value is left in args for the flag parser to refuse.
func gameArg(args []string) (name string, rest []string, found bool) {
	for i, a := range args {
		flagName, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if !strings.HasPrefix(a, "-") || flagName != "game" {
			continue
		}
		rest = append(rest, args[:i]...)
		if hasValue {
			return value, append(rest, args[i+1:]...), true
		}
		if i+1 == len(args) {
			return "", args, false
		}
		return args[i+1], append(rest, args[i+2:]...), true
	}
	return "", args, false
}
