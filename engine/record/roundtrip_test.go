package record_test

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/golden"
	"lyngk.example/lyngk/engine/record"
	"lyngk.example/lyngk/engine/yinsh"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// ending is how a random game ends.
type ending int

const (
	byRules ending = iota
	resigned
	forfeit
	agreedDraw
	timedOut // cancelled: a player never moved in time (no entry)
	running
)

// randomGame plays random legal moves of g in variant from board's start:
// to the end by the rules, or stopped at a random move and ended there
// as e says, as the engine records it.
func randomGame(t testing.TB, g games.Game, variant string, board int, e ending, rng *rand.Rand) record.Record {
	t.Helper()
	pos, err := g.New(board, variant)
	if err != nil {
		t.Fatal(err)
	}
	stop := -1
	if e != byRules {
		stop = rng.IntN(60)
	}
	for k := 0; pos.Turn() != 0 && k != stop; k++ {
		legal := pos.Legal()
		m, _, err := pos.Parse(legal[rng.IntN(len(legal))])
		if err != nil {
			t.Fatal(err)
		}
		if err := pos.Play(m); err != nil {
			t.Fatal(err)
		}
	}
	r := record.Record{Game: g.Name(), Board: board, Players: [2]string{"alice", "bob"}, Variant: variant,
		Date: time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC), Moves: pos.Moves(), Result: record.Unknown}
	loser := pos.Turn()
	switch {
	case pos.Turn() == 0 || e == byRules:
		r.Result = record.ResultOf(pos.Winner(), pos.Outcome() == games.Tie)
	case e == resigned:
		r.Moves, r.Termination, r.Result = append(r.Moves, record.Resign), "resign", record.ResultOf(3-loser, false)
	case e == forfeit:
		r.Moves, r.Termination, r.Result = append(r.Moves, record.Forfeit), "forfeit", record.ResultOf(3-loser, false)
	case e == agreedDraw:
		r.Termination, r.Result = "draw", record.Tie
	case e == timedOut:
		r.Moves, r.Termination = r.Moves[:min(len(r.Moves), 1)], "timeout"
	}
	return r
}

// variants are each game's variants, the default first.
func variants(g games.Game) []string {
	return map[string][]string{"lyngk": {"standard", "stack6"}, "yinsh": {"normal", "blitz"}}[g.Name()]
}

// TestRoundTrip exports random games of both games, every variant (LYNGK's
// stack6, YINSH's blitz), ended every way (by the rules, resigned,
// forfeit on time, an agreed draw, cancelled by the timer, still running), in both formats, and
// reads each back: the same game, and its replay ends where the game did.
func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 1))
	for _, g := range both {
		for _, variant := range variants(g) {
			for e := range running + 1 {
				for i := range 3 {
					board := 100 + rng.IntN(900)
					r := randomGame(t, g, variant, board, e, rng)
					name := fmt.Sprintf("%s/%s/ending%d/%d", g.Name(), variant, e, i)
					t.Run(name, func(t *testing.T) { checkRoundTrip(t, g, r) })
				}
			}
		}
	}
}

func checkRoundTrip(t *testing.T, g games.Game, r record.Record) {
	text := record.WriteText(r, g.Title())
	back, err := record.ReadText(text, both)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if !same(back, r) {
		t.Errorf("text: read back %+v\nwant %+v\n%s", back, r, text)
	}
	sgf, err := record.WriteSGF(r, g.Rules.(games.Boardspace))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := record.ReadSGF(sgf, both)
	if err != nil {
		t.Fatalf("%v\n%s", err, sgf)
	}
	_, moves, err := record.Replay(g.Rules, rs[0])
	if err != nil {
		t.Fatalf("%v\n%s", err, sgf)
	}
	rs[0].Moves, rs[0].Steps = moves, nil
	if !same(rs[0], r) {
		t.Errorf("SGF: read back %+v\nwant %+v\n%s", rs[0], r, sgf)
	}
	// The text record replays to the same moves too.
	if _, moves, err := record.Replay(g.Rules, back); err != nil || !slices.Equal(moves, r.Moves) {
		t.Errorf("text replay: %v, moves %v", err, moves)
	}
}

func same(a, b record.Record) bool {
	return a.Game == b.Game && a.Board == b.Board && a.Players == b.Players && a.Date.Equal(b.Date) &&
		a.Variant == b.Variant && a.Result == b.Result && a.Termination == b.Termination && slices.Equal(a.Moves, b.Moves)
}

// TestGoldens: a LYNGK and a YINSH game in both formats, exactly.
func TestGoldens(t *testing.T) {
	for _, g := range both {
		rng := rand.New(rand.NewPCG(7, 7))
		r := randomGame(t, g, variants(g)[0], 101, byRules, rng)
		golden.Check(t, filepath.Join("testdata", g.Name()+".txt"), string(record.WriteText(r, g.Title())), *update)
		sgf, err := record.WriteSGF(r, g.Rules.(games.Boardspace))
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", g.Name()+".sgf"), string(sgf), *update)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	r := randomGame(t, both[1], "normal", 102, resigned, rng)
	sgf, _ := record.WriteSGF(r, yinsh.Rules)
	if !bytes.Contains(sgf, []byte(" Resign ]")) || !bytes.Contains(sgf, []byte("EN[resign]")) {
		t.Errorf("a resigned game's SGF without its Resign node or EN:\n%s", sgf)
	}
}
