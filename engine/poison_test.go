package engine_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/store"
	"lyngk.example/lyngk/templates"
)

// brokenTemplates loads the templates with overrides: file name → text.
func brokenTemplates(t *testing.T, files map[string]string) func(*engine.Config) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	set, err := templates.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return func(c *engine.Config) { c.Templates = set }
}

// TestPoisonMail: a mail that fails inside the engine for
// a reason of its own is answered with the internal error and changes
// nothing, not even the commands before the failing one; Handle reports the
// failure apart from a store error, and the next mail is handled as usual.
func TestPoisonMail(t *testing.T) {
	v := newEnv(t, brokenTemplates(t, map[string]string{
		"lists.tmpl": `{{define "standings.body"}}{{.NoSuchField}}{{end}}`,
	}))
	in := engine.Inbound{MessageID: "poison@players.example", From: "carol@example.com", Subject: "multiple",
		Body: "signup carol pw3\nlyngk standings\n"}
	out, failed := v.mailFailing(in)
	if failed == nil || !strings.Contains(failed.Error(), "NoSuchField") {
		t.Fatalf("failure = %v, want the template's error", failed)
	}
	if len(out) != 1 || out[0].To[0] != "carol@example.com" || out[0].Subject != "PBeM Server error" ||
		!strings.Contains(out[0].Body, "internal error") || out[0].InReplyTo != "" ||
		strings.Contains(out[0].Body, "multiple") { // carol is a stranger yet: no quote, not even her Message-ID (no backscatter)
		t.Fatalf("answer to the poison mail: %+v", out)
	}
	// The signup before the failing command was not applied.
	if got := v.cmd("carol@example.com", "signup carol pw3"); len(got) != 1 || got[0].Subject != "Confirm PBeM Server signup carol" {
		t.Fatalf("signup after the poison mail: %+v", got)
	}
	// A stranger's poison mails are answered within the strangers' hourly
	// allowance, then silence.
	answers := 0
	for i := range engine.StrangerPerHour + 2 {
		out, failed := v.mailFailing(engine.Inbound{MessageID: fmt.Sprintf("p%d@players.example", i),
			From: "dave@example.com", Subject: "lyngk standings"})
		if failed == nil {
			t.Fatal("no failure")
		}
		answers += len(out)
	}
	if answers != engine.StrangerPerHour {
		t.Fatalf("a stranger got %d internal-error answers in an hour, want %d", answers, engine.StrangerPerHour)
	}
	// Automatic mail stays unanswered even when it would fail.
	if out, failed := v.mailFailing(engine.Inbound{From: "carol@example.com", Subject: "lyngk standings",
		Auto: "auto-replied"}); out != nil || failed != nil {
		t.Fatalf("automatic mail: %v %v", out, failed)
	}
}

// TestPoisonMailErrorTemplate: when the error mail itself does not render,
// the sender still gets the fixed internal-error text.
func TestPoisonMailErrorTemplate(t *testing.T) {
	v := newEnv(t, brokenTemplates(t, map[string]string{
		"error.tmpl": `{{define "error.body"}}{{.Missing}}{{end}}`,
	}))
	out, failed := v.mailFailing(engine.Inbound{From: "dan@example.com", Subject: "help frobnicate"})
	if failed == nil {
		t.Fatal("no failure")
	}
	if len(out) != 1 || out[0].Subject != "PBeM Server error" || !strings.HasPrefix(out[0].Body, "Your mail could not be processed") {
		t.Fatalf("answer: %+v", out)
	}
}

// faultyTx is a store transaction that panics or fails on reading one
// bucket.
type faultyTx struct {
	*store.Tx
	bucket string
	fail   error // nil: panic
}

func (f faultyTx) Get(bucket, key string) ([]byte, error) {
	if bucket == f.bucket {
		if f.fail == nil {
			panic("faultyTx: " + bucket + "/" + key)
		}
		return nil, f.fail
	}
	return f.Tx.Get(bucket, key)
}

// TestPoisonMailPanic: a panic is one mail's failure; a store error is the
// store's, returned as an error with no mails.
func TestPoisonMailPanic(t *testing.T) {
	v := newEnv(t)
	v.signupAt("alice@example.com", "alice", "pw1")
	v.signupAt("bob@example.com", "bob", "pw2")
	v.cmd("alice@example.com", "lyngk challenge alice bob")
	errDisk := errors.New("disk on fire")
	for _, tc := range []struct {
		fail      error
		wantMails int
	}{{nil, 1}, {errDisk, 0}} {
		err := v.db.Update(func(tx *store.Tx) error {
			out, failed, err := v.e.Handle(faultyTx{tx, "games", tc.fail},
				engine.Inbound{From: "alice@example.com", Subject: "lyngk show 101"}, v.now)
			if len(out) != tc.wantMails {
				t.Errorf("fail %v: %d mails, want %d: %+v", tc.fail, len(out), tc.wantMails, out)
			}
			if tc.fail == nil && (failed == nil || !strings.Contains(failed.Error(), "panic: faultyTx: games/00000101") || err != nil) {
				t.Errorf("panic: failed %v, err %v", failed, err)
			}
			if tc.fail != nil && (failed != nil || !errors.Is(err, errDisk)) {
				t.Errorf("store error: failed %v, err %v", failed, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestMultipleSeesOwnWrites: the writes of a mail are held back until it is
// handled whole, yet its later commands see them (the listing after the
// challenge in one mail shows the new game).
func TestMultipleSeesOwnWrites(t *testing.T) {
	v := newEnv(t)
	v.signupAt("alice@example.com", "alice", "pw1")
	v.signupAt("bob@example.com", "bob", "pw2")
	out := v.mail(engine.Inbound{From: "alice@example.com", Subject: "multiple",
		Body: "lyngk challenge alice bob\nlyngk challenge bob alice\nlyngk games\n"})
	last := out[len(out)-1]
	if last.Subject != "Lyngk games" || !strings.Contains(last.Body, "101") || !strings.Contains(last.Body, "102") {
		t.Fatalf("games listing in the same mail as the challenges: %+v", last)
	}
}

// TestPoisonTimer: a game whose timer fails (here its reminder does not
// render, and another game's record does not decode) is left as it was
// and reported; the other games' reminders still go out.
func TestPoisonTimer(t *testing.T) {
	v := newEnv(t, brokenTemplates(t, map[string]string{
		"board.tmpl": `{{define "nag.subject"}}{{if eq .Board 102}}{{.NoSuchField}}{{end}}Nag: Lyngk Board {{.Board}} {{.ToMove}}{{end}}`,
	}))
	v.signup("alice", "bob")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	v.cmd(addr("alice"), "lyngk challenge bob alice")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	if err := v.db.Update(func(tx *store.Tx) error { return tx.Put("games", "00000103", []byte("{not json")) }); err != nil {
		t.Fatal(err)
	}
	v.now = v.now.Add(7 * day)
	out, failed := v.tickFailing()
	if len(out) != 1 || out[0].Subject != "Nag: Lyngk Board 101 alice" {
		t.Fatalf("reminders: %+v", out)
	}
	if failed == nil || !strings.Contains(failed.Error(), "timer of board 102") || !strings.Contains(failed.Error(), "games/00000103") {
		t.Fatalf("failures: %v", failed)
	}
	// Board 102 was not marked as nagged: it is tried again.
	v.now = v.now.Add(time.Minute)
	if _, failed := v.tickFailing(); failed == nil || !strings.Contains(failed.Error(), "timer of board 102") {
		t.Fatalf("board 102 not tried again: %v", failed)
	}
}
