package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/engine/record"
	"lyngk.example/lyngk/engine/review"
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
	analyzeUsage       = "usage: lyngk analyze (-seed N | -position FILE) [-stack6] [-turn 1|2] [-players A,B] [-json] [MOVE…]"
	analyzeGameUsage   = "usage: lyngk analyze -game GAME [OPTION] [-players A,B] [-json] [-robot [-think D | -playouts N]] [MOVE…]"
	analyzeRecordUsage = "usage: lyngk analyze -game GAME -record FILE [-at N] [-seed N] [-review] [-players A,B] [-json] [-robot [-think D | -playouts N]] [MOVE…]"
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
//
// With -record FILE, the game in FILE (the server's text record or
// boardspace's SGF, of GAME; package record) is the start: its players,
// variant and board, replayed to its end or to move N (-at N, the
// numbering of the server's record, passes counted), and the MOVE
// arguments go on from there. A step of it that is not legal exits 1 with
// "FILE: record: move K (MOVE[, from the steps STEPS]) by PLAYER: REASON".
// The record's result is printed beside the rules' verdict of the
// position: a last line "record: RESULT[ (how)]; rules: STATUS" after the
// board, or with -json the fields record_result, record_termination
// (when it says one) and record_moves after the others. A LYNGK record
// that does not say its board (boardspace's own) takes -seed N. -record
// and -at are read apart from the other flags, so that the usage and
// the flags' list of SPEC §5 stay as they are; without -record, every
// output is as before. -review adds the robot's review of the record
// (package review): player 1's chance after each move and each player's
// three worst moves with the robot's move instead, after the verdicts, or
// with -json the field review.
func runAnalyze(args []string, stdout, stderr io.Writer) int {
	all := offered()
	word := lyngk.Rules.Name()
	gameSet := false
	if name, rest, ok := flagArg(args, "game"); ok {
		word, args, gameSet = strings.ToLower(name), rest, true
	}
	recordFile, args, recordSet := flagArg(args, "record")
	atArg, args, atSet := flagArg(args, "at")
	args, reviewSet := boolArg(args, "review")
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
	if recordSet || atSet || reviewSet {
		usage = analyzeRecordUsage
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
	defaultVariant := variant
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
	at := -1
	if atSet {
		n, err := strconv.Atoi(atArg)
		if err != nil || n < 0 || !recordSet {
			return usageErr("-at wants a move number, 0 or more, and goes with -record")
		}
		at = n
	}
	if reviewSet && (!recordSet || gm.Reviewer() == nil) {
		return usageErr("-review goes with -record, for a game with a robot")
	}
	if recordSet {
		switch {
		case recordFile == "":
			return usageErr("-record wants a file")
		case set["position"] || set["turn"]:
			return usageErr("-record sets up the position: no -position, no -turn")
		case slices.ContainsFunc(variants, func(b *bool) bool { return *b }) || variant != defaultVariant:
			return usageErr("the record says its variant")
		}
	}
	switch {
	case setup != nil && !recordSet && set["seed"] == set["position"]:
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

	var pos games.Position
	var rec *record.Record
	var recMoves []string
	if recordSet {
		r, ms, p, err := replayRecord(gm, all, setup != nil, recordFile, seed, at, gameSet)
		if err != nil {
			fmt.Fprintf(stderr, "lyngk analyze: %v\n", err)
			return 1
		}
		rec, recMoves, pos = &r, ms, p
		if !set["players"] && r.Players[0] != "" && r.Players[1] != "" {
			names = r.Players
		}
	} else {
		p, fileNames, err := start(gm, setup, variant, seed, position)
		if err != nil {
			fmt.Fprintf(stderr, "lyngk analyze: %v\n", err)
			return 1
		}
		pos = p
		if setup != nil {
			if set["position"] && !set["players"] {
				names = fileNames
			}
			if err := setup.SetTurn(pos, *turn); err != nil {
				fmt.Fprintf(stderr, "lyngk analyze: %v\n", err)
				return 1
			}
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
	var rev *reviewed
	if reviewSet {
		r, err := reviewRecord(gm, *rec, recMoves)
		if err != nil {
			fmt.Fprintf(stderr, "lyngk analyze: %v\n", err)
			return 1
		}
		rev = r
	}
	if !*asJSON {
		fmt.Fprint(stdout, pos.Board(names))
		if rec != nil {
			fmt.Fprintln(stdout, verdicts(*rec, pos, names))
		}
		if rev != nil {
			fmt.Fprint(stdout, rev.text(names))
		}
		return 0
	}
	a := engine.Analyze(pos, names)
	var fields []games.Field
	if setup == nil {
		if rec != nil {
			variant = rec.Variant
		}
		fields = []games.Field{{Name: "game", Value: gm.Name()}, {Name: "variant", Value: variant}}
	}
	fields = append(fields, games.Field{Name: "board", Value: a.Board}, games.Field{Name: "moves", Value: a.Moves},
		games.Field{Name: "turn", Value: a.Turn}, games.Field{Name: "status", Value: a.Status}, games.Field{Name: "winner", Value: a.Winner})
	fields = append(append(fields, a.Fields...), games.Field{Name: "legal", Value: a.Legal})
	if robotMove != "" {
		fields = append(fields, games.Field{Name: "robot", Value: robotMove})
	}
	if rec != nil {
		fields = append(fields, games.Field{Name: "record_result", Value: rec.Result})
		if rec.Termination != "" {
			fields = append(fields, games.Field{Name: "record_termination", Value: rec.Termination})
		}
		fields = append(fields, games.Field{Name: "record_moves", Value: len(recMoves)})
	}
	if rev != nil {
		fields = append(fields, games.Field{Name: "review", Value: rev.json()})
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

// replayRecord reads the record in file, a game of gm (one of all),
// replays it, and returns it with the number of entries of its record as
// the server keeps it (passes counted) and the position after at of them
// (at < 0: all). A game whose start depends on its board (withBoard: one
// with the set-up add-on) takes seed's when the record does not say its
// own. gameSet says -game was given, for the error of a record of another
// game.
func replayRecord(gm games.Game, all []games.Game, withBoard bool, file string, seed *int, at int, gameSet bool) (record.Record, []string, games.Position, error) {
	var r record.Record
	f, err := os.Open(file)
	if err != nil {
		return r, nil, nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, record.MaxBytes+1))
	if err != nil {
		return r, nil, nil, err
	}
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '(' {
		rs, err := record.ReadSGF(data, all)
		if err != nil {
			return r, nil, nil, fmt.Errorf("%s: %w", file, err)
		}
		if len(rs) != 1 {
			return r, nil, nil, fmt.Errorf("%s holds %d games; analyze reads one", file, len(rs))
		}
		r = rs[0]
	} else if r, err = record.ReadText(data, all); err != nil {
		return r, nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	if r.Game != gm.Name() {
		if !gameSet {
			return r, nil, nil, fmt.Errorf("%s is a game of %s: give -game %s", file, r.Game, r.Game)
		}
		return r, nil, nil, fmt.Errorf("%s is a game of %s, not of %s", file, r.Game, gm.Name())
	}
	if withBoard && seed != nil && *seed > 0 && r.Board != 0 && r.Board != *seed {
		return r, nil, nil, fmt.Errorf("%s says its board, %d: no -seed %d", file, r.Board, *seed)
	}
	if withBoard && r.Board == 0 {
		if seed == nil || *seed < 1 {
			return r, nil, nil, fmt.Errorf("%s does not say its board, whose start it is: give -seed N", file)
		}
		r.Board = *seed
	}
	_, moves, err := record.Replay(gm.Rules, r)
	if err != nil {
		return r, nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	if at > len(moves) {
		return r, nil, nil, fmt.Errorf("%s has %d moves, not %d", file, len(moves), at)
	}
	pos, err := record.At(gm.Rules, r, moves, at)
	if err != nil {
		return r, nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	return r, moves, pos, nil
}

// reviewed is the robot's review of a record (package review).
type reviewed struct {
	points []review.Point
	worst  [2][]review.Drop
}

// reviewRecord reviews the record r, moves as the game keeps them, at
// review.Playouts a position.
func reviewRecord(gm games.Game, r record.Record, moves []string) (*reviewed, error) {
	if n := len(moves); n > 0 && (moves[n-1] == record.Resign || moves[n-1] == record.Forfeit) {
		moves = moves[:n-1]
	}
	start, err := gm.New(r.Board, r.Variant)
	if err != nil {
		return nil, err
	}
	points, err := review.Review(context.Background(), gm.Reviewer(), start, moves, review.Playouts)
	if err != nil {
		return nil, err
	}
	rv := &reviewed{points: points}
	for p := range 2 {
		rv.worst[p] = review.Worst(points, moves, p+1, 3)
	}
	return rv, nil
}

// text is the review as analyze prints it after the board: player 1's
// chance after each move, then each player's three worst moves.
func (rv *reviewed) text(names [2]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "review: %s's chance after each move (the robot, %d playouts a position)\n", names[0], review.Playouts)
	for _, p := range rv.points {
		fmt.Fprintf(&b, "%4d %.2f\n", p.K, p.Chance)
	}
	for i, ds := range rv.worst {
		fmt.Fprintf(&b, "the worst moves of %s:", names[i])
		if len(ds) == 0 {
			b.WriteString(" none")
		}
		b.WriteString("\n")
		for _, d := range ds {
			fmt.Fprintf(&b, "  move %d %s: %.2f to %.2f (the robot: %s)\n", d.K, d.Move, d.Before, d.After, d.Best)
		}
	}
	return b.String()
}

// json is the review as the object's "review": the budget, player 1's
// chance after each move (index K: after move K) and each player's worst
// moves, the chances to three decimals.
func (rv *reviewed) json() any {
	type drop struct {
		Move   int     `json:"move"`
		Played string  `json:"played"`
		Before float64 `json:"before"`
		After  float64 `json:"after"`
		Robot  string  `json:"robot"`
	}
	round := func(x float64) float64 { return math.Round(x*1000) / 1000 }
	chances := []float64{}
	for _, p := range rv.points {
		chances = append(chances, round(p.Chance))
	}
	var worst [2][]drop
	for i, ds := range rv.worst {
		worst[i] = []drop{}
		for _, d := range ds {
			worst[i] = append(worst[i], drop{d.K, d.Move, round(d.Before), round(d.After), d.Best})
		}
	}
	return struct {
		Playouts int       `json:"playouts"`
		Chances  []float64 `json:"chances"`
		Worst    [2][]drop `json:"worst"`
	}{review.Playouts, chances, worst}
}

// verdicts is the line that sets the record's result beside the rules'
// verdict of pos: "record: 0-1 (resign); rules: playing".
func verdicts(r record.Record, pos games.Position, names [2]string) string {
	line := "record: " + r.Result
	if r.Termination != "" {
		line += " (" + r.Termination + ")"
	}
	rules := pos.Outcome().String()
	if w := pos.Winner(); pos.Outcome() == games.Won && (w == 1 || w == 2) {
		rules += " by " + names[w-1]
	}
	return line + "; rules: " + rules
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

// boolArg finds the flag -NAME (or --NAME) among args and returns args
// without it.
func boolArg(args []string, flag string) (rest []string, found bool) {
	for _, a := range args {
		if a == "-"+flag || a == "--"+flag {
			found = true
			continue
		}
		rest = append(rest, a)
	}
	return rest, found
}

// flagArg finds the flag -NAME among args (-game, -record, -at: "-game
// NAME", "-game=NAME", with one or two dashes, before or after the moves)
// and returns its value and args without it; found is false when there is
// none, and a flag without a value is left in args for the flag parser to
// refuse.
func flagArg(args []string, flag string) (value string, rest []string, found bool) {
	for i, a := range args {
		flagName, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if !strings.HasPrefix(a, "-") || flagName != flag {
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
