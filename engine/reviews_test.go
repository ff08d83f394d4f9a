package engine_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/store"
)

// commit handles in as the daemon does: the pictures its forecast lists
// drawn before the mail is applied.
func (v *env) commit(in engine.Inbound) []engine.Mail {
	v.t.Helper()
	for _, d := range v.forecast(in) {
		if err := v.e.Draw(d); err != nil {
			v.t.Fatal(err)
		}
	}
	return v.mail(in)
}

// owed is the reviews owed (bucket reviews), as the daemon's worker reads
// them.
func (v *env) owed() []engine.PendingReview {
	v.t.Helper()
	var ps []engine.PendingReview
	if err := v.db.View(func(tx *store.Tx) error {
		var err error
		ps, err = v.e.PendingReviews(tx, 100)
		return err
	}); err != nil {
		v.t.Fatal(err)
	}
	return ps
}

// reviewMails commits the mails of p, made, in a write transaction.
func (v *env) reviewMails(p engine.PendingReview) []engine.Mail {
	v.t.Helper()
	var out []engine.Mail
	if err := v.db.Update(func(tx *store.Tx) error {
		var err error
		out, err = v.e.ReviewMails(tx, p, v.now)
		return err
	}); err != nil {
		v.t.Fatal(err)
	}
	return out
}

