package engine_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/yinsh"
	"lyngk.example/lyngk/engine/yinshpicture"
	"lyngk.example/lyngk/engine/yinshsearch"
)

// withYinsh offers YINSH beside LYNGK, as cmd/lyngk does.
func withYinsh(c *engine.Config) {
	c.Games = append(c.Games, games.Game{Rules: yinsh.Rules, Picture: yinshpicture.Pictures, Robot: yinshsearch.Robot})
}

// yinshGame is a whole game (engine/yinsh's RandomTurn, seed 72): white
// (alice) wins 3-1 in 57 turns, with her row removed after her move (turn
// 31), a row of hers that black made removed at the start of her turn 49,
// and her third ring mid-turn at the end.
var yinshGame = strings.Fields("c5 e2 i9 j5 d5 g9 g5 i5 d3 f6 i9-i7 j5-j7 c5-a3 e2-d1 a3-c3 g9-d6 d5-f5 i5-h5 g5-f4 d6-b4 " +
	"c3-b3 j7-k7 i7-k9 b4-e7 d3-e4 f6-h8 k9-h9 h5-i6 f5-e5 i6-g4 e5-b2;xd5-h5;xe4 k7-k8 f4-f7 h8-j8 " +
	"h9-f9 k8-k10 f7-f8 e7-g7 b2-d2 d1-c1 f8-i8 g4-f3 b3-e3 c1-b1 e3-e1 f3-f5 d2-f2 f5-c2 " +
	"xa3-e3;xf9;i8-h7 g7-e5;xf3-f7;xe5 f2-j6 k10-j9 j6-h6 j9-j10 h6-e6 b1-b3 e6-e8;xc5-g9;xe1")

