package main

import (
	"bytes"
	netmail "net/mail"
	"slices"
	"strings"
	"testing"

	"lyngk.example/lyngk/store"
)

// Shared helpers: players sign up and confirm their address as a player
// does, by replying to the confirmation mail.

// confirmReply is the reply of the confirmation mail's recipient to it:
// any text confirms.
func confirmReply(to, msgID, id string) rawMail {
	return rawMail{from: to, subject: "Re: Confirm Lyngk signup", body: "Yes, that is me.\n", id: id, inReplyTo: msgID}
}

// signupConfirmed signs user up through `lyngk process` from addr, replies
// to the confirmation mail and returns the welcome mail. The mails get the
// Message-IDs id and id+".c".
func signupConfirmed(t *testing.T, db, addr, user, pw, id string) reply {
	t.Helper()
	ask := process(t, db, rawMail{from: addr, subject: "signup " + user + " " + pw, id: id})
	if len(ask) != 1 || ask[0].to != addr || !strings.HasPrefix(ask[0].Subject, "Confirm ") {
		t.Fatalf("signup %s: want a confirmation mail to %s, got %+v", user, addr, ask)
	}
	welcome := process(t, db, confirmReply(addr, ask[0].MessageID, id+".c"))
	if len(welcome) != 1 || welcome[0].to != addr || welcome[0].Subject != "Lyngk signup "+user {
		t.Fatalf("confirm %s: want the welcome mail to %s, got %+v", user, addr, welcome)
	}
	return welcome[0]
}

// queuedConfirm returns the Message-ID of the newest confirmation mail to
// addr in the outbox of db, for tests that queue their replies.
func queuedConfirm(tb testing.TB, db *store.DB, addr string) string {
	tb.Helper()
	var id string
	err := db.View(func(tx *store.Tx) error {
		out, err := tx.Outbox()
		for _, m := range out {
			h, err := netmail.ReadMessage(bytes.NewReader(m.Data))
			if err != nil {
				return err
			}
			if slices.Contains(m.To, addr) && strings.HasPrefix(h.Header.Get("Subject"), "Confirm ") {
				id = strings.Trim(h.Header.Get("Message-ID"), "<>")
			}
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	if id == "" {
		tb.Fatalf("no confirmation mail to %s in the outbox", addr)
	}
	return id
}

// withDB runs f on the store file at path, opened and closed around it.
func withDB(tb testing.TB, path string, f func(db *store.DB)) {
	tb.Helper()
	db, err := store.Open(path, store.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	f(db)
}
