package engine_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/store"
)

func recipientsOf(out []engine.Mail) []string {
	var to []string
	for _, m := range out {
		to = append(to, m.To...)
	}
	return to
}

// TestSubscribeChat: a subscriber gets every board mail and the chat; not
// after unsubscribing.
func TestSubscribeChat(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob", "carol")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	out := v.cmd(addr("carol"), "lyngk subscribe 101 carol pw-carol")
	checkGolden(t, "subscribe", format(out))
	out = v.cmd(addr("alice"), "lyngk move 101 alice pw-alice G,f5-f4")
	if want := []string{addr("alice"), addr("bob"), addr("carol")}; !slices.Equal(recipientsOf(out), want) {
		t.Errorf("board mails went to %q, want %q", recipientsOf(out), want)
	}
	out = v.mail(engine.Inbound{From: addr("carol"), Subject: "lyngk chat 101 carol pw-carol", Body: "Bold opening!\n"})
	// The chat, and carol's copy of it.
	if want := []string{addr("alice"), addr("bob"), addr("carol")}; !slices.Equal(recipientsOf(out), want) {
		t.Errorf("chat went to %q, want %q", recipientsOf(out), want)
	}
	checkGolden(t, "chat", format(out))
	out = v.cmd(addr("carol"), "lyngk unsubscribe 101 carol pw-carol")
	checkGolden(t, "unsubscribe", format(out))
	out = v.reply(out[0], addr("bob"), "x")
	if len(out) != 1 || !strings.Contains(out[0].Body, "is not a command") {
		t.Errorf("reply to a non-board mail: %s", format(out))
	}
}

// TestDrawAndUndo: proposals wait for the opponent.
func TestDrawAndUndo(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	news := v.cmd(addr("alice"), "lyngk challenge alice bob")
	before := lyngk.New(101, lyngk.Standard)
	moved := v.cmd(addr("alice"), "lyngk move 101 alice pw-alice G,f5-f4")

	out := v.cmd(addr("alice"), "lyngk move 101 alice pw-alice undo")
	checkGolden(t, "undo", format(out))
	out = v.reply(out[1], addr("bob"), "accept\nOK, take it back.\n")
	checkGolden(t, "undo-accepted", format(out))
	if !strings.Contains(out[0].Body, "\n\n"+before.Board([2]string{"alice", "bob"})+"\n") ||
		!strings.Contains(out[0].Body, "\nPlease start the game alice.\n") {
		t.Errorf("the take-back did not restore the start:\n%s", out[0].Body)
	}
	// The old board mails after the taken-back move are stale; the new one works.
	if r := v.reply(moved[1], addr("bob"), "a1-b2\n"); len(r) != 1 || r[0].Subject != "Lyngk Board 101 Error" {
		t.Errorf("reply to a board mail of a taken-back move:\n%s", format(r))
	}
	_ = news

	// A draw counts only once both have moved.
	v.cmd(addr("alice"), "lyngk move 101 alice pw-alice G,f5-f4")
	v.cmd(addr("bob"), "lyngk move 101 bob pw-bob b1-b2")
	out = v.cmd(addr("bob"), "lyngk move 101 bob pw-bob propose")
	checkGolden(t, "propose", format(out))
	if r := v.cmd(addr("bob"), "lyngk move 101 bob pw-bob accept"); len(r) != 1 || !strings.HasPrefix(r[0].Body, "The pending proposal is your own") {
		t.Errorf("accepting one's own proposal:\n%s", format(r))
	}
	out = v.cmd(addr("alice"), "lyngk move 101 alice pw-alice reject")
	checkGolden(t, "reject", format(out))
	v.cmd(addr("alice"), "lyngk move 101 alice pw-alice propose")
	out = v.cmd(addr("bob"), "lyngk move 101 bob pw-bob accept")
	checkGolden(t, "draw-accepted", format(out))
	for _, m := range out {
		if !strings.Contains(m.Body, "\nGame was a tie.\n") || !strings.Contains(m.Body, "alice's rating is 1600 (provisional).") {
			t.Errorf("draw mail:\n%s", m.Body)
		}
	}
}

// TestStandingsHistory: finished games, newest first, and the ratings.
func TestStandingsHistory(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob", "carol")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	v.cmd(addr("alice"), "lyngk challenge carol alice")
	v.cmd(addr("alice"), "lyngk challenge bob carol")
	v.cmd(addr("alice"), "lyngk challenge alice carol")
	v.cmd(addr("alice"), "lyngk move 101 alice pw-alice G,f5-f4")
	v.cmd(addr("bob"), "lyngk move 101 bob pw-bob b1-b2")
	v.cmd(addr("bob"), "lyngk resign 101 bob pw-bob")
	v.now = v.now.Add(3 * day)
	v.cmd(addr("carol"), "lyngk move 102 carol pw-carol a1-b3")
	v.cmd(addr("alice"), "lyngk move 102 alice pw-alice b1-b2")
	v.cmd(addr("alice"), "lyngk resign 102 alice pw-alice")
	// Board 104 is declined: it shows as cancelled and counts for nobody.
	v.cmd(addr("carol"), "lyngk decline 104 carol pw-carol")
	// zoe asks from her account's address: a stranger gets no listing
	// (TestStrangerNoListings).
	v.signupAt("zoe@elsewhere.example", "zoe", "pw-zoe")
	checkGolden(t, "history", format(v.cmd("zoe@elsewhere.example", "lyngk history")))
	checkGolden(t, "history-user", format(v.cmd("zoe@elsewhere.example", "lyngk history bob")))
	checkGolden(t, "standings", format(v.cmd("zoe@elsewhere.example", "lyngk standings")))
	checkGolden(t, "games-inactive", format(v.cmd("zoe@elsewhere.example", "lyngk games alice inactive")))
	checkGolden(t, "show-user-all", format(v.cmd("zoe@elsewhere.example", "lyngk show alice all")))
}

