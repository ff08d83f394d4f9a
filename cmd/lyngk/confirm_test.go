package main

import (
	"bytes"
	"fmt"
	netmail "net/mail"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/store"
)

// Shared helpers: players sign up and confirm their address as a player
// does, by replying to the confirmation mail.

// confirmReply is the reply of the confirmation mail's recipient to it:
// any text confirms.
// strangerRefusal begins every refusal to a stranger (engine: err.stranger).
const strangerRefusal = "Your mail to PBeM Server was refused"

func confirmReply(to, msgID, id string) rawMail {
	return rawMail{from: to, subject: "Re: Confirm PBeM Server signup", body: "Yes, that is me.\n", id: id, inReplyTo: msgID}
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
	if len(welcome) != 1 || welcome[0].to != addr || welcome[0].Subject != "PBeM Server signup "+user {
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

// TestProcessConfirm: through `lyngk process`, a signup is not a player
// until its address is confirmed; a challenge naming it is refused and no
// game mail goes to the address; the confirm command with the code of the
// mail confirms it, and the welcome mail follows.
func TestProcessConfirm(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	signupConfirmed(t, db, "alice@example.com", "alice", "pw1", "a@test.example")
	ask := process(t, db, rawMail{from: "bob@example.org", subject: "signup bob pw2", id: "b@test.example"})
	if len(ask) != 1 || ask[0].Subject != "Confirm PBeM Server signup bob" || ask[0].to != "bob@example.org" ||
		!strings.HasPrefix(ask[0].MessageID, "lyngk-confirm.") {
		t.Fatalf("signup: %+v", ask)
	}
	r := process(t, db, rawMail{from: "alice@example.com", subject: "lyngk challenge alice bob", id: "c@test.example"})
	if len(r) != 1 || r[0].to != "alice@example.com" || !strings.HasPrefix(r[0].Body, "bob cannot play yet") {
		t.Fatalf("challenge of an unconfirmed account: %+v", r)
	}
	code := strings.Fields(ask[0].Body[strings.Index(ask[0].Body, "\n  confirm bob "):])[2]
	if code != strings.TrimSuffix(strings.TrimPrefix(ask[0].MessageID, "lyngk-confirm."), "@localhost") {
		t.Fatalf("the code %q is not the one of the Message-ID %s", code, ask[0].MessageID)
	}
	r = process(t, db, rawMail{from: "bob@example.org", subject: "confirm bob " + code, id: "d@test.example"})
	if len(r) != 1 || r[0].Subject != "PBeM Server signup bob" || r[0].to != "bob@example.org" {
		t.Fatalf("confirm command: %+v", r)
	}
	r = process(t, db, rawMail{from: "alice@example.com", subject: "lyngk challenge alice bob", id: "e@test.example"})
	if len(r) != 2 || r[1].to != "bob@example.org" {
		t.Fatalf("challenge after confirmation: %+v", r)
	}
}

// TestProcessAddressSyntax: the measured abuse cases: a quoted local
// part and an IP literal are refused at signup, with an error to the
// sender and no account; NAME@localhost, the robot's own domain in local
// mode, is accepted. The sender is a stranger: the error names nothing he
// typed.
func TestProcessAddressSyntax(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	for i, c := range []struct{ subject, want string }{
		{`signup ad0 PW "evil@attacker.test"@victim.test`, `""evil@attacker.test"@victim.test" is not a plain mail address.`},
		{`signup ad1 PW ad1@[192.0.2.1]`, `"ad1@[192.0.2.1]" is not a plain mail address.`},
		{`signup ad2 PW ad2@192.0.2.1`, `"ad2@192.0.2.1" is not a plain mail address.`},
	} {
		r := process(t, db, rawMail{from: "mallory@example.org", subject: c.subject, id: fmt.Sprintf("s%d@test.example", i)})
		if len(r) != 1 || r[0].to != "mallory@example.org" || !strings.HasPrefix(r[0].Body, strangerRefusal) ||
			strings.Contains(r[0].Body, strings.Fields(c.subject)[3]) {
			t.Errorf("%s: want the refusal without %q to the sender, got %+v", c.subject, c.want, r)
		}
	}
	r := process(t, db, rawMail{from: "mallory@example.org", subject: "signup zed pw zed@localhost", id: "z@test.example"})
	if len(r) != 1 || r[0].to != "zed@localhost" || r[0].Subject != "Confirm PBeM Server signup zed" {
		t.Errorf("NAME@localhost: %+v", r)
	}
	withDB(t, db, func(db *store.DB) {
		err := db.View(func(tx *store.Tx) error {
			us, err := engine.Users(tx)
			if len(us) != 1 || us[0].ID != "zed" {
				t.Errorf("accounts: %+v", us)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// TestProcessUpgradesStore: a store of schema version 1 (before confirmed
// addresses) is upgraded by `lyngk process`: its accounts count as
// confirmed and play at once, and the file is at version 3 after.
func TestProcessUpgradesStore(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	signupConfirmed(t, db, "alice@example.com", "alice", "pw1", "a@test.example")
	signupConfirmed(t, db, "bob@example.org", "bob", "pw2", "b@test.example")
	// Make it a version 1 file: no index of confirmed addresses, no
	// confirmation codes, the old version number.
	raw, err := bolt.Open(db, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = raw.Update(func(tx *bolt.Tx) error {
		for _, b := range []string{store.BucketAddresses, store.BucketConfirms} {
			if err := tx.DeleteBucket([]byte(b)); err != nil {
				return err
			}
		}
		return tx.Bucket([]byte(store.BucketMeta)).Put([]byte("schema"), []byte("1"))
	})
	raw.Close()
	if err != nil {
		t.Fatal(err)
	}
	r := process(t, db, rawMail{from: "alice@example.com", subject: "lyngk challenge alice bob", id: "c@test.example"})
	if len(r) != 2 || r[1].to != "bob@example.org" || r[1].Subject != "New Lyngk Board 101 alice" {
		t.Fatalf("challenge after the upgrade: %+v", r)
	}
	withDB(t, db, func(db *store.DB) {
		err := db.View(func(tx *store.Tx) error {
			v, err := tx.Get(store.BucketMeta, "schema")
			if string(v) != "7" {
				t.Errorf("schema %q after the upgrade, want 7", v)
			}
			for _, a := range []string{"alice@example.com", "bob@example.org"} {
				ok, err := engine.ConfirmedAddress(tx, a)
				if err != nil {
					return err
				}
				if !ok {
					t.Errorf("%s is not confirmed after the upgrade", a)
				}
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}
