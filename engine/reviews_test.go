package engine_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
)

// commit handles in as the daemon does: what its forecast lists (pictures
// and the game-over review) made before the mail is applied.
func (v *env) commit(in engine.Inbound) []engine.Mail {
	v.t.Helper()
	for _, d := range v.forecast(in) {
		if err := v.e.Draw(d); err != nil {
			v.t.Fatal(err)
		}
	}
	return v.mail(in)
}

// lyngkToEnd plays board 101 of alice and bob to its end with the random
// moves of seed (playOut's), the last one by last.
func lyngkToEnd(v *env, seed uint64, last func(engine.Inbound) []engine.Mail) []engine.Mail {
	v.t.Helper()
	v.cmd(addr("carol"), "lyngk challenge alice bob")
	pos := lyngk.New(101, lyngk.Standard)
	rng := rand.New(rand.NewPCG(seed, 0))
	names := [2]string{"alice", "bob"}
	for {
		name := names[pos.Turn()-1]
		m := pick(rng, &pos)
		if err := pos.Apply(m); err != nil {
			v.t.Fatal(err)
		}
		in := engine.Inbound{From: addr(name), Subject: fmt.Sprintf("lyngk move 101 %s pw-%s %s", name, name, m)}
		if pos.Status() != games.Playing {
			return last(in)
		}
		v.mail(in)
		v.now = v.now.Add(37 * 60e9)
	}
}

// yinshToEnd plays yinshGame on board 101, the last turn by last.
func yinshToEnd(v *env, last func(engine.Inbound) []engine.Mail) []engine.Mail {
	v.t.Helper()
	v.cmd(addr("alice"), "yinsh challenge alice bob")
	for i, m := range yinshGame {
		user := [2]string{"alice", "bob"}[i%2]
		in := engine.Inbound{From: addr(user), Subject: "yinsh move 101 " + user + " pw-" + user + " " + m}
		if i == len(yinshGame)-1 {
			return last(in)
		}
		v.mail(in)
	}
	return nil
}

// reviewed checks that every mail of out names the loser's costliest turns
// (text and HTML part) and that one review was made, before the mail.
func reviewed(t *testing.T, v *env, out []engine.Mail) {
	t.Helper()
	if len(out) != 2 {
		t.Fatalf("%d mails at the game's end, want 2", len(out))
	}
	for _, m := range out {
		if !strings.Contains(m.Body, "chance fell most") || !strings.Contains(m.HTML, "chance fell most") {
			t.Errorf("the game-over mail to %v has no review:\n%s", m.To, m.Body)
		}
	}
	if n := v.e.ReviewsMade(); n != 1 {
		t.Errorf("%d reviews made, want 1 (both mails share it)", n)
	}
}

// TestGameOverReviewLyngk: the move that ends a LYNGK game is forecast
// with its review, made before the mail is handled; both game-over mails
// name the loser's three costliest turns with the robot's moves, in text
// and HTML (testdata/review/lyngk-game-over.golden). The review is
// reproducible: one worker, fixed seeds.
func TestGameOverReviewLyngk(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob", "carol")
	out := lyngkToEnd(v, 7, v.commit)
	reviewed(t, v, out)
	checkParts(t, "review/lyngk-game-over", out)
}

// TestGameOverReviewYinsh is TestGameOverReviewLyngk for YINSH
// (testdata/review/yinsh-game-over.golden).
func TestGameOverReviewYinsh(t *testing.T) {
	v := newEnv(t, withYinsh)
	v.signup("alice", "bob")
	out := yinshToEnd(v, v.commit)
	reviewed(t, v, out)
	checkParts(t, "review/yinsh-game-over", out)
}

// TestGameOverReviewOff: a player who sent "change review ... off" gets
// his game-over mail without the review, his opponent with it; "on"
// brings it back.
func TestGameOverReviewOff(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob", "carol")
	checkParts(t, "review/change-review-off", v.cmd(addr("bob"), "change review bob pw-bob OFF"))
	out := lyngkToEnd(v, 7, v.commit)
	if len(out) != 2 {
		t.Fatalf("%d mails at the game's end, want 2", len(out))
	}
	for _, m := range out {
		want := m.To[0] == addr("alice")
		if got := strings.Contains(m.Body, "chance fell most"); got != want {
			t.Errorf("the game-over mail to %v has a review: %v, want %v", m.To, got, want)
		}
		if got := strings.Contains(m.HTML, "chance fell most"); got != want {
			t.Errorf("the HTML game-over mail to %v has a review: %v, want %v", m.To, got, want)
		}
	}
	checkParts(t, "review/change-review-on", v.cmd(addr("bob"), "change review bob pw-bob on"))
	if out := v.cmd(addr("bob"), "change review bob pw-bob maybe"); len(out) != 1 || !strings.Contains(out[0].Body, "change review USERID PASSWORD on|off") {
		t.Errorf("change review maybe:\n%s", format(out))
	}
}

// TestGameOverReviewNotInside: a game-over mail nobody forecast (the
// daemon left the review out: the server was busy) goes without the
// review: none is ever made inside the write transaction, where it would
// hold up every other mail.
func TestGameOverReviewNotInside(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob", "carol")
	out := lyngkToEnd(v, 7, v.mail)
	if len(out) != 2 {
		t.Fatalf("%d mails at the game's end, want 2", len(out))
	}
	for _, m := range out {
		if strings.Contains(m.Body, "chance fell most") || !strings.Contains(m.Body, "Game won by") {
			t.Errorf("a game-over mail not forecast:\n%s", m.Body)
		}
	}
	if n := v.e.ReviewsMade(); n != 0 {
		t.Errorf("%d reviews made inside the transaction, want 0", n)
	}
}

// TestForecastListsReview: the forecast of the move that ends a game lists
// its review once among the pictures (Drawing.Review), the forecast of a
// move that does not end it none.
func TestForecastListsReview(t *testing.T) {
	v := newEnv(t, withYinsh)
	v.signup("alice", "bob")
	var before []engine.Drawing
	yinshToEnd(v, func(in engine.Inbound) []engine.Mail {
		before = v.forecast(in)
		return nil
	})
	n := 0
	for _, d := range before {
		if d.Review() {
			n++
		}
	}
	if n != 1 || len(before) != 2 {
		t.Errorf("the last move's forecast: %d drawings, %d reviews; want a picture and a review", len(before), n)
	}
}
