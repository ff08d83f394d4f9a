package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/lyngk"
)

// TestProcessLockout: 100 forged senders each guess alice's password
// through `lyngk process`. The first ten get "Wrong password", the tenth
// also tells alice, once; the other ninety, and alice herself with the right
// password, are refused unchecked. A move by reply still works.
func TestProcessLockout(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	alice, bob := "alice@example.com", "bob@example.org"
	process(t, db, rawMail{from: alice, subject: "signup alice Sesame-1", id: "s1@test.example"})
	process(t, db, rawMail{from: bob, subject: "signup bob Sesame-2", id: "s2@test.example"})
	boards := process(t, db, rawMail{from: bob, subject: "lyngk challenge alice bob", id: "c1@test.example"})
	if len(boards) != 2 || boards[0].to != alice {
		t.Fatalf("challenge: %+v", boards)
	}

	const notice = "Lyngk account alice: password commands locked"
	notices := 0
	for i := range 100 {
		from := fmt.Sprintf("mallory%d@forged.example", i)
		replies := process(t, db, rawMail{from: from, subject: fmt.Sprintf("vacation alice guess-%d on", i),
			id: fmt.Sprintf("g%d@forged.example", i)})
		want := "Wrong password for alice."
		if i >= engine.MaxWrongPasswords {
			want = "Too many wrong passwords for alice: its password commands are refused,\nunchecked, until "
		}
		answers := 0
		for _, r := range replies {
			switch {
			case r.to == from && strings.HasPrefix(r.Body, want):
				answers++
			case r.to == alice && r.Subject == notice && i == engine.MaxWrongPasswords-1 &&
				strings.Contains(r.Body, "10 wrong passwords for alice within an hour"):
				notices++
			default:
				t.Fatalf("guess %d: unexpected mail to %s %q:\n%s", i, r.to, r.Subject, r.Body)
			}
		}
		if answers != 1 {
			t.Fatalf("guess %d: %d answers %q to the sender, want 1", i, answers, want)
		}
	}
	if notices != 1 {
		t.Fatalf("alice was told %d times, want once", notices)
	}
	if r := process(t, db, rawMail{from: alice, subject: "vacation alice Sesame-1 on", id: "v1@test.example"}); len(r) != 1 ||
		!strings.HasPrefix(r[0].Body, "Too many wrong passwords for alice") {
		t.Fatalf("right password during the lockout: %+v", r)
	}

	g := lyngk.New(101, lyngk.Standard)
	mv := g.Legal(nil)[0]
	replies := process(t, db, rawMail{from: alice, subject: "Re: " + boards[0].Subject, body: mv.String() + "\n",
		inReplyTo: boards[0].MessageID, id: "r1@test.example"})
	if len(replies) != 2 || replies[0].Subject != "Lyngk Board 101 bob" {
		t.Fatalf("move by reply during the lockout: %+v", replies)
	}
}
