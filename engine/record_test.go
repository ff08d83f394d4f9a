package engine_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/golden"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/engine/record"
	"lyngk.example/lyngk/engine/yinsh"
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
