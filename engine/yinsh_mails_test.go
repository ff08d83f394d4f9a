package engine_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/golden"
	"lyngk.example/lyngk/templates"
)

// checkParts compares the mails with testdata/NAME.golden, each mail's HTML
// part after its text, so that a golden holds both parts a player reads;
// the text's lines stay within templates.Width.
func checkParts(t *testing.T, name string, ms []engine.Mail) {
	t.Helper()
	for _, m := range ms {
		for _, l := range engine.LongLines(m.Body) {
			t.Errorf("%s: line over %d columns: %q", name, templates.Width, l)
		}
	}
	golden.Check(t, filepath.Join("testdata", name+".golden"), formatParts(ms), *update)
}

// formatParts is format with each mail's HTML part after its text.
func formatParts(ms []engine.Mail) string {
	var b strings.Builder
	for i, m := range ms {
		if i > 0 {
			b.WriteString("=====\n")
		}
		b.WriteString(format([]engine.Mail{m}))
		if m.HTML != "" {
			b.WriteString("----- HTML part -----\n" + m.HTML)
		}
	}
	return b.String()
}

// TestYinshMails holds every kind of mail a YINSH player reads, text and
// HTML, in goldens under testdata/yinsh/: the new game, boards in the
// placement and in the movement phase and after a row was removed (to the
// player to move and to the one who waits), a refused turn by command and
// by reply, the reminder, preview and submit and a reply to the preview,
// the change of subject, and the end of the game. Each names YINSH's
// commands and examples that fit the phase, never LYNGK's.
func TestYinshMails(t *testing.T) {
	v := newEnv(t, withYinsh)
	v.signup("alice", "bob")
	check := checkYinsh(t)
	out := v.cmd(addr("alice"), "yinsh challenge alice bob")
	check("new-game", out)
	last := map[string]engine.Mail{"alice": out[0], "bob": out[1]}
	turn := func(i int) []engine.Mail {
		t.Helper()
		user := [2]string{"alice", "bob"}[i%2]
		out := v.cmd(addr(user), "yinsh move 101 "+user+" pw-"+user+" "+yinshGame[i])
		if len(out) != 2 {
			t.Fatalf("turn %d %s by %s:\n%s", i+1, yinshGame[i], user, format(out))
		}
		for _, m := range out {
			last[strings.TrimSuffix(m.To[0], "@players.example")] = m
		}
		return out
	}
	check("board-placement", turn(0))
	for i := 1; i < 10; i++ {
		turn(i)
	}
	check("board-movement", turn(10))

	// A refused turn, by command and by reply.
	check("error-command", v.cmd(addr("bob"), "yinsh move 101 bob pw-bob e3-e4"))
	check("error-reply", v.reply(last["bob"], addr("bob"), "e3-e4\n"))

	// The reminder, a week after the last move.
	v.now = v.now.Add(7*24*time.Hour + time.Minute)
	check("nag", v.tick())

	// A preview, a reply to it, a submission.
	preview := v.cmd(addr("bob"), "yinsh preview 101 j5-j7")
	check("preview", preview)
	check("reply-preview", v.reply(preview[0], addr("bob"), "j5-j7\n"))
	check("submit", v.cmd(addr("bob"), "yinsh submit 101 bob pw-bob j5-j7"))

	check("change-subject", v.cmd(addr("bob"), "change subject bob pw-bob game"))

	for i := 11; i < 30; i++ {
		turn(i)
	}
	check("board-row", turn(30))
	for i := 31; i < len(yinshGame)-1; i++ {
		turn(i)
	}
	check("game-over", turn(len(yinshGame)-1))

	// A stranger's answer to a mail of the game names no board: his
	// References chose it.
	if out := v.reply(preview[0], "zed@elsewhere.example", "j5-j7\n"); len(out) != 1 || strings.Contains(out[0].Body, "101") {
		t.Errorf("a stranger's reply to the preview:\n%s", format(out))
	}
}

// checkYinsh returns the check of TestYinshMails: the mails match their
// golden, none names LYNGK, no subject ends in a space.
func checkYinsh(t *testing.T) func(name string, out []engine.Mail) {
	return func(name string, out []engine.Mail) {
		t.Helper()
		checkParts(t, "yinsh/"+name, out)
		for _, m := range out {
			for _, part := range []string{m.Subject, m.Body, m.HTML} {
				if strings.Contains(strings.ToLower(part), "lyngk") {
					t.Errorf("%s: a YINSH mail names LYNGK:\n%s", name, part)
				}
			}
			if strings.HasSuffix(m.Subject, " ") {
				t.Errorf("%s: subject %q ends in a space", name, m.Subject)
			}
		}
	}
}

