package engine_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/golden"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/engine/record"
	"lyngk.example/lyngk/engine/yinsh"
	"lyngk.example/lyngk/store"
)

// TestRecordByMail: `yinsh record 101` answers anybody
// with the text record in the body and the SGF attached; both read back
// and replay to the whole game played by mail, won by alice. A board of
// another game and an unknown board are refused as show refuses them.
func TestRecordByMail(t *testing.T) {
	v := newEnv(t, withYinsh)
	v.signup("alice", "bob")
	v.cmd(addr("alice"), "yinsh challenge alice bob")
	names := [2]string{"alice", "bob"}
	pos := yinsh.New(yinsh.Normal)
	for _, s := range yinshGame {
		user := names[pos.Turn()-1]
		v.cmd(addr(user), "yinsh move 101 "+user+" pw-"+user+" "+s)
		tn, _, _ := yinsh.ParseTurn(s)
		if err := pos.Apply(tn); err != nil {
			t.Fatal(err)
		}
	}
	gs := []games.Game{{Rules: lyngk.Rules}, {Rules: yinsh.Rules}}
	for _, from := range []string{addr("bob"), addr("alice")} {
		out := v.cmd(from, "yinsh record 101")
		if len(out) != 1 || out[0].Subject != "Yinsh Board 101 record" || len(out[0].Attachments) != 1 {
			t.Fatalf("record mail:\n%s", format(out))
		}
		m := out[0]
		if from == addr("bob") {
			golden.Check(t, filepath.Join("testdata", "record.golden"), m.Body, *update)
		}
		a := m.Attachments[0]
		if a.Filename != "yinsh-101.sgf" || a.ContentType != "application/x-go-sgf; charset=utf-8" {
			t.Errorf("attachment %s %s", a.Filename, a.ContentType)
		}
		_, text, _ := strings.Cut(m.Body, "\n\n[Game ")
		tr, err := record.ReadText([]byte("[Game "+text), gs)
		if err != nil {
			t.Fatal(err)
		}
		srs, err := record.ReadSGF(a.Data, gs)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []record.Record{tr, srs[0]} {
			_, moves, err := record.Replay(yinsh.Rules, r)
			if err != nil || !slices.Equal(moves, games.Strings(pos.Moves())) || r.Result != record.WhiteWon || r.Players != names {
				t.Errorf("read back %v %s: %v, %d moves", r.Players, r.Result, err, len(moves))
			}
		}
	}
	v.cmd(addr("alice"), "lyngk challenge alice bob") // LYNGK board 102
	for arg, want := range map[string]string{"102": "Lyngk", "999": "There is no Yinsh Board 999."} {
		out := v.cmd(addr("bob"), "yinsh record "+arg)
		if len(out) != 1 || len(out[0].Attachments) != 0 || !strings.Contains(out[0].Body, want) {
			t.Errorf("yinsh record %s:\n%s", arg, format(out))
		}
	}
}

