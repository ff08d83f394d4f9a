package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/daemon"
	"lyngk.example/lyngk/store"
)

// bounceOf is the sample testdata/bounces/NAME.eml with its placeholders
// filled: the failed recipient, the Message-ID of the mail that bounced,
// the bounce's own Message-ID, the address it goes to.
func bounceOf(t *testing.T, name, rcpt, msgID, bounceID, to string, more ...string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "bounces", name+".eml"))
	if err != nil {
		t.Fatal(err)
	}
	r := strings.NewReplacer(append([]string{"{{RCPT}}", rcpt, "{{MSGID}}", msgID, "{{BOUNCEID}}", bounceID, "{{TO}}", to}, more...)...)
	return []byte(r.Replace(string(raw)))
}

// feedBounce runs `lyngk process` on a bounce: it gets no answer.
func feedBounce(t *testing.T, db string, raw []byte) {
	t.Helper()
	var out, errb bytes.Buffer
	if rc := run([]string{"process", "-db", db, "-mbox", "-"}, bytes.NewReader(raw), &out, &errb); rc != 0 || out.Len() != 0 {
		t.Fatalf("process: exit %d, answered %q: %s", rc, out.String(), errb.String())
	}
}

// adminBounces is `lyngk admin bounces`, its rows on one line.
func adminBounces(t *testing.T, db string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if rc := run([]string{"admin", "-db", db, "bounces"}, nil, &out, &errb); rc != 0 || !strings.HasPrefix(out.String(), "ADDRESS ") {
		t.Fatalf("admin bounces: %d\n%s%s", rc, out.String(), errb.String())
	}
	_, rows, _ := strings.Cut(out.String(), "\n")
	return strings.Join(strings.Fields(rows), " ")
}

// TestBounceForged: alice's board mails carry reply tokens, and their
// "move on the web" links show them. Three forged delivery reports, each
// naming a made-up Message-ID first and the Message-ID of her token second
// (lyngk.TOKEN@localhost, as the link gives it), count nothing: the copy
// she was sent had a mark after the token that no link shows, and only a
// mail recorded as sent to her counts. Her mail goes on.
func TestBounceForged(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	alice := "alice@example.com"
	var tokens []string
	for _, r := range aliceAnswers(t, db, alice, "bob@example.org") {
		local, _, _ := strings.Cut(r.MessageID, "@")
		tok, _, _ := strings.Cut(strings.TrimPrefix(local, "lyngk."), ".")
		if len(tok) != 32 || !strings.Contains(r.Body, "/play/"+tok) && !strings.Contains(r.Body, "reply with your move") {
			t.Fatalf("board mail Message-ID %q: want lyngk.TOKEN.MARK@localhost", r.MessageID)
		}
		tokens = append(tokens, tok)
	}
	for i, tok := range tokens {
		feedBounce(t, db, bounceOf(t, "forged", alice, "", fmt.Sprintf("forged%d@forger.example", i), "",
			"{{MADEUP}}", fmt.Sprintf("made-up-%d@localhost", i), "{{TOKENID}}", "lyngk."+tok+"@localhost"))
	}
	if got := adminBounces(t, db); got != "" {
		t.Errorf("forged reports counted: %s", got)
	}
	if r := process(t, db, rawMail{from: alice, subject: "lyngk show 101", id: "c9@test.example"}); len(r) != 1 || r[0].to != alice {
		t.Errorf("alice's answer after forged reports: %+v", r)
	}
}

