package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/mailer"
)

// aliceAnswers signs alice and bob up in db and returns the answer to
// each of alice's three commands (her challenge of bob, then two shows of
// game 101), the first mail of each, which goes to her.
func aliceAnswers(t *testing.T, db, alice, bob string) []reply {
	t.Helper()
	signupConfirmed(t, db, alice, "alice", "secret1", "s1@test.example")
	signupConfirmed(t, db, bob, "bob", "secret2", "s2@test.example")
	var answers []reply
	for i, subject := range []string{"lyngk challenge alice bob", "lyngk show 101", "lyngk show 101"} {
		r := process(t, db, rawMail{from: alice, subject: subject, id: fmt.Sprintf("c%d@test.example", i)})
		if len(r) == 0 || r[0].to != alice {
			t.Fatalf("%s: %+v", subject, r)
		}
		answers = append(answers, r[0])
	}
	return answers
}

// TestProcessBounce: Gmail's DSN (mailer/testdata/bounces/gmail-dsn.eml)
// for three of alice's board mails, through `lyngk process`, without VERP:
// each is matched by the returned Message-ID (recorded as sent to her) to
// her address, the third marks it bouncing (`lyngk admin bounces`), no
// bounce is answered, bob's command is answered, and her own next command
// lifts the mark and is answered with a note saying so. A bounce of her
// mail that names bob's address matches nothing.
func TestProcessBounce(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	alice, bob := "alice@example.com", "bob@example.org"
	var ids []string
	for _, r := range aliceAnswers(t, db, alice, bob) {
		if !strings.HasPrefix(r.MessageID, "lyngk.") {
			t.Fatalf("Message-ID %q: want the server's", r.MessageID)
		}
		ids = append(ids, r.MessageID)
	}
	tmpl, err := os.ReadFile(filepath.Join("..", "..", "mailer", "testdata", "bounces", "gmail-dsn.eml"))
	if err != nil {
		t.Fatal(err)
	}
	dsn := func(n int, id, rcpt string) []byte {
		return []byte(strings.NewReplacer("dave.gone@gmail.com", rcpt, "lyngk-AB12CD34EF@example.org", id,
			"abcdGMR@mx.google.com", fmt.Sprintf("dsn%d@mx.google.com", n)).Replace(string(tmpl)))
	}
	feed := func(raw []byte) {
		t.Helper()
		var out, errb bytes.Buffer
		if rc := run([]string{"process", "-db", db, "-mbox", "-"}, bytes.NewReader(raw), &out, &errb); rc != 0 || out.Len() != 0 {
			t.Fatalf("process: exit %d, answered %q: %s", rc, out.String(), errb.String())
		}
	}
	bounces := func() string {
		t.Helper()
		var out, errb bytes.Buffer
		if rc := run([]string{"admin", "-db", db, "bounces"}, nil, &out, &errb); rc != 0 || !strings.HasPrefix(out.String(), "ADDRESS ") {
			t.Fatalf("admin bounces: %d\n%s%s", rc, out.String(), errb.String())
		}
		_, rows, _ := strings.Cut(out.String(), "\n")
		return strings.Join(strings.Fields(rows), " ")
	}
	feed(dsn(0, ids[0], bob))
	if got := bounces(); got != "" {
		t.Errorf("bob's address with alice's mail matched: %s", got)
	}
	for i, id := range ids {
		feed(dsn(i+1, id, alice))
		want := fmt.Sprintf("%s ok %d 0 -", alice, i+1)
		if i == 2 {
			want = fmt.Sprintf("%s bouncing since %s 3 0 -", alice, time.Now().UTC().Format(time.DateOnly))
		}
		if got := bounces(); got != want {
			t.Errorf("after bounce %d: %q, want %q", i+1, got, want)
		}
	}
	// bob's mail about the game reaches bob only.
	if r := process(t, db, rawMail{from: bob, subject: "lyngk show 101", id: "c10@test.example"}); len(r) != 1 || r[0].to != bob {
		t.Errorf("bob's answer: %+v", r)
	}
	// Her own mail lifts the mark for one more try, and says so.
	if r := process(t, db, rawMail{from: alice, subject: "lyngk show 101", id: "c9@test.example"}); len(r) != 1 || !strings.HasPrefix(r[0].Body, "Mail to "+alice+" bounced:") {
		t.Errorf("answer to the bouncing address: %+v", r)
	}
}

// TestBounceOutcome: a recognised bounce goes to Processed; other
// automatic mail stays unanswered in Rejected.
func TestBounceOutcome(t *testing.T) {
	if got := mailerOutcome(outcomeBounce); got != mailer.Processed {
		t.Errorf("bounce goes to %v", got)
	}
	raw, err := os.ReadFile(filepath.Join("..", "..", "mailer", "testdata", "bounces", "out-of-office.eml"))
	if err != nil {
		t.Fatal(err)
	}
	if ms := parse([][]byte{raw}); ms[0].bounce != nil {
		t.Errorf("an out-of-office reply read as a bounce: %+v", ms[0].bounce)
	}
}