// TestOffersPerDay: each offer mails the board to both players, so a
// player makes at most MaxOffersPerDay (3) draw offers and take-back
// requests per game in a day: the 4th is refused and changes nothing; the
// opponent's own allowance is untouched, and the next day it starts anew.
// (Old main took any number: propose, reject, propose ... each two mails.)
func TestOffersPerDay(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	for i := range engine.MaxOffersPerDay {
		if out := v.cmd(addr("alice"), "lyngk move 101 alice pw-alice propose"); len(out) != 2 {
			t.Fatalf("offer %d:\n%s", i+1, format(out))
		}
		if out := v.cmd(addr("alice"), "lyngk move 101 alice pw-alice reject"); len(out) != 2 {
			t.Fatalf("withdrawal %d:\n%s", i+1, format(out))
		}
	}
	before := v.dump(store.BucketGames)
	out := v.cmd(addr("alice"), "lyngk move 101 alice pw-alice propose")
	if len(out) != 1 || !strings.Contains(out[0].Body, "You have made 3 draw offers or take-back requests in Lyngk Board 101") {
		t.Fatalf("the 4th offer:\n%s", format(out))
	}
	if v.dump(store.BucketGames) != before {
		t.Error("the refused offer changed the game")
	}
	if out := v.cmd(addr("bob"), "lyngk move 101 bob pw-bob propose"); len(out) != 2 {
		t.Fatalf("bob's first offer:\n%s", format(out))
	}
	v.cmd(addr("bob"), "lyngk move 101 bob pw-bob reject")
	v.now = v.now.Add(24 * time.Hour)
	if out := v.cmd(addr("alice"), "lyngk move 101 alice pw-alice propose"); len(out) != 2 {
		t.Fatalf("alice's offer the next day:\n%s", format(out))
	}
}

// TestChatBack: a reply to a chat mail is a chat back, its
// first line too, to the same game's players and watchers, and never a
// move; the sender gets a copy, or with "change chat ... confirm" one line.
// On the main before, the reply got `"Hi" is not a command`.
func TestChatBack(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob", "carol")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	v.cmd(addr("carol"), "lyngk subscribe 101 carol pw-carol")
	var toBob engine.Mail
	for _, m := range v.mail(engine.Inbound{From: addr("carol"), Subject: "lyngk chat 101 carol pw-carol", Body: "Bold opening!\n"}) {
		if m.To[0] == addr("bob") {
			toBob = m
		}
	}
	before := v.dump("games")
	out := v.reply(toBob, addr("bob"), "Hi\nThanks, carol.\n\nOn Thu, Nov 26, 2026 at 11:58 AM, PBeM Server <lyngk@example.net> wrote:\n> carol writes about Lyngk Board 101:\n> Bold opening!\n")
	if want := []string{addr("alice"), addr("carol"), addr("bob")}; !slices.Equal(recipientsOf(out), want) {
		t.Fatalf("chat back went to %q, want %q:\n%s", recipientsOf(out), want, format(out))
	}
	for _, m := range out {
		if m.Subject != "Lyngk Board 101 chat bob" || !strings.HasPrefix(m.Body, "bob writes about Lyngk Board 101:\n\nHi\nThanks, carol.\n\nTo answer, reply to this mail") {
			t.Errorf("to %s: %q\n%s", m.To[0], m.Subject, m.Body)
		}
	}
	// A move on the first line of a reply to a chat mail is chat too.
	v.cmd(addr("bob"), "change chat bob pw-bob confirm")
	out = v.reply(toBob, addr("bob"), "G,c1-d1\n")
	if len(out) != 3 || out[2].To[0] != addr("bob") || out[2].Subject != "Lyngk Board 101 chat sent" ||
		out[2].Body != "Your chat about Lyngk Board 101 went to 2 players and watchers.\n" || !strings.Contains(out[0].Body, "\nG,c1-d1\n") {
		t.Errorf("chat back with confirm:\n%s", format(out))
	}
	if after := v.dump("games"); after != before {
		t.Errorf("a reply to a chat mail changed the game:\n%s", diff(before, after))
	}
	// A chat token moves nothing on the web either.
	tok := strings.TrimPrefix(strings.Split(toBob.MessageID, "@")[0], "lyngk.")
	err := v.db.View(func(tx *store.Tx) error {
		_, err := v.e.TokenGame(tx, tok)
		var ref *engine.Refusal
		if !errors.As(err, &ref) || ref.Key != "token-unknown" {
			t.Errorf("TokenGame of a chat token: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if out := v.cmd(addr("bob"), "change chat bob pw-bob maybe"); len(out) != 1 || !strings.Contains(out[0].Body, "change chat USERID PASSWORD copy|confirm") {
		t.Errorf("bad chat word: %s", format(out))
	}
}
