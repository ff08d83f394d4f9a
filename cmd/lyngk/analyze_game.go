package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/games"
)

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

const analyzeGameUsage = "usage: lyngk analyze -game GAME [OPTION] [-players A,B] [-json] [-robot [-think D | -playouts N]] [MOVE…]"

// runAnalyzeGame is `lyngk analyze -game GAME` for a game other than the
// first (LYNGK keeps the flags of SPEC §5): it applies the MOVE arguments
// to the start of the game through the game contract and prints the text
// board, or with -json one object: game, variant, board, moves, turn,
// status, winner, the game's own fields, legal (sorted bytewise; [] when
// over), and robot with -robot. OPTION is a challenge option of the game
// (YINSH: -blitz). A "--" argument is skipped. An illegal move exits 1
// with "move K (MOVE): REASON" on stderr; bad usage exits 2.
func runAnalyzeGame(gm games.Game, args []string, stdout, stderr io.Writer) int {
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "lyngk analyze: %s\n%s\n", fmt.Sprintf(format, a...), analyzeGameUsage)
		return 2
	}
	variant, _ := gm.Variant("")
	names := [2]string{"player1", "player2"}
	var asJSON, robot bool
	think, playouts := robotThink, 0
	var thinkSet bool
	var moves []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || strings.HasPrefix(a, "--#") || !strings.HasPrefix(a, "-") {
			if !strings.HasPrefix(a, "--") {
				moves = append(moves, a)
			}
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		takeValue := func() (string, bool) {
			if hasValue {
				return value, true
			}
			if i+1 < len(args) {
				i++
				return args[i], true
			}
			return "", false
		}
		switch name {
		case "h", "help":
			fmt.Fprintln(stderr, analyzeGameUsage)
			return 0
		case "json":
			asJSON = true
		case "robot":
			robot = true
		case "players":
			v, ok := takeValue()
			first, second, cut := strings.Cut(v, ",")
			if !ok || !cut || first == "" || second == "" || strings.Contains(second, ",") {
				return usageErr("-players wants two names, as in -players alice,bob")
			}
			names = [2]string{first, second}
		case "think":
			v, ok := takeValue()
			d, err := time.ParseDuration(v)
			if !ok || err != nil || d <= 0 {
				return usageErr("-think wants a positive duration such as 2s, -playouts a positive number")
			}
			think, thinkSet = d, true
		case "playouts":
			v, ok := takeValue()
			n, err := strconv.Atoi(v)
			if !ok || err != nil || n <= 0 {
				return usageErr("-think wants a positive duration such as 2s, -playouts a positive number")
			}
			playouts, thinkSet = n, true
		default:
			v, ok := gm.Variant(a)
			if !ok || hasValue {
				return usageErr("%s has no option %s", gm.Name(), a)
			}
			variant = v
		}
	}
	if thinkSet && !robot {
		return usageErr("-think and -playouts go with -robot")
	}
	if robot && gm.Robot == nil {
		return usageErr("%s has no robot player", gm.Name())
	}
	pos, err := gm.New(1, variant)
	if err != nil {
		fmt.Fprintf(stderr, "lyngk analyze: %v\n", err)
		return 1
	}
	for _, arg := range moves {
		k := len(pos.Moves()) + 1
		m, num, err := pos.Parse(arg)
		switch {
		case err != nil:
		case pos.Outcome() != games.Playing:
			err = errors.New("the game is over")
		case num != 0 && num != k:
			err = fmt.Errorf("this is move %d, not move %d", k, num)
		default:
			err = pos.Play(m)
		}
		if err != nil {
			var me *games.MoveError
			reason := err.Error()
			if errors.As(err, &me) {
				reason = me.Reason
			}
			fmt.Fprintf(stderr, "move %d (%s): %s\n", k, arg, reason)
			return 1
		}
	}
	var robotMove string
	if robot {
		th, err := gm.Robot.Think(context.Background(), pos.Clone(), games.Think{
			Playouts: playouts, Time: think, Workers: runtime.NumCPU(), Seed: robotSeed,
		})
		if err != nil {
			fmt.Fprintf(stderr, "lyngk analyze: %s\n", strings.TrimPrefix(err.Error(), "search: "))
			return 1
		}
		robotMove = th.Move.String()
		if !asJSON {
			fmt.Fprintln(stdout, robotMove)
			return 0
		}
	}
	if !asJSON {
		fmt.Fprint(stdout, pos.Board(names))
		return 0
	}
	a := engine.Analyze(pos, names)
	fs := []games.Field{{Name: "game", Value: gm.Name()}, {Name: "variant", Value: variant},
		{Name: "board", Value: a.Board}, {Name: "moves", Value: a.Moves}, {Name: "turn", Value: a.Turn},
		{Name: "status", Value: a.Status}, {Name: "winner", Value: a.Winner}}
	fs = append(append(fs, a.Fields...), games.Field{Name: "legal", Value: a.Legal})
	if robotMove != "" {
		fs = append(fs, games.Field{Name: "robot", Value: robotMove})
	}
	var out bytes.Buffer
	out.WriteByte('{')
	for i, f := range fs {
		if i > 0 {
			out.WriteByte(',')
		}
		for j, v := range []any{f.Name, f.Value} {
			enc := json.NewEncoder(&out)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(v); err != nil {
				fmt.Fprintf(stderr, "lyngk analyze: %v\n", err)
				return 1
			}
			out.Truncate(out.Len() - 1) // Encode's newline
			if j == 0 {
				out.WriteByte(':')
			}
		}
	}
	out.WriteString("}\n")
	if _, err := stdout.Write(out.Bytes()); err != nil {
		return 1
	}
	return 0
}
