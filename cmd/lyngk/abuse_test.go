package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/store"
)

// testApp opens the store at path for a test that needs the outcome of a
// mail, which `lyngk process` does not print.
func testApp(t *testing.T, path string) *app {
	t.Helper()
	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	cfg := defaultConfig()
	eng, err := newEngine(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &app{db: db, eng: eng, robot: cfg.Robot, log: slog.New(slog.NewTextHandler(io.Discard, nil)), now: time.Now}
}

// TestProcessLoopRules sends, from a signed-up player's address, a mail
// for each loop rule of RFC 3834, RFC 3464 and RFC 8098, each carrying a
// command that would otherwise be answered: none gets an answer, and each
// is ignored, which the daemon files in Rejected.
func TestProcessLoopRules(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "lyngk.db")
	if r := process(t, db, rawMail{from: "alice@example.com", subject: "signup alice pw", id: "s@test.example"}); len(r) != 1 {
		t.Fatalf("signup: %d replies", len(r))
	}
	cases := []struct {
		name string
		m    rawMail
	}{
		{"auto-submitted with a comment", rawMail{subject: "help", header: "Auto-Submitted: (comment) auto-replied\r\n"}},
		{"auto-submitted with an unknown value", rawMail{subject: "help", header: "Auto-Submitted: auto-notified\r\n"}},
		{"delivery status notification", rawMail{subject: "help", body: "--b\r\nContent-Type: text/plain\r\n\r\nhelp\r\n--b--\r\n",
			contentType: "multipart/report; report-type=delivery-status; boundary=b"}},
		{"read receipt", rawMail{subject: "help", body: "--b\r\nContent-Type: text/plain\r\n\r\nhelp\r\n--b--\r\n",
			contentType: "multipart/report; report-type=disposition-notification; boundary=b"}},
		{"list-unsubscribe alone", rawMail{subject: "help", header: "List-Unsubscribe: <mailto:leave@example.com>\r\n"}},
		{"list-post alone", rawMail{subject: "help", header: "List-Post: <mailto:all@example.com>\r\n"}},
		{"x-autoreply", rawMail{subject: "help", header: "X-Autoreply: yes\r\n"}},
		{"x-autorespond", rawMail{subject: "help", header: "X-Autorespond: yes\r\n"}},
		{"x-auto-response-suppress all", rawMail{subject: "help", header: "X-Auto-Response-Suppress: All\r\n"}},
		{"x-auto-response-suppress oof", rawMail{subject: "help", header: "X-Auto-Response-Suppress: DR, OOF\r\n"}},
		{"x-auto-response-suppress autoreply", rawMail{subject: "help", header: "X-Auto-Response-Suppress: AutoReply\r\n"}},
		{"precedence auto_reply", rawMail{subject: "help", header: "Precedence: auto_reply\r\n"}},
		{"out of office, English", rawMail{subject: "Out of Office: Lyngk Board 101 alice", body: "help\r\n"}},
		{"out of office, German", rawMail{subject: "Abwesenheitsnotiz: Lyngk Board 101 alice", body: "help\r\n"}},
		{"out of office, French", rawMail{subject: "=?UTF-8?Q?R=C3=A9ponse_automatique?= : Lyngk Board 101", body: "help\r\n"}},
		{"out of office, Spanish", rawMail{subject: "Respuesta automática: Lyngk Board 101", body: "help\r\n"}},
		{"out of office, Italian", rawMail{subject: "Risposta automatica: Lyngk Board 101", body: "help\r\n"}},
		{"out of office, Dutch", rawMail{subject: "Automatisch antwoord: Lyngk Board 101", body: "help\r\n"}},
		{"out of office, Portuguese", rawMail{subject: "Resposta automática: Lyngk Board 101", body: "help\r\n"}},
	}
	a := testApp(t, filepath.Join(dir, "outcome.db"))
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.m.from = "alice@example.com"
			c.m.id = fmt.Sprintf("loop%d@test.example", i)
			if r := process(t, db, c.m); len(r) != 0 {
				t.Fatalf("answered with %d mails: %q", len(r), r[0].Subject)
			}
			res, err := a.apply(context.Background(), c.m.bytes(), enqueue)
			if err != nil {
				t.Fatal(err)
			}
			if res != outcomeIgnored {
				t.Fatalf("outcome %s, want %s (filed in Rejected)", res, outcomeIgnored)
			}
		})
	}
	// The control: the same command without the marks is answered.
	if r := process(t, db, rawMail{from: "alice@example.com", subject: "help", id: "control@test.example"}); len(r) != 1 {
		t.Fatalf("plain help: %d replies, want 1", len(r))
	}
}