// TestRecordsOfAStore exports every game of a store of both games, played
// by mail and ended every way (LYNGK and YINSH to their ends by the rules,
// YINSH's blitz, LYNGK's stack6 resigned, an agreed draw, a forfeit on
// time, a game cancelled by the timer, one still running; the random
// YINSH game happens to end in a tie by the rules), in both
// formats, and reads each back: the same moves (passes and the terminal
// entry included), players, variant, board, result and ending.
func TestRecordsOfAStore(t *testing.T) {
	v := newEnv(t, withYinsh)
	v.signup("alice", "bob")
	gs := v.e.Games()
	rng := rand.New(rand.NewPCG(34, 2))
	names := [2]string{"alice", "bob"}
	type plan struct {
		game, option string
		moves        int // -1: to the end
		then         string
	}
	plans := []plan{
		{"lyngk", "", -1, ""}, {"yinsh", "", -1, ""}, {"yinsh", "-blitz", -1, ""},
		{"lyngk", "-stack6", 9, "resign"}, {"yinsh", "", 14, "draw"},
		{"lyngk", "", 6, "forfeit"}, {"yinsh", "", 1, "timeout"},
	}
	for i, p := range plans {
		board := 101 + i
		if out := v.cmd(addr("bob"), strings.Join(strings.Fields(p.game+" challenge "+p.option+" alice bob"), " ")); len(out) == 0 || !strings.HasPrefix(out[0].Subject, "New ") {
			t.Fatalf("challenge %d: %s", board, format(out))
		}
		g, _ := record.Find(gs, p.game)
		variant, _ := g.Variant(p.option)
		pos, err := g.New(board, variant)
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; pos.Turn() != 0 && k != p.moves; k++ {
			legal := pos.Legal()
			m, _, err := pos.Parse(legal[rng.IntN(len(legal))])
			if err != nil {
				t.Fatal(err)
			}
			user := names[pos.Turn()-1]
			if out := v.cmd(addr(user), fmt.Sprintf("%s move %d %s pw-%s %s", p.game, board, user, user, m)); len(out) == 0 || strings.Contains(out[0].Subject, "error") {
				t.Fatalf("board %d, %s: %s", board, m, format(out))
			}
			if err := pos.Play(m); err != nil {
				t.Fatal(err)
			}
		}
		if pos.Turn() == 0 {
			continue
		}
		user, other := names[pos.Turn()-1], names[2-pos.Turn()]
		switch p.then {
		case "resign":
			v.cmd(addr(user), fmt.Sprintf("%s resign %d %s pw-%s", p.game, board, user, user))
		case "draw":
			v.cmd(addr(user), fmt.Sprintf("%s move %d %s pw-%s propose", p.game, board, user, user))
			v.cmd(addr(other), fmt.Sprintf("%s move %d %s pw-%s accept", p.game, board, other, other))
		}
	}
	v.now = v.now.Add(engine.DefaultForfeitAfter + time.Hour)
	v.tick()
	// One still running.
	v.cmd(addr("bob"), "yinsh challenge alice bob")
	v.cmd(addr("alice"), fmt.Sprintf("yinsh move %d alice pw-alice e5", 101+len(plans)))

	var ends []string
	for i := range len(plans) + 1 {
		var d *engine.GameDetail
		if err := v.db.View(func(tx *store.Tx) error {
			var err error
			d, err = v.e.ReadGame(tx, 101+i)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		ends = append(ends, fmt.Sprintf("%s %s %s/%s", d.Game, d.Variant, d.Status, d.How))
		g, _ := record.Find(gs, d.Game)
		sgf, err := d.SGF()
		if err != nil {
			t.Fatal(err)
		}
		fromSGF, err := record.ReadSGF(sgf, gs)
		if err != nil {
			t.Fatal(err)
		}
		fromText, err := record.ReadText(d.TextRecord(), gs)
		if err != nil {
			t.Fatal(err)
		}
		want := d.Record()
		for format, r := range map[string]record.Record{"text": fromText, "SGF": fromSGF[0]} {
			_, moves, err := record.Replay(g.Rules, r)
			if err != nil || !slices.Equal(moves, d.MoveList) || r.Players != want.Players || r.Variant != want.Variant ||
				r.Board != want.Board || r.Result != want.Result || r.Termination != want.Termination {
				t.Errorf("board %d (%s) from %s: %v\n%v %s %d %s %q %v\nwant\n%v %s %d %s %q %v", d.Board, ends[i], format, err,
					r.Players, r.Variant, r.Board, r.Result, r.Termination, moves,
					want.Players, want.Variant, want.Board, want.Result, want.Termination, d.MoveList)
			}
		}
	}
	wantEnds := []string{"lyngk standard won/", "yinsh normal tie/", "yinsh blitz won/", "lyngk stack6 resigned/resign",
		"yinsh normal tie/draw", "lyngk standard forfeit/forfeit", "yinsh normal cancelled/timeout", "yinsh normal playing/"}
	if !slices.Equal(ends, wantEnds) {
		t.Errorf("the games ended\n%v\nwant\n%v", ends, wantEnds)
	}
}

// TestCollectionBounded: a player's SGF collection holds his newest
// MaxCollection finished games, the last ended first, whatever his
// history; an unknown player is ErrNoUser.
func TestCollectionBounded(t *testing.T) {
	v := newEnv(t, withYinsh)
	v.signup("alice", "bob")
	n := engine.MaxCollection + 3
	for i := range n {
		board := 101 + i
		v.now = v.now.Add(6 * time.Hour) // alice's unasked mails stay under their day's bound
		if out := v.cmd(addr("bob"), "yinsh challenge alice bob"); len(out) == 0 || !strings.HasPrefix(out[0].Subject, "New ") {
			t.Fatalf("challenge %d: %s", board, format(out))
		}
		if out := v.cmd(addr("bob"), fmt.Sprintf("yinsh resign %d bob pw-bob", board)); len(out) == 0 {
			t.Fatalf("resign %d: no mail", board)
		}
	}
	var data []byte
	if err := v.db.View(func(tx *store.Tx) error {
		var err error
		data, err = v.e.Collection(tx, "Alice")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	rs, err := record.ReadSGF(data, v.e.Games())
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != engine.MaxCollection || rs[0].Board != 100+n || rs[len(rs)-1].Board != 104 {
		t.Errorf("%d games, boards %d ... %d", len(rs), rs[0].Board, rs[len(rs)-1].Board)
	}
	if err := v.db.View(func(tx *store.Tx) error {
		_, err := v.e.Collection(tx, "nobody")
		return err
	}); !errors.Is(err, engine.ErrNoUser) {
		t.Errorf("an unknown player: %v", err)
	}
}