// reviews makes every review owed, one at a time outside any
// transaction, and commits its mails, as the daemon's worker does
// (daemon.RunReviews); it returns the mails.
func (v *env) reviews() []engine.Mail {
	v.t.Helper()
	var out []engine.Mail
	for _, p := range v.owed() {
		if err := v.e.MakeReview(context.Background(), &p, nil); err != nil {
			v.t.Fatal(err)
		}
		out = append(out, v.reviewMails(p)...)
	}
	return out
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

// gameOverAtOnce checks that the game-over mails of out carry no review
// and that none was made for them: the game's end only records it owed,
// once.
func gameOverAtOnce(t *testing.T, v *env, out []engine.Mail) {
	t.Helper()
	if len(out) != 2 {
		t.Fatalf("%d mails at the game's end, want 2", len(out))
	}
	for _, m := range out {
		if strings.Contains(m.Body, "chance fell most") || strings.Contains(m.HTML, "chance fell most") || !strings.Contains(m.Body, "Game won by") {
			t.Errorf("the game-over mail to %v:\n%s", m.To, m.Body)
		}
	}
	if n := v.e.ReviewsMade(); n != 0 {
		t.Errorf("%d reviews made for the game-over mails, want 0: they wait for none", n)
	}
	if ps := v.owed(); len(ps) != 1 || ps[0].Board != 101 || ps[0].Ended.After(v.now) || ps[0].Ended.Before(v.now.Add(-time.Second)) {
		t.Errorf("reviews owed after the game's end: %+v, want board 101's", ps)
	}
}

// reviewed checks that out is one review mail to each player, naming the
// loser's costliest turns, and that one review was made for both.
func reviewed(t *testing.T, v *env, out []engine.Mail) {
	t.Helper()
	if len(out) != 2 {
		t.Fatalf("%d review mails, want 2:\n%s", len(out), format(out))
	}
	for _, m := range out {
		if !strings.Contains(m.Body, "chance fell most") || m.HTML != "" {
			t.Errorf("the review mail to %v:\n%s", m.To, m.Body)
		}
	}
	if n := v.e.ReviewsMade(); n != 1 {
		t.Errorf("%d reviews made, want 1 (both mails share it)", n)
	}
	if ps := v.owed(); len(ps) != 0 {
		t.Errorf("reviews still owed after their mails: %+v", ps)
	}
}

// TestGameOverReviewLyngk: the move that ends a LYNGK game is answered
// at once, the game-over mails without the review, which is only recorded
// owed in the same transaction; made afterwards outside it, the review
// goes to both players in a short text mail of its own naming the loser's
// three costliest turns with the robot's moves
// (testdata/review/lyngk-review.golden). The review is reproducible: one
// worker, fixed seeds.
func TestGameOverReviewLyngk(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob", "carol")
	gameOverAtOnce(t, v, lyngkToEnd(v, 7, v.commit))
	out := v.reviews()
	reviewed(t, v, out)
	checkParts(t, "review/lyngk-review", out)
}

// TestGameOverReviewYinsh is TestGameOverReviewLyngk for YINSH
// (testdata/review/yinsh-review.golden), with the web's link to the
// game's chart.
func TestGameOverReviewYinsh(t *testing.T) {
	v := newEnv(t, withYinsh, func(c *engine.Config) { c.WebURL = "https://lyngk.example.org" })
	v.signup("alice", "bob")
	gameOverAtOnce(t, v, yinshToEnd(v, v.commit))
	out := v.reviews()
	reviewed(t, v, out)
	if !strings.Contains(out[0].Body, "https://lyngk.example.org/game/101\n") {
		t.Errorf("no link to the game's page:\n%s", out[0].Body)
	}
	checkParts(t, "review/yinsh-review", out)
}

// TestReviewMailedOnce: the review owed survives a restart between the
// game's end and its mail, and is mailed once: the record goes with the
// mails, so a review made twice (a crash after the commit of its mails
// would make it again were the record left) finds nothing more to mail.
func TestReviewMailedOnce(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob", "carol")
	lyngkToEnd(v, 7, v.mail)
	v.restart()
	ps := v.owed()
	if len(ps) != 1 {
		t.Fatalf("%d reviews owed after the restart, want 1", len(ps))
	}
	p := ps[0]
	if err := v.e.MakeReview(context.Background(), &p, nil); err != nil {
		t.Fatal(err)
	}
	if out := v.reviewMails(p); len(out) != 2 {
		t.Fatalf("%d review mails, want 2", len(out))
	}
	if out := v.reviewMails(p); len(out) != 0 {
		t.Errorf("the review mailed twice:\n%s", format(out))
	}
	if out := v.reviews(); len(out) != 0 {
		t.Errorf("reviews owed once mailed:\n%s", format(out))
	}
}

// TestReviewAfterForfeit: a game the timer ends by forfeit gets its review
// like one ended by a move: owed in the timer's transaction, its mail to
// both players after the game-over mails.
func TestReviewAfterForfeit(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	pos := lyngk.New(101, lyngk.Standard)
	rng := rand.New(rand.NewPCG(3, 0))
	for range 12 {
		name := [2]string{"alice", "bob"}[pos.Turn()-1]
		m := pick(rng, &pos)
		if err := pos.Apply(m); err != nil {
			t.Fatal(err)
		}
		v.cmd(addr(name), fmt.Sprintf("lyngk move 101 %s pw-%s %s", name, name, m))
	}
	v.now = v.now.Add(22 * day)
	out := v.tick()
	if len(out) != 2 || !strings.Contains(out[0].Body, "Forfeit") {
		t.Fatalf("want the forfeit to both players, got:\n%s", format(out))
	}
	gameOverAtOnce(t, v, out)
	out = v.reviews()
	reviewed(t, v, out)
	if !strings.Contains(out[0].Body, "Where alice's chance fell most") {
		t.Errorf("the forfeited game's review:\n%s", out[0].Body)
	}
}

// TestGameOverReviewOff: a player who sent "change review ... off" gets
// no review mail, his opponent one; "on" brings it back. With nobody
// taking it, no review is owed at all.
func TestGameOverReviewOff(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob", "carol")
	checkParts(t, "review/change-review-off", v.cmd(addr("bob"), "change review bob pw-bob OFF"))
	lyngkToEnd(v, 7, v.commit)
	out := v.reviews()
	if len(out) != 1 || out[0].To[0] != addr("alice") {
		t.Fatalf("review mails with bob's off:\n%s", format(out))
	}
	checkParts(t, "review/change-review-on", v.cmd(addr("bob"), "change review bob pw-bob on"))
	if out := v.cmd(addr("bob"), "change review bob pw-bob maybe"); len(out) != 1 || !strings.Contains(out[0].Body, "change review USERID PASSWORD on|off") {
		t.Errorf("change review maybe:\n%s", format(out))
	}

	w := newEnv(t)
	w.signup("alice", "bob", "carol")
	w.cmd(addr("alice"), "change review alice pw-alice off")
	w.cmd(addr("bob"), "change review bob pw-bob off")
	lyngkToEnd(w, 7, w.mail)
	if ps := w.owed(); len(ps) != 0 {
		t.Errorf("reviews owed that nobody takes: %+v", ps)
	}
}