// TestBounceEveryMail: real bounces of mails without reply token count:
// three RFC 3464 reports as Postfix writes them, of alice's welcome mail
// and of the answers to two of her commands, mark her address bouncing;
// the same welcome mail bounced again counts once; three qmail bounces of
// bob's mails mark his. A report naming alice's welcome mail but bob's
// address counts nothing. alice's next mail lifts the mark for one more
// try and its answer says so first.
func TestBounceEveryMail(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	alice, bob := "alice@example.com", "bob@example.org"
	welcome := signupConfirmed(t, db, alice, "alice", "secret1", "s1@test.example")
	bobWelcome := signupConfirmed(t, db, bob, "bob", "secret2", "s2@test.example")
	ids := []string{welcome.MessageID}
	bobIDs := []string{bobWelcome.MessageID}
	for i, subject := range []string{"lyngk ratings", "lyngk games"} {
		for _, p := range []struct {
			from string
			ids  *[]string
		}{{alice, &ids}, {bob, &bobIDs}} {
			r := process(t, db, rawMail{from: p.from, subject: subject, id: fmt.Sprintf("%s%d@test.example", p.from, i)})
			if len(r) != 1 || strings.HasPrefix(r[0].MessageID, "lyngk.") {
				t.Fatalf("%s from %s: %+v", subject, p.from, r)
			}
			*p.ids = append(*p.ids, r[0].MessageID)
		}
	}
	feedBounce(t, db, bounceOf(t, "postfix", bob, ids[0], "x@localhost", "lyngk@localhost"))
	if got := adminBounces(t, db); got != "" {
		t.Fatalf("bob's address with alice's mail counted: %s", got)
	}
	// The welcome mail twice, then the two answers.
	for i, id := range []string{ids[0], ids[0], ids[1], ids[2]} {
		feedBounce(t, db, bounceOf(t, "postfix", alice, id, fmt.Sprintf("pf%d@localhost", i), "lyngk@localhost"))
	}
	for i, id := range bobIDs {
		feedBounce(t, db, bounceOf(t, "qmail", bob, id, fmt.Sprintf("q%d@localhost", i), "lyngk@localhost"))
	}
	day := time.Now().UTC().Format(time.DateOnly)
	if got, want := adminBounces(t, db), fmt.Sprintf("%s bouncing since %s 3 0 - %s bouncing since %s 3 0 -", alice, day, bob, day); got != want {
		t.Fatalf("admin bounces: %q, want %q", got, want)
	}
	r := process(t, db, rawMail{from: alice, subject: "lyngk ratings", id: "again@test.example"})
	if len(r) != 1 || !strings.HasPrefix(r[0].Body, "Mail to "+alice+" bounced: 3 mails within 14 days") {
		t.Fatalf("answer to alice's mail while bouncing: %+v", r)
	}
	if got, want := adminBounces(t, db), fmt.Sprintf("%s bouncing since %s 3 0 -", bob, day); !strings.HasPrefix(got, want) || strings.Contains(got, alice+" bouncing") {
		t.Errorf("after alice's mail: %q, want her mark lifted", got)
	}
	// One more bounce marks her again.
	feedBounce(t, db, bounceOf(t, "postfix", alice, r[0].MessageID, "pf9@localhost", "lyngk@localhost"))
	if got := adminBounces(t, db); !strings.HasPrefix(got, alice+" bouncing since") {
		t.Errorf("after one more bounce: %q, want alice bouncing", got)
	}
}