// TestYinshMailsSocial holds the other kinds of YINSH mail, text and HTML,
// with a watcher: chat and its answer by reply, a draw proposed and
// accepted, a take-back asked and accepted, a queued move, a resignation,
// a turn written wrong, the forfeit by the timer.
func TestYinshMailsSocial(t *testing.T) {
	v := newEnv(t, withYinsh)
	v.signup("alice", "bob", "carol")
	check := checkYinsh(t)
	v.cmd(addr("alice"), "yinsh challenge alice bob")
	check("subscribe", v.cmd(addr("carol"), "yinsh subscribe 101 carol pw-carol"))
	v.cmd(addr("alice"), "yinsh move 101 alice pw-alice c5")
	// A chat's text is the player's: a long line of it is no line of ours
	// over templates.Width (LongLines).
	chat := v.mail(engine.Inbound{From: addr("alice"), Subject: "yinsh chat 101 alice pw-alice",
		Body: "Good luck! " + strings.Repeat("A long line that the player wrote. ", 3) + "\n"})
	check("chat", chat)
	check("chat-reply", v.reply(chat[0], addr("bob"), "Thanks, you too.\n"))
	v.cmd(addr("bob"), "yinsh move 101 bob pw-bob e2")
	check("propose", v.cmd(addr("alice"), "yinsh move 101 alice pw-alice propose"))
	check("draw-accepted", v.cmd(addr("bob"), "yinsh move 101 bob pw-bob accept"))

	v.cmd(addr("alice"), "yinsh challenge alice bob")
	v.cmd(addr("alice"), "yinsh move 102 alice pw-alice c5")
	check("undo", v.cmd(addr("alice"), "yinsh move 102 alice pw-alice undo"))
	check("undo-accepted", v.cmd(addr("bob"), "yinsh move 102 bob pw-bob accept"))
	v.cmd(addr("alice"), "yinsh move 102 alice pw-alice c5")
	check("queued", v.cmd(addr("alice"), "yinsh queue 102 alice pw-alice e3"))
	v.cmd(addr("bob"), "yinsh move 102 bob pw-bob e2")
	check("resign", v.cmd(addr("bob"), "yinsh resign 102 bob pw-bob"))

	v.cmd(addr("alice"), "yinsh challenge alice bob")
	v.cmd(addr("alice"), "yinsh move 103 alice pw-alice c5")
	v.cmd(addr("bob"), "yinsh move 103 bob pw-bob e2")
	check("error-notation", v.cmd(addr("alice"), "yinsh move 103 alice pw-alice e3-"))
	v.now = v.now.Add(21*24*time.Hour + time.Minute)
	check("forfeit", v.tick())
}

// TestServerTexts holds the texts of no game, with YINSH offered beside
// LYNGK and the robot player on: help and its topics, the welcome mail,
// list, and a help topic that does not exist.
func TestServerTexts(t *testing.T) {
	v := newEnv(t, withYinsh, withRobot)
	v.signup("alice")
	for _, topic := range []string{"", " notation", " rules", " yinsh", " lyngk", " queue"} {
		name := "help" + strings.ReplaceAll(topic, " ", "-")
		checkParts(t, "yinsh/"+name, v.cmd(addr("alice"), "help"+topic))
	}
	ask := v.cmd("zoe@elsewhere.example", "signup zoe secret")
	checkParts(t, "yinsh/welcome", v.confirm(ask[0]))
	checkParts(t, "yinsh/list", v.cmd(addr("alice"), "list"))
}

// TestYinshNoCommand: the answer to a mail that holds no command gives as
// its example the move of the game the mail is about, fit for its phase
// (YINSH's ring placement e3, then a ring move h7-g7), never LYNGK's
// alone: for a player whose only games are YINSH, and for a reply in the
// thread of a YINSH game whose board mail is not known (its token gone);
// and an empty reply to his board mail is told the move it takes, with
// YINSH's example.
// A player with games of both kinds, or none, is given each game's.
func TestYinshNoCommand(t *testing.T) {
	v := newEnv(t, withYinsh)
	v.signup("alice", "bob", "carol")
	check := checkYinsh(t)
	out := v.cmd(addr("alice"), "yinsh challenge alice bob")
	board := out[0] // to alice
	nothing := func(from, subject string) []engine.Mail {
		t.Helper()
		return v.mail(engine.Inbound{From: addr(from), Subject: subject, Body: "\n> quoted only\n"})
	}
	want := func(name, example string, out []engine.Mail) {
		t.Helper()
		if len(out) != 1 || !strings.Contains(strings.Join(strings.Fields(out[0].Body), " "), "write the move (like "+example+") above") {
			t.Errorf("%s: want the example %q:\n%s", name, example, format(out))
		}
	}
	out = nothing("bob", "")
	want("placement", "e3", out)
	check("no-command-placement", out)
	var latest engine.Mail
	for i := range 11 {
		user := [2]string{"alice", "bob"}[i%2]
		for _, m := range v.cmd(addr(user), "yinsh move 101 "+user+" pw-"+user+" "+yinshGame[i]) {
			if m.To[0] == addr("bob") {
				latest = m
			}
		}
	}
	out = nothing("bob", "Thanks")
	want("movement", "h7-g7", out)
	check("no-command-movement", out)
	// A reply to his board mail with nothing written in it is told the
	// move it takes, with an example that fits the phase too.
	out = v.reply(latest, addr("bob"), "")
	if len(out) != 1 || !strings.Contains(strings.Join(strings.Fields(out[0].Body), " "), "with your move on the first line, like h7-g7.") {
		t.Errorf("an empty reply: want the example h7-g7:\n%s", format(out))
	}

	// alice has a LYNGK game too: alone, her mail is given both games'
	// examples; in the thread of the YINSH game, YINSH's.
	v.cmd(addr("alice"), "lyngk challenge alice carol")
	want("both games", "G,c1-d1 in Lyngk, e3 in Yinsh", nothing("alice", "Thanks"))
	gone := board
	gone.MessageID = "unknown@example.net"
	out = v.reply(gone, addr("alice"), "")
	want("thread", "h7-g7", out)
	check("no-command-thread", out)
}
