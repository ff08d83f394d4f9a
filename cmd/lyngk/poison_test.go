package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-smtp"

	"lyngk.example/lyngk/engine/daemon"
	"lyngk.example/lyngk/mailer"
	"lyngk.example/lyngk/mailer/localmail"
	"lyngk.example/lyngk/mailer/mailtest"
	"lyngk.example/lyngk/store"
)

// poisonTemplates is a template override that fails for one command:
// `lyngk standings` refers to a field its data does not have.
func poisonTemplates(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lists.tmpl"), []byte(`{{define "standings.body"}}{{.NoSuchField}}{{end}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// batchApp is an app on a fresh store with the poison template override.
func batchApp(t *testing.T, logs io.Writer) *app {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "lyngk.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	cfg := defaultConfig()
	cfg.TemplatesDir = poisonTemplates(t)
	eng, err := newEngine(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &app{db: db, eng: eng, robot: cfg.Server, log: slog.New(slog.NewTextHandler(logs, nil)), now: time.Now}
}

// seen reports whether the store has recorded the mail raw.
func seen(t *testing.T, db *store.DB, raw []byte) bool {
	t.Helper()
	in, err := mailer.Parse(bytes.NewReader(raw), maxMailSize)
	if err != nil {
		t.Fatal(err)
	}
	var ok bool
	if err := db.View(func(tx *store.Tx) (err error) { ok, err = tx.Seen(dedupeKey(in, raw)); return err }); err != nil {
		t.Fatal(err)
	}
	return ok
}

// TestApplyBatchPoison: a mail that fails inside the engine
// is answered with the internal error and set aside, while the good mails of
// its batch are applied in the same transaction.
func TestApplyBatchPoison(t *testing.T) {
	var logs bytes.Buffer
	a := batchApp(t, &logs)
	raws := [][]byte{
		rawMail{from: "dora@example.com", subject: "signup dora pw", id: "g1@test.example"}.bytes(),
		rawMail{from: "ed@example.com", subject: "multiple", body: "signup ed pw\nlyngk standings\n", id: "poison@test.example"}.bytes(),
		rawMail{from: "fay@example.com", subject: "help", id: "g2@test.example"}.bytes(),
	}
	var to []string
	got, err := a.applyBatch(context.Background(), raws, func(tx *store.Tx, m daemon.Outgoing, now time.Time) error {
		in, err := mailer.Parse(bytes.NewReader(m.Data), maxMailSize)
		to = append(to, m.To[0]+" "+in.Subject)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []outcome{outcomeApplied, outcomeFailed, outcomeApplied}; !slices.Equal(got, want) {
		t.Fatalf("outcomes %v, want %v", got, want)
	}
	if want := []string{"dora@example.com Confirm PBeM Server signup dora", "ed@example.com PBeM Server error", "fay@example.com PBeM Server help"}; !slices.Equal(to, want) {
		t.Fatalf("replies %q, want %q", to, want)
	}
	if !seen(t, a.db, raws[1]) {
		t.Fatal("the poison mail is not recorded: it would be tried again")
	}
	if !strings.Contains(logs.String(), "level=ERROR msg=mail outcome=failed message_id=poison@test.example") ||
		!strings.Contains(logs.String(), "NoSuchField") {
		t.Fatalf("log:\n%s", logs.String())
	}
}

// TestApplyBatchOneByOne: when the batch's transaction
// fails, its mails are applied one at a time: a mail that panics outside the
// engine is set aside (recorded, logged), one the store refuses stops there
// with the error, and every mail before it is applied.
func TestApplyBatchOneByOne(t *testing.T) {
	var logs bytes.Buffer
	a := batchApp(t, &logs)
	errDisk := errors.New("disk full")
	mail := func(i int, from string) []byte {
		return rawMail{from: from, subject: "help", id: fmt.Sprintf("m%d@test.example", i)}.bytes()
	}
	raws := [][]byte{mail(1, "dora@example.com"), mail(2, "panic@example.com"), mail(3, "fay@example.com"),
		mail(4, "full@example.com"), mail(5, "gus@example.com")}
	var delivered []string
	deliver := func(tx *store.Tx, m daemon.Outgoing, now time.Time) error {
		switch m.To[0] {
		case "panic@example.com":
			panic("composing went wrong")
		case "full@example.com":
			return errDisk
		}
		delivered = append(delivered, m.To[0])
		return nil
	}
	got, err := a.applyBatch(context.Background(), raws, deliver)
	if !errors.Is(err, errDisk) {
		t.Fatalf("err = %v, want the store's", err)
	}
	if want := []outcome{outcomeApplied, outcomeFailed, outcomeApplied}; !slices.Equal(got, want) {
		t.Fatalf("outcomes %v, want %v (the rest left for a retry)", got, want)
	}
	// Replies of the rolled-back batch transaction do not count: a deliver
	// function in a real transaction would have lost them with it.
	if n := len(delivered); n < 2 || delivered[n-2] != "dora@example.com" || delivered[n-1] != "fay@example.com" {
		t.Fatalf("delivered %v", delivered)
	}
	for i, raw := range raws {
		if want := i < 3; seen(t, a.db, raw) != want {
			t.Errorf("m%d@test.example recorded = %v, want %v", i+1, !want, want)
		}
	}
	if !strings.Contains(logs.String(), "batch not applied: applying its mails one at a time") ||
		!strings.Contains(logs.String(), "message_id=m2@test.example") || !strings.Contains(logs.String(), "composing went wrong") {
		t.Fatalf("log:\n%s", logs.String())
	}
}

// robotMailbox returns the subjects of the mails in one folder of the
// robot's local mailbox.
func robotMailbox(t *testing.T, s *served, folder string) []string {
	t.Helper()
	pw := waitText(t, s.stdout, `its mailbox: password ([a-z2-7]+)`)
	msgs := mailtest.FetchIfSelectable(t, s.imap, "lyngk@localhost", pw, folder, &imap.FetchOptions{Envelope: true})
	var out []string
	for _, m := range msgs {
		out = append(out, m.Envelope.Subject)
	}
	return out
}

// deliverWhileStopped puts mails into the robot's local INBOX while no
// daemon runs, so that the next `lyngk serve` fetches them in one batch.
func deliverWhileStopped(t *testing.T, dataDir string, mails ...rawMail) {
	t.Helper()
	l, err := localmail.StartLocal(context.Background(), localmail.LocalConfig{SMTPAddr: "127.0.0.1:0", IMAPAddr: "127.0.0.1:0",
		Server: "lyngk@localhost", Dir: dataDir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, m := range mails {
		c, err := smtp.Dial(l.SMTPAddr())
		if err != nil {
			t.Fatal(err)
		}
		if err := c.SendMail(m.from, []string{"lyngk@localhost"}, bytes.NewReader(m.bytes())); err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
}

// TestServePoisonMail through `lyngk serve` in local mode,
// with a template override that fails for `lyngk standings`: three mails
// wait in the robot's INBOX when the daemon starts, and are fetched and
// applied as one batch; the good mails around the poison one are applied,
// the poison one is answered with the internal error and moved to Rejected,
// and the inbox keeps flowing. The senders are strangers: alice asks for
// list, whose answer a stranger gets (not his listings); bob's
// standings runs though it would answer him nothing, and its failure is
// the mail's, answered with the fixed internal-error text.
func TestServePoisonMail(t *testing.T) {
	cfg := defaultConfig()
	cfg.DataDir = t.TempDir()
	cfg.TemplatesDir = poisonTemplates(t)
	deliverWhileStopped(t, cfg.DataDir,
		// No signup: its new password is hashed in the password lane,
		// apart from the batch (passwords.go).
		rawMail{from: "alice@localhost", subject: "list", id: "1.alice@client.example"},
		rawMail{from: "bob@localhost", subject: "lyngk standings", id: "2.bob@client.example"},
		rawMail{from: "carol@localhost", subject: "help", id: "3.carol@client.example"})
	s := startServe(t, cfg)
	alice := localPlayer{t: t, name: "alice", smtp: s.smtp, imap: s.imap}
	bob := localPlayer{t: t, name: "bob", smtp: s.smtp, imap: s.imap}
	carol := localPlayer{t: t, name: "carol", smtp: s.smtp, imap: s.imap}
	if got := alice.await(1); got.Subject != "PBeM Server help list" {
		t.Fatalf("alice got %q", got.Subject)
	}
	if got := bob.await(1); got.Subject != "PBeM Server error" || !strings.Contains(got.Body, "internal error") {
		t.Fatalf("bob got %q:\n%s", got.Subject, got.Body)
	}
	if got := carol.await(1); got.Subject != "PBeM Server help" {
		t.Fatalf("carol got %q", got.Subject)
	}
	waitText(t, s.logs, `level=ERROR msg=mail outcome=failed message_id=2\.bob@client\.example from=bob@localhost replies=1 batch=3 error=".*NoSuchField`)
	for _, id := range []string{"1.alice", "3.carol"} {
		waitText(t, s.logs, `msg=mail outcome=applied message_id=`+regexp.QuoteMeta(id)+`@client\.example .* batch=3`)
	}
	// The inbox keeps flowing.
	carol.send("signup carol Sesame-7ab", "", "")
	if got := carol.await(2); got.Subject != "Confirm PBeM Server signup carol" {
		t.Fatalf("carol got %q", got.Subject)
	}
	// Each mail is moved once its answer is committed, a moment after the
	// answer is delivered: the test waits for the moves.
	for deadline := time.Now().Add(patience); ; time.Sleep(20 * time.Millisecond) {
		rejected, processed := robotMailbox(t, s, "Rejected"), robotMailbox(t, s, "Processed")
		if slices.Equal(rejected, []string{"lyngk standings"}) && len(processed) == 3 {
			break
		}
		if len(rejected) > 1 || len(processed) > 3 || time.Now().After(deadline) {
			t.Fatalf("Rejected holds %q, want the poison mail; Processed holds %q, want the 3 good mails", rejected, processed)
		}
	}
}
