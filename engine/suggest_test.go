package engine_test

import (
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
)

// TestPlayerAlwaysAnswered is the measured case: carol (confirmed) sent
// "ratings" and got the generic "I found no command" hint; her second
// mistyped command that day got no answer at all. Now every new line of a
// player that is no command is answered, naming the nearest commands of
// the table: both games' for a command without its game word, the closest
// for a typo. Only the same line again the same day (a responder without
// the RFC 3834 marks) gets silence; automatic mail none at all.
func TestPlayerAlwaysAnswered(t *testing.T) {
	v := newEnv(t, withYinsh)
	v.signup("alice", "bob", "carol")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	carol := addr("carol")
	cases := []struct {
		name, subject, body string
		want                []string
	}{
		{"answered-ratings", "ratings", "", []string{`"ratings" is not a command.`, "    lyngk ratings\n    yinsh ratings\n"}},
		{"answered-show-typo", "lyngk shwo 101", "", []string{`"lyngk shwo" is not a command.`,
			"    lyngk show BOARD[#N]...\n    lyngk show USERID... [all|active|inactive|next]\n"}},
		{"answered-challenge-typo", "", "chalenge carol alice\n", []string{`"chalenge" is not a command.`,
			"    lyngk challenge [-stack6] USERID1 USERID2\n    yinsh challenge [-blitz] USERID1 USERID2\n"}},
		{"answered-game-typo", "lyngkk games", "", []string{"    lyngk games [USERID...] [all|active|inactive|next]\n"}},
		{"answered-common-typo", "hlep", "", []string{"    help [commands|notation|rules]\n"}},
		{"answered-far", "Thank you for the game", "", []string{"I found no command in your mail."}},
	}
	for _, c := range cases {
		out := v.mail(engine.Inbound{From: carol, Subject: c.subject, Body: c.body})
		if len(out) != 1 {
			t.Fatalf("%s: %d answers, want 1", c.name, len(out))
		}
		for _, w := range c.want {
			if !strings.Contains(out[0].Body, w) {
				t.Errorf("%s: the answer lacks %q:\n%s", c.name, w, out[0].Body)
			}
		}
		checkGolden(t, c.name, format(out))
	}
	// The same line again the same day: silence, a loop's guard.
	for _, again := range []string{"ratings", "Thank you for the game"} {
		if out := v.cmd(carol, again); len(out) != 0 {
			t.Fatalf("%q again: %d answers, want none", again, len(out))
		}
	}
	if out := v.cmd(carol, "rating"); len(out) != 1 || !strings.Contains(out[0].Body, "    yinsh ratings\n") {
		t.Fatalf("another line: %d answers, want the suggestion:\n%s", len(out), format(out))
	}
	v.now = v.now.Add(24 * time.Hour)
	if out := v.cmd(carol, "ratings"); len(out) != 1 {
		t.Fatalf("the same line a day later: %d answers, want 1", len(out))
	}
	// Automatic mail, even from a player, is never answered.
	if out := v.mail(engine.Inbound{From: carol, Subject: "standigns", Auto: "auto-replied"}); len(out) != 0 {
		t.Fatalf("automatic mail: %d answers, want none", len(out))
	}
}

// TestStrangerSuggestions: a stranger's answer suggests only the commands
// he is answered to (help, list, signup, confirm), echoes nothing he wrote,
// and comes once a day.
func TestStrangerSuggestions(t *testing.T) {
	v := newEnv(t, withYinsh)
	const zoe = "zoe@elsewhere.example"
	out := v.cmd(zoe, "sigup zoe secretpw")
	if len(out) != 1 || !strings.Contains(out[0].Body, "Did you mean:\n    signup USERID PASSWORD [ADDRESS...]\n") ||
		strings.Contains(out[0].Body, "sigup") || strings.Contains(out[0].Body, "secretpw") {
		t.Fatalf("a stranger's typo of signup:\n%s", format(out))
	}
	checkGolden(t, "answered-stranger", format(out))
	if out := v.cmd(zoe, "lsit"); len(out) != 0 {
		t.Fatalf("a stranger's second mail without a command the same day: %d answers, want none", len(out))
	}
	v.now = v.now.Add(24 * time.Hour)
	if out := v.cmd(zoe, "ratings"); len(out) != 1 || strings.Contains(out[0].Body, "Did you mean") {
		t.Fatalf("a stranger's game command gets no suggestion (he is not answered to it):\n%s", format(out))
	}
}
