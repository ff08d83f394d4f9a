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

// gameOverHeld checks that out, the answer to the game's end, holds no
// game-over mail to a player who takes reviews and that no review was
// made for it: the game's end only records the review owed, with the
// mails held for it, once.
func gameOverHeld(t *testing.T, v *env, out []engine.Mail) {
	t.Helper()
	if len(out) != 0 {
		t.Fatalf("%d mails at the game's end, want none: they wait for the review\n%s", len(out), format(out))
	}
	if n := v.e.ReviewsMade(); n != 0 {
		t.Errorf("%d reviews made in the transaction that ended the game, want 0", n)
	}
	if ps := v.owed(); len(ps) != 1 || ps[0].Board != 101 || ps[0].Ended.After(v.now) || ps[0].Ended.Before(v.now.Add(-time.Second)) ||
		!ps[0].Due.Equal(ps[0].Ended.Add(engine.ReviewWait)) {
		t.Errorf("reviews owed after the game's end: %+v, want board 101's", ps)
	}
}

// reviewed checks that out is the game-over mail to each player, with the
// review naming the loser's costliest turns in its text and its HTML part,
// and that one review was made for both.
func reviewed(t *testing.T, v *env, out []engine.Mail) {
	t.Helper()
	if len(out) != 2 {
		t.Fatalf("%d game-over mails, want 2:\n%s", len(out), format(out))
	}
	for _, m := range out {
		if !strings.Contains(m.Body, "Game won by") || !strings.Contains(m.Body, "chance fell most") ||
			!strings.Contains(m.HTML, "chance fell most") || m.Picture == nil ||
			strings.Contains(m.Body, "\x1e") || strings.Contains(m.HTML, "\x1e") {
			t.Errorf("the game-over mail to %v:\n%s", m.To, m.Body)
		}
	}
	if n := v.e.ReviewsMade(); n != 1 {
		t.Errorf("%d reviews made, want 1 (both mails share it)", n)
	}
	if ps := v.owed(); len(ps) != 0 {
		t.Errorf("reviews still owed after their mails: %+v", ps)
	}
}

// TestGameOverReviewLyngk: the move that ends a LYNGK game is committed
// with its game-over mails held in the store, the review only owed; made
// afterwards outside the transaction, the review goes in the game-over
// mail to both players, after the result, in the text and the HTML part,
// naming the loser's three costliest turns with the robot's moves
// (testdata/review/lyngk-game-over.golden). The review is reproducible:
// one worker, fixed seeds.
func TestGameOverReviewLyngk(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob", "carol")
	v.hold = true
	gameOverHeld(t, v, lyngkToEnd(v, 7, v.commit))
	out := v.reviews()
	reviewed(t, v, out)
	checkParts(t, "review/lyngk-game-over", out)
}

// TestGameOverReviewYinsh is TestGameOverReviewLyngk for YINSH
// (testdata/review/yinsh-game-over.golden), with the web's link to the
// game's chart.
func TestGameOverReviewYinsh(t *testing.T) {
	v := newEnv(t, withYinsh, func(c *engine.Config) { c.WebURL = "https://lyngk.example.org" })
	v.signup("alice", "bob")
	v.hold = true
	gameOverHeld(t, v, yinshToEnd(v, v.commit))
	out := v.reviews()
	reviewed(t, v, out)
	if !strings.Contains(out[0].Body, "https://lyngk.example.org/game/101\n") ||
		!strings.Contains(out[0].HTML, `href="https://lyngk.example.org/game/101"`) {
		t.Errorf("no link to the game's page:\n%s", out[0].Body)
	}
	checkParts(t, "review/yinsh-game-over", out)
}

// TestGameOverWithoutReview: the game-over mails held for a review that
// is not made (its Due passed, the review failed) go as they were
// composed: byte for byte the mails with the review but for the review,
// in the text and in the HTML part, the same picture and reply token;
// the record goes with them.
func TestGameOverWithoutReview(t *testing.T) {
	end := func() (*env, engine.PendingReview) {
		v := newEnv(t)
		v.signup("alice", "bob", "carol")
		v.hold = true
		lyngkToEnd(v, 7, v.commit)
		ps := v.owed()
		if len(ps) != 1 {
			t.Fatalf("%d reviews owed, want 1", len(ps))
		}
		return v, ps[0]
	}
	v, p := end()
	bare := v.reviewMails(p)
	if ps := v.owed(); len(ps) != 0 {
		t.Errorf("reviews owed once their mails went: %+v", ps)
	}
	w, q := end()
	if err := w.e.MakeReview(context.Background(), &q, nil); err != nil {
		t.Fatal(err)
	}
	full := w.reviewMails(q)
	if len(bare) != 2 || len(full) != 2 {
		t.Fatalf("%d mails without the review, %d with it, want 2 and 2", len(bare), len(full))
	}
	for i, m := range bare {
		f := full[i]
		if strings.Contains(m.Body, "chance fell most") || strings.Contains(m.HTML, "chance fell most") ||
			strings.Contains(m.Body, "\x1e") || strings.Contains(m.HTML, "\x1e") {
			t.Errorf("the mail without its review to %v:\n%s", m.To, m.Body)
		}
		if !onlyAdded(m.Body, f.Body, "Where bob's chance fell most", "PASSWORD off\n\n") ||
			!onlyAdded(m.HTML, f.HTML, "\n<p style=\"margin:8px 0 4px 0;\">Where bob's", "PASSWORD off</p>") {
			t.Errorf("mail %d: more than the review differs:\n%s\n=====\n%s", i, m.Body, f.Body)
		}
		if m.MessageID != f.MessageID || string(m.Picture) != string(f.Picture) || m.PictureID != f.PictureID || m.Subject != f.Subject {
			t.Errorf("mail %d: the headers or the picture differ", i)
		}
	}
}