// TestBouncePauses: alice's only address bounces (three real bounces)
// while she is to make her first move: 30 days later her game still runs,
// where the timers cancel a game whose player never moved after 21 days.
func TestBouncePauses(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	alice, bob := "alice@example.com", "bob@example.org"
	ids := []string{signupConfirmed(t, db, alice, "alice", "secret1", "s1@test.example").MessageID}
	signupConfirmed(t, db, bob, "bob", "secret2", "s2@test.example")
	r := process(t, db, rawMail{from: alice, subject: "lyngk challenge alice bob", id: "ch@test.example"})
	for _, m := range r {
		if m.to == alice {
			ids = append(ids, m.MessageID)
		}
	}
	r = process(t, db, rawMail{from: alice, subject: "lyngk ratings", id: "rt@test.example"})
	if len(ids) != 2 || len(r) != 1 {
		t.Fatalf("want alice's welcome and board mail, and an answer: %q, %+v", ids, r)
	}
	ids = append(ids, r[0].MessageID)
	for i, id := range ids {
		feedBounce(t, db, bounceOf(t, "postfix", alice, id, fmt.Sprintf("pf%d@localhost", i), "lyngk@localhost"))
	}
	a := testApp(t, db)
	var turn int
	err := a.db.View(func(tx *store.Tx) error {
		gs, err := a.eng.ListGames(tx, engine.GameFilter{Users: []string{"alice"}, State: engine.StateActive})
		if len(gs) == 1 && gs[0].Moves == 0 {
			turn = gs[0].ToMove
			if gs[0].Players[turn-1] != "alice" {
				turn = -turn
			}
		}
		return err
	})
	if err != nil || turn <= 0 {
		t.Fatalf("want one game with alice to make the first move (turn %d): %v", turn, err)
	}
	a.now = func() time.Time { return time.Now().Add(30 * 24 * time.Hour) }
	if err := a.tick(); err != nil {
		t.Fatal(err)
	}
	err = a.db.View(func(tx *store.Tx) error {
		gs, err := a.eng.ListGames(tx, engine.GameFilter{Users: []string{"alice"}, State: engine.StateAll})
		if err == nil && (len(gs) != 1 || gs[0].Over()) {
			t.Errorf("after 30 days of a bouncing address: %+v, want the game running", gs)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestBounceVERPTag: with bounce_verp the welcome mail leaves from
// lyngk+b-TAG@localhost, TAG the HMAC of alice's address; a bounce to it
// counts whatever address it names (a forward's) and whatever mail, and a
// bounce to a forged tag (another of the same form, or alice's with a
// letter changed) counts nothing.
func TestBounceVERPTag(t *testing.T) {
	a := testApp(t, filepath.Join(t.TempDir(), "lyngk.db"))
	a.verp = true
	var sent []daemon.Outgoing
	deliver := func(tx *store.Tx, m daemon.Outgoing, now time.Time) error { sent = append(sent, m); return nil }
	apply := func(raw []byte) {
		t.Helper()
		if _, err := a.apply(context.Background(), raw, deliver); err != nil {
			t.Fatal(err)
		}
	}
	alice := "alice@example.com"
	apply(rawMail{from: alice, subject: "signup alice secret1", id: "s1@test.example"}.bytes())
	if len(sent) != 1 || sent[0].From != "lyngk@localhost" {
		t.Fatalf("confirmation mail to a stranger: %+v", sent)
	}
	apply(confirmReply(alice, daemon.MessageIDOf(sent[0].Data), "s1c@test.example").bytes())
	if len(sent) != 2 || !strings.HasPrefix(sent[1].From, "lyngk+b-") {
		t.Fatalf("welcome mail: %+v", sent)
	}
	verp := sent[1].From
	tag := strings.TrimSuffix(strings.TrimPrefix(verp, "lyngk+b-"), "@localhost")
	forged := []string{"lyngk+b-" + strings.Repeat("a", len(tag)) + "@localhost", "lyngk+b-" + tag[:len(tag)-1] + "x@localhost"}
	if strings.HasSuffix(tag, "x") {
		forged[1] = "lyngk+b-" + tag[:len(tag)-1] + "y@localhost"
	}
	for i, to := range forged {
		for j := range 3 {
			apply(bounceOf(t, "postfix", "fwd@other.example", fmt.Sprintf("m%d%d@localhost", i, j), fmt.Sprintf("f%d%d@x", i, j), to))
		}
	}
	if l := a.bounceList(t); l != "" {
		t.Fatalf("bounces to forged VERP addresses counted: %s", l)
	}
	for j := range 3 {
		apply(bounceOf(t, "postfix", "fwd@other.example", fmt.Sprintf("m%d@localhost", j), fmt.Sprintf("b%d@x", j), verp))
	}
	if l := a.bounceList(t); !strings.HasPrefix(l, alice+" bouncing") {
		t.Errorf("bounces to alice's VERP address: %q, want her marked", l)
	}
}

// bounceList lists the bounce records, "ADDRESS bouncing|ok HARD" each.
func (a *app) bounceList(t *testing.T) string {
	t.Helper()
	var out []string
	err := a.db.View(func(tx *store.Tx) error {
		l, err := engine.Bounces(tx)
		for _, b := range l {
			state := "ok"
			if !b.Bouncing.IsZero() {
				state = "bouncing"
			}
			out = append(out, fmt.Sprintf("%s %s %d", b.Address, state, b.Hard))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, " ")
}