// TestYinshGameByMail plays a whole YINSH game through Handle beside
// LYNGK: the challenge, every turn (by command, by plain reply, in the
// short form, in several words, with #n), a refused turn that changes
// nothing, the board mails' text board equal to the rules', the end, and
// the record in long form.
func TestYinshGameByMail(t *testing.T) {
	v := newEnv(t, withYinsh)
	v.signup("alice", "bob")
	out := v.cmd(addr("alice"), "yinsh challenge alice bob")
	if len(out) != 2 || out[0].Subject != "New Yinsh Board 101 alice" || out[1].Subject != "New Yinsh Board 101 alice" ||
		!strings.Contains(out[0].Body, `To move, reply with your move, like e3 (send "help yinsh").`) {
		t.Fatalf("new game mails:\n%s", format(out))
	}
	last := map[string]engine.Mail{"alice": out[0], "bob": out[1]}
	pos := yinsh.New(yinsh.Normal)
	names := [2]string{"alice", "bob"}
	for i, s := range yinshGame {
		user := names[pos.Turn()-1]
		written := s
		switch i {
		case 48:
			written = "xf9; i8-h7" // the short form, in two words
		case 49:
			written = "g7-e5;xe5 #50"
		}
		if i == 20 {
			// A turn of the wrong ring is refused and changes nothing.
			bad := v.cmd(addr(user), "yinsh move 101 "+user+" pw-"+user+" e3-e4")
			if len(bad) != 1 || !strings.Contains(bad[0].Body, "no ring of yours on e3") {
				t.Fatalf("refused turn:\n%s", format(bad))
			}
		}
		if i%3 == 0 {
			out = v.reply(last[user], addr(user), written+"\n\nmy turn")
		} else {
			out = v.cmd(addr(user), "yinsh move 101 "+user+" pw-"+user+" "+written)
		}
		tn, _, err := yinsh.ParseTurn(s)
		if err == nil {
			err = pos.Apply(tn)
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(out) != 2 {
			t.Fatalf("turn %d %s by %s: mails\n%s", i+1, written, user, format(out))
		}
		if i == 0 && !strings.HasPrefix(out[0].Subject, "Yinsh Board 101 bob") {
			t.Errorf("subject after the first turn: %q", out[0].Subject)
		}
		if i == 30 && (!strings.Contains(out[0].HTML, "1 ring removed") || !strings.Contains(out[0].HTML, "yinsh move 101 USERID PASSWORD MOVE") || !strings.Contains(out[0].HTML, "0 rings removed") || strings.Contains(out[0].HTML, "stack")) {
			t.Errorf("the HTML part after alice's first row:\n%s", out[0].HTML)
		}
		for _, m := range out {
			if !strings.Contains(m.Body, pos.Board(names)) {
				t.Fatalf("turn %d: board mail without the board:\n%s\nwant\n%s", i+1, m.Body, pos.Board(names))
			}
			last[strings.TrimSuffix(m.To[0], "@players.example")] = m
		}
	}
	if pos.Status() != games.Won || pos.Winner() != 1 {
		t.Fatalf("the game did not end: %v", pos.Status())
	}
	if !strings.Contains(out[0].Body, "alice") || !strings.Contains(strings.ToLower(out[0].Body), "won") {
		t.Errorf("game-over mail:\n%s", out[0].Body)
	}
	out = v.cmd(addr("bob"), "yinsh show 101")
	if len(out) != 1 || !strings.Contains(out[0].Body, "xa3-e3;xf9;i8-h7") || !strings.Contains(out[0].Body, "g7-e5;xf3-f7;xe5") {
		t.Errorf("show:\n%s", format(out))
	}
	out = v.cmd(addr("bob"), "yinsh move 101 bob pw-bob a2")
	if len(out) != 1 || !strings.Contains(strings.ToLower(out[0].Body), "over") {
		t.Errorf("a turn after the end:\n%s", format(out))
	}
	out = v.cmd(addr("bob"), "yinsh standings")
	if len(out) != 1 || !strings.Contains(out[0].Body, "alice") || !strings.Contains(out[0].Body, "bob") {
		t.Errorf("standings:\n%s", format(out))
	}
	out = v.cmd(addr("bob"), "lyngk standings")
	if len(out) != 1 || strings.Contains(out[0].Body, "alice") {
		t.Errorf("LYNGK's standings count a YINSH game:\n%s", format(out))
	}
}

// TestYinshRobot: alice plays YINSH against the robot, which thinks
// through the game contract; the game waits for the robot exactly at its
// turns and ends.
func TestYinshRobot(t *testing.T) {
	v := newEnv(t, withYinsh, withRobot)
	v.signup("alice")
	out := v.cmd(addr("alice"), "yinsh challenge -blitz alice robot")
	if len(out) != 1 {
		t.Fatalf("new game mails:\n%s", format(out))
	}
	pos := yinsh.New(yinsh.Blitz)
	for turns := 0; pos.Status() == games.Playing; turns++ {
		if turns > 200 {
			t.Fatal("no end")
		}
		var tn yinsh.Turn
		if pos.Turn() == 1 {
			tn = pos.Legal(nil)[0]
			out = v.cmd(addr("alice"), "yinsh move 101 alice pw-alice "+tn.String())
		} else {
			ts := v.robotTurns()
			if len(ts) != 1 || ts[0].Board != 101 || ts[0].Position.Board([2]string{}) != pos.Board([2]string{}) {
				t.Fatalf("turn %d: robot turns %+v", turns, ts)
			}
			th, err := yinshsearch.Robot.Think(context.Background(), ts[0].Position, games.Think{Playouts: 50, Workers: 1, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			tn = th.Move.(yinsh.Turn)
			out = v.robotMove(ts[0], tn)
		}
		if err := pos.Apply(tn); err != nil {
			t.Fatal(err)
		}
		if len(out) != 1 || !slices.Equal(out[0].To, []string{addr("alice")}) || !strings.Contains(out[0].Body, pos.Board([2]string{"alice", "robot"})) {
			t.Fatalf("turn %d (%s): mails\n%s", turns, tn, format(out))
		}
	}
	if ts := v.robotTurns(); len(ts) != 0 {
		t.Fatalf("robot turns after the end: %+v", ts)
	}
}

// TestYinshHelp: "help yinsh" is YINSH's own help (its notation and rules
// in short, within the mails' width); the challenge's usage names its
// option -blitz; "list" has a line about it; "help lyngk" is LYNGK's page
// (templates/lyngk.tmpl).
func TestYinshHelp(t *testing.T) {
	v := newEnv(t, withYinsh)
	out := v.cmd(addr("zed"), "help yinsh")
	if len(out) != 1 {
		t.Fatalf("help yinsh: %s", format(out))
	}
	for _, want := range []string{"yinsh challenge [-blitz] USERID1 USERID2", "xc3-c7;xd8;f2-f6;xb5-f5;xa4", "f2-f6;xa4", "51", "blitz: one"} {
		if !strings.Contains(out[0].Body, want) {
			t.Errorf("help yinsh lacks %q:\n%s", want, out[0].Body)
		}
	}
	for _, l := range strings.Split(out[0].Body, "\n") {
		if len([]rune(l)) > 76 {
			t.Errorf("line over 76 columns: %q", l)
		}
	}
	v.signup("alice", "bob")
	out = v.cmd(addr("alice"), "yinsh challenge -stack6 alice bob")
	if len(out) != 1 || !strings.Contains(out[0].Body, "[-blitz]") {
		t.Errorf("challenge with LYNGK's option:\n%s", format(out))
	}
	out = v.cmd(addr("zed"), "list yinsh")
	if len(out) != 1 || !strings.Contains(out[0].Body, "Yinsh by Kris Burm (GIPF project): move rings, flip markers, make rows.") {
		t.Errorf("list yinsh:\n%s", format(out))
	}
	out = v.cmd(addr("alice"), "help lyngk")
	if len(out) != 1 || !strings.Contains(out[0].Body, "lyngk challenge [-stack6] USERID1 USERID2") {
		t.Errorf("help lyngk:\n%s", format(out))
	}
	// An unknown topic's refusal lists the games offered as topics (to a
	// player: a stranger's refusal names nothing he typed).
	out = v.cmd(addr("alice"), "help chess")
	if len(out) != 1 || !strings.Contains(strings.ReplaceAll(out[0].Body, "\n", " "), `There is no help topic "chess". Every command is in "help commands"; the topics of help are: commands, notation, rules, robot, lyngk, yinsh.`) {
		t.Errorf("help chess:\n%s", format(out))
	}
}

// TestYinshCommands: the common game commands with the word yinsh —
// preview, queue, games, resign, history, decline — and a LYNGK word on a
// YINSH board refused naming the board's game.
func TestYinshCommands(t *testing.T) {
	v := newEnv(t, withYinsh)
	v.signup("alice", "bob")
	v.cmd(addr("alice"), "yinsh challenge alice bob")
	out := v.cmd(addr("bob"), "yinsh queue 101 bob pw-bob a5#2")
	if len(out) != 1 || strings.Contains(out[0].Subject, "error") {
		t.Fatalf("queue:\n%s", format(out))
	}
	out = v.cmd(addr("alice"), "yinsh move 101 alice pw-alice e3")
	if len(out) < 2 {
		t.Fatalf("move with a queued answer:\n%s", format(out))
	}
	g := yinsh.New(yinsh.Normal)
	mustYinsh(t, &g, "e3", "a5")
	if last := out[len(out)-1]; !strings.Contains(last.Body, g.Board([2]string{"alice", "bob"})) {
		t.Errorf("bob's queued a5 was not played:\n%s", format(out))
	}
	out = v.cmd(addr("alice"), "yinsh preview 101 b5 c6")
	h := g
	mustYinsh(t, &h, "b5", "c6")
	if len(out) != 1 || !strings.Contains(out[0].Body, h.Board([2]string{"alice", "bob"})) {
		t.Errorf("preview:\n%s", format(out))
	}
	out = v.cmd(addr("alice"), "yinsh games alice")
	if len(out) != 1 || !strings.Contains(out[0].Body, "101") {
		t.Errorf("games:\n%s", format(out))
	}
	out = v.cmd(addr("alice"), "lyngk move 101 alice pw-alice b5")
	if len(out) != 1 || !strings.Contains(strings.ToLower(out[0].Body), "yinsh") {
		t.Errorf("a lyngk command on a YINSH board:\n%s", format(out))
	}
	out = v.cmd(addr("alice"), "yinsh resign 101 alice pw-alice")
	if len(out) != 2 || !strings.Contains(out[0].Body, "Game won by bob") {
		t.Errorf("resign:\n%s", format(out))
	}
	out = v.cmd(addr("alice"), "yinsh history alice")
	if len(out) != 1 || !strings.Contains(out[0].Body, "101") {
		t.Errorf("history:\n%s", format(out))
	}
	v.cmd(addr("alice"), "yinsh challenge -b bob alice")
	out = v.cmd(addr("alice"), "yinsh decline 102 alice pw-alice")
	if len(out) != 2 {
		t.Errorf("decline:\n%s", format(out))
	}
}

func mustYinsh(t *testing.T, g *yinsh.Game, turns ...string) {
	t.Helper()
	for _, s := range turns {
		tn, _, err := yinsh.ParseTurn(s)
		if err == nil {
			err = g.Apply(tn)
		}
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}