// onlyAdded reports whether with is without and one more section, from
// the first from to the end of the next to.
func onlyAdded(without, with, from, to string) bool {
	i := strings.Index(with, from)
	if i < 0 {
		return false
	}
	j := strings.Index(with[i:], to)
	return j >= 0 && with[:i]+with[i+j+len(to):] == without
}

// TestReviewMailedOnce: the game-over mails held for a review survive a
// restart between the game's end and the review, and are mailed once: the
// record goes with the mails, so a review made twice (a crash after the
// commit of its mails would make it again were the record left) finds
// nothing more to mail.
func TestReviewMailedOnce(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob", "carol")
	v.hold = true
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
	if out := v.reviewMails(p); len(out) != 2 || !strings.Contains(out[0].Body, "chance fell most") {
		t.Fatalf("%d game-over mails with the review, want 2:\n%s", len(out), format(out))
	}
	if out := v.reviewMails(p); len(out) != 0 {
		t.Errorf("the game-over mails sent twice:\n%s", format(out))
	}
	if out := v.reviews(); len(out) != 0 {
		t.Errorf("reviews owed once mailed:\n%s", format(out))
	}
}

// TestReviewAfterForfeit: a game the timer ends by forfeit gets its review
// like one ended by a move: its game-over mails held in the timer's
// transaction, then mailed to both players with the review.
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
	v.hold = true
	gameOverHeld(t, v, v.tick())
	out := v.reviews()
	reviewed(t, v, out)
	if !strings.Contains(out[0].Body, "Forfeit") || !strings.Contains(out[0].Body, "Where alice's chance fell most") {
		t.Errorf("the forfeited game's game-over mail:\n%s", out[0].Body)
	}
}

// TestGameOverReviewOff: a player who sent "change review ... off" gets
// his game-over mail at once, without the review; his opponent's waits
// for it. "on" brings it back. With nobody taking it, no review is owed
// and both game-over mails go at once.
func TestGameOverReviewOff(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob", "carol")
	checkParts(t, "review/change-review-off", v.cmd(addr("bob"), "change review bob pw-bob OFF"))
	v.hold = true
	at := lyngkToEnd(v, 7, v.commit)
	if len(at) != 1 || at[0].To[0] != addr("bob") || strings.Contains(at[0].Body, "chance fell most") || !strings.Contains(at[0].Body, "Game won by") {
		t.Fatalf("game-over mails at once with bob's review off:\n%s", format(at))
	}
	out := v.reviews()
	if len(out) != 1 || out[0].To[0] != addr("alice") || !strings.Contains(out[0].Body, "chance fell most") {
		t.Fatalf("game-over mails with the review, bob's off:\n%s", format(out))
	}
	v.hold = false
	checkParts(t, "review/change-review-on", v.cmd(addr("bob"), "change review bob pw-bob on"))
	if out := v.cmd(addr("bob"), "change review bob pw-bob maybe"); len(out) != 1 || !strings.Contains(out[0].Body, "change review USERID PASSWORD on|off") {
		t.Errorf("change review maybe:\n%s", format(out))
	}

	w := newEnv(t)
	w.signup("alice", "bob", "carol")
	w.cmd(addr("alice"), "change review alice pw-alice off")
	w.cmd(addr("bob"), "change review bob pw-bob off")
	w.hold = true
	if out := lyngkToEnd(w, 7, w.mail); len(out) != 2 || strings.Contains(out[0].Body, "chance fell most") {
		t.Errorf("game-over mails with both reviews off:\n%s", format(out))
	}
	if ps := w.owed(); len(ps) != 0 {
		t.Errorf("reviews owed that nobody takes: %+v", ps)
	}
}