// TestProcessControlCharacters moves with a comment full of NUL, ESC, DEL
// and C1 characters: the opponent's board mail carries the comment without
// them, TABs and line ends kept.
func TestProcessControlCharacters(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	for _, u := range []string{"alice", "bob"} {
		process(t, db, rawMail{from: u + "@example.com", subject: "signup " + u + " pw", id: u + "@test.example"})
	}
	process(t, db, rawMail{from: "alice@example.com", subject: "lyngk challenge alice bob", id: "c@test.example"})
	body := "Take\x00 this\x1b[2J\x1b]0;pwned\x07 \x7fand\u0085\u009b6n\tthat\nsecond line\n"
	r := process(t, db, rawMail{from: "alice@example.com", subject: "lyngk move 101 alice pw G,c1-d1", body: body, id: "m@test.example"})
	if len(r) != 2 {
		t.Fatalf("%d mails, want 2", len(r))
	}
	got := r[1].Body
	if r[1].to != "bob@example.com" {
		t.Fatalf("second mail to %s", r[1].to)
	}
	want := "alice writes:\nTake this[2J]0;pwned and6n\tthat\nsecond line\n"
	if !strings.Contains(got, want) {
		t.Fatalf("bob's mail lacks the cleaned comment %q:\n%q", want, got)
	}
	for _, c := range "\x00\x1b\x07\x7f\u0085\u009b" {
		if strings.ContainsRune(got, c) {
			t.Errorf("bob's mail carries %U", c)
		}
	}
	// chat relays the same way.
	r = process(t, db, rawMail{from: "bob@example.com", subject: "lyngk chat 101 bob pw", body: "hi\x00\x1b[31m red\n", id: "chat@test.example"})
	if len(r) != 1 || !strings.Contains(r[0].Body, "hi[31m red") || strings.ContainsAny(r[0].Body, "\x00\x1b") {
		t.Fatalf("chat: %d mails: %+v", len(r), r)
	}
}

// TestProcessReusedMessageID sends a second, different mail under the
// Message-ID of an earlier one: it is applied, not taken for a duplicate,
// while a redelivered copy of either is still applied once.
func TestProcessReusedMessageID(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	first := rawMail{from: "alice@example.com", subject: "signup alice pw", id: "same@test.example"}
	second := rawMail{from: "bob@example.com", subject: "signup bob pw", id: "same@test.example"}
	third := rawMail{from: "alice@example.com", subject: "lyngk challenge alice bob", id: "same@test.example"}
	if r := process(t, db, first); len(r) != 1 {
		t.Fatalf("first mail: %d replies", len(r))
	}
	if r := process(t, db, second); len(r) != 1 || r[0].to != "bob@example.com" {
		t.Fatalf("second mail with the same Message-ID, other sender: %d replies, want 1 to bob", len(r))
	}
	if r := process(t, db, third); len(r) != 2 {
		t.Fatalf("third mail with the same Message-ID and sender, other text: %d replies, want 2", len(r))
	}
	for _, m := range []rawMail{first, second, third} {
		if r := process(t, db, m); len(r) != 0 {
			t.Fatalf("redelivered %q answered: %d replies", m.subject, len(r))
		}
	}
	// A redelivery that gained a Received line is the same mail.
	again := third
	again.header = "Received: from relay.example by mx.example; Sun, 22 Nov 2026 10:00:00 +0000\r\n"
	if r := process(t, db, again); len(r) != 0 {
		t.Fatalf("redelivery with another Received line answered: %d replies", len(r))
	}
}

// TestProcessTokenAfterTakeBack: alice moves, asks to undo, bob accepts,
// alice makes a different move. Bob's reply to the board mail from before
// the take-back names a position the game no longer has, although the game
// has as many moves again: it is refused and changes nothing, while a reply
// to the latest board mail is taken.
func TestProcessTokenAfterTakeBack(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	n := 0
	send := func(m rawMail) []reply {
		t.Helper()
		n++
		m.id = fmt.Sprintf("tb%d@test.example", n)
		return process(t, db, m)
	}
	for _, u := range []string{"alice", "bob"} {
		send(rawMail{from: u + "@example.com", subject: "signup " + u + " pw"})
	}
	send(rawMail{from: "alice@example.com", subject: "lyngk challenge alice bob"})
	g := lyngk.New(101, lyngk.Standard)
	legal := g.Legal(nil)
	first, second := legal[0], legal[1]
	r := send(rawMail{from: "alice@example.com", subject: "lyngk move 101 alice pw " + first.String()})
	if len(r) != 2 {
		t.Fatalf("first move: %d mails", len(r))
	}
	old := r[1].MessageID // bob's board mail after move 1
	send(rawMail{from: "alice@example.com", subject: "lyngk move 101 alice pw undo"})
	if r = send(rawMail{from: "bob@example.com", subject: "lyngk move 101 bob pw accept"}); len(r) != 2 {
		t.Fatalf("accept: %d mails", len(r))
	}
	r = send(rawMail{from: "alice@example.com", subject: "lyngk move 101 alice pw " + second.String()})
	if len(r) != 2 {
		t.Fatalf("second move: %d mails", len(r))
	}
	latest := r[1].MessageID
	if err := g.Apply(second); err != nil {
		t.Fatal(err)
	}
	reply := g.Legal(nil)[0].String()
	before := boards(t, db)[101]
	r = send(rawMail{from: "bob@example.com", subject: "Re: Lyngk Board 101 bob", body: reply + "\n", inReplyTo: old})
	if len(r) != 1 || r[0].to != "bob@example.com" || r[0].Subject != "Lyngk Board 101 Error" ||
		!strings.Contains(r[0].Body, "was taken back since the board mail you") {
		t.Fatalf("reply to the board mail from before the take-back: %d mails %+v", len(r), r)
	}
	if after := boards(t, db)[101]; after != before {
		t.Fatalf("the refused reply changed the game:\n%s\nthen\n%s", before, after)
	}
	if r = send(rawMail{from: "bob@example.com", subject: "Re: Lyngk Board 101 bob", body: reply + "\n", inReplyTo: latest}); len(r) != 2 {
		t.Fatalf("reply to the latest board mail: %d mails, want the board to both", len(r))
	}
}
