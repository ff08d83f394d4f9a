package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/daemon"
	"lyngk.example/lyngk/engine/golden"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/mailer"
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
	return &app{db: db, eng: eng, robot: cfg.Server, log: slog.New(slog.NewTextHandler(io.Discard, nil)), now: time.Now}
}

// TestProcessLoopRules sends, from a signed-up player's address, a mail
// for each loop rule of RFC 3834, RFC 3464 and RFC 8098, each carrying a
// command that would otherwise be answered: none gets an answer, and each
// is ignored, which the daemon files in Rejected.
func TestProcessLoopRules(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "lyngk.db")
	signupConfirmed(t, db, "alice@example.com", "alice", "pw", "s@test.example")
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
			res, err := a.apply(context.Background(), c.m.bytes(), daemon.Enqueue)
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
	aliceChallengesBob(t, db)
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
	// chat relays the same way (to alice, and bob's copy).
	r = process(t, db, rawMail{from: "bob@example.com", subject: "lyngk chat 101 bob pw", body: "hi\x00\x1b[31m red\n", id: "chat@test.example"})
	if len(r) != 2 {
		t.Fatalf("chat: %d mails: %+v", len(r), r)
	}
	for _, m := range r {
		if !strings.Contains(m.Body, "hi[31m red") || strings.ContainsAny(m.Body, "\x00\x1b") {
			t.Fatalf("chat to %s: %+v", m.to, m)
		}
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
	r := process(t, db, first)
	if len(r) != 1 {
		t.Fatalf("first mail: %d replies", len(r))
	}
	process(t, db, confirmReply("alice@example.com", r[0].MessageID, "ca@test.example"))
	r = process(t, db, second)
	if len(r) != 1 || r[0].to != "bob@example.com" {
		t.Fatalf("second mail with the same Message-ID, other sender: %d replies, want 1 to bob", len(r))
	}
	process(t, db, confirmReply("bob@example.com", r[0].MessageID, "cb@test.example"))
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
		n++
		signupConfirmed(t, db, u+"@example.com", u, "pw", fmt.Sprintf("tb%d@test.example", n))
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

// processRaw runs `lyngk process -mbox -` on raw and returns the replies as
// they would go on the wire.
func processRaw(t *testing.T, db string, raw []byte) [][]byte {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run([]string{"process", "-db", db, "-mbox", "-"}, bytes.NewReader(raw), &out, &errb); code != 0 {
		t.Fatalf("process: exit %d: %s", code, errb.String())
	}
	msgs, err := mailer.ReadMbox(&out)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

// checkBounds asserts the bounds of one incoming mail's replies: at most
// want mails, at most 4 MB in all, each at most 64 KB; it returns them
// parsed.
func checkBounds(t *testing.T, raws [][]byte, want int) []mailer.Inbound {
	t.Helper()
	if len(raws) > want {
		t.Fatalf("%d mails, want at most %d", len(raws), want)
	}
	total := 0
	var ins []mailer.Inbound
	for i, raw := range raws {
		total += len(raw)
		// A board mail's HTML part and picture come on top:
		// the engine counts PictureAllowance for them.
		limit := engine.MaxReply
		if bytes.Contains(raw, []byte("multipart/related")) {
			limit += engine.PictureAllowance
		}
		if len(raw) > limit {
			t.Errorf("mail %d is %d bytes, over %d", i, len(raw), limit)
		}
		in, err := mailer.Parse(bytes.NewReader(raw), 0)
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, in)
	}
	if total > engine.MaxBytes {
		t.Fatalf("%d bytes in all, over %d", total, engine.MaxBytes)
	}
	t.Logf("%d mails, %d bytes", len(raws), total)
	return ins
}

// TestProcessForgedMultiple is a measured abuse case: a 2.7 KB
// mail, subject "multiple", 60 lines of "lyngk show" naming board 101 ten
// times each. Old main sent 600 board mails. From a forged stranger's
// address it now gets none (a stranger gets no listing; before the
// no-backscatter rules, 1 mail); in a player's name, 25: 24 boards and the summary, which
// says what was left out.
func TestProcessForgedMultiple(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	aliceChallengesBob(t, db)
	line := "lyngk show" + strings.Repeat(" 101", 10)
	body := strings.Repeat(line+"\n", 60)
	stranger := rawMail{from: "victim@elsewhere.example", subject: "multiple", body: body, id: "forged1@test.example"}
	raw := stranger.bytes()
	if len(raw) > 3500 {
		t.Fatalf("the mail is %d bytes, want about 3 KB", len(raw))
	}
	if ins := checkBounds(t, processRaw(t, db, raw), 0); len(ins) != 0 {
		t.Fatalf("stranger: %d mails, want none", len(ins))
	}
	// A stranger's hourly allowance: 5 mails (one per incoming mail, the
	// first help's; the listings none), then silence.
	for i := 1; i <= 7; i++ {
		m := rawMail{from: "victim2@elsewhere.example", subject: "multiple", body: "lyngk show 101\nhelp\nlyngk show 101\nhelp\n",
			id: fmt.Sprintf("forged%d@test.example", i)}
		want := 1
		if i > engine.StrangerPerHour {
			want = 0
		}
		if got := processRaw(t, db, m.bytes()); len(got) != want {
			t.Fatalf("stranger's mail %d: %d replies, want %d", i, len(got), want)
		}
	}

	// carol signs up from elsewhere, so that her address has used none of
	// its hourly commands (rate_per_hour, 60) before the 60 lines.
	ask := process(t, db, rawMail{from: "setup@example.com", subject: "signup carol pw carol@example.com", id: "carol@test.example"})
	process(t, db, confirmReply("setup@example.com", ask[0].MessageID, "carol-confirm@test.example"))
	player := rawMail{from: "carol@example.com", subject: "multiple", body: body, id: "forged-carol@test.example"}
	ins := checkBounds(t, processRaw(t, db, player.bytes()), engine.MaxMails)
	if len(ins) != engine.MaxMails {
		t.Fatalf("player: %d mails, want %d", len(ins), engine.MaxMails)
	}
	for _, in := range ins[:len(ins)-1] {
		if in.Subject != "Lyngk Board 101 alice" {
			t.Fatalf("player: mail %q among the board mails", in.Subject)
		}
	}
	last := ins[len(ins)-1]
	if last.Subject != "PBeM Server: some replies to your mail were left out" ||
		!strings.Contains(last.Body, "left out:\n101\n") || !strings.Contains(last.Body, "\nlyngk show 101\n") {
		t.Fatalf("player: the last mail is not the summary:\n%s\n%s", last.Subject, last.Body)
	}
}

// TestProcessShowManyGames is a measured abuse case: "lyngk show
// alice" with alice in 600 games made 600 mails (36,060 with 60 such
// lines). Now: 25 mails, the last the summary of the 576 boards left out
// (golden file), and none for a stranger (before, one).
func TestProcessShowManyGames(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "lyngk.db")
	for _, u := range []string{"alice", "bob"} {
		signupConfirmed(t, db, u+"@example.com", u, "pw", u+"@test.example")
	}
	// 600 challenges from 600 senders (each under its rate limit), in
	// batches of 10 a day apart: a player gets at most engine.MaxUnasked
	// mails a day of games he did not ask for.
	func() {
		a := testApp(t, db)
		day := time.Now().Add(-61 * 24 * time.Hour)
		a.now = func() time.Time { return day }
		for b := range 600 / engine.MaxUnasked {
			var raws [][]byte
			for i := b * engine.MaxUnasked; i < (b+1)*engine.MaxUnasked; i++ {
				raws = append(raws, rawMail{from: fmt.Sprintf("fan%d@example.com", i), subject: "lyngk challenge alice bob",
					id: fmt.Sprintf("ch%d@test.example", i)}.bytes())
			}
			res, err := a.applyBatch(context.Background(), raws, func(*store.Tx, daemon.Outgoing, time.Time) error { return nil })
			if err != nil || res[len(res)-1] != outcomeApplied {
				t.Fatalf("setup: %v %v", err, res)
			}
			day = day.Add(24 * time.Hour)
		}
		a.db.Close()
	}()
	if n := len(boards(t, db)); n != 600 {
		t.Fatalf("%d games, want 600", n)
	}
	ins := checkBounds(t, processRaw(t, db, rawMail{from: "bob@example.com", subject: "lyngk show alice", id: "show@test.example"}.bytes()), engine.MaxMails)
	if len(ins) != engine.MaxMails {
		t.Fatalf("%d mails, want %d", len(ins), engine.MaxMails)
	}
	for i, in := range ins[:len(ins)-1] {
		if want := fmt.Sprintf("Lyngk Board %d alice", 700-i); in.Subject != want { // newest first
			t.Fatalf("mail %d: %q, want %q", i, in.Subject, want)
		}
	}
	summary := ins[len(ins)-1]
	goldenFile(t, filepath.Join("testdata", "summary-show.golden"), "Subject: "+summary.Subject+"\n\n"+summary.Body)

	// 60 such lines in one mail made 36,060 mails on old main; now 25, in
	// the time of one line. dave signs up from elsewhere, so that his
	// address has all its hourly commands (rate_per_hour, 60) left.
	ask := process(t, db, rawMail{from: "setup@example.com", subject: "signup dave pw dave@example.com", id: "dave@test.example"})
	process(t, db, confirmReply("setup@example.com", ask[0].MessageID, "dave-confirm@test.example"))
	start := time.Now()
	many := rawMail{from: "dave@example.com", subject: "multiple", body: strings.Repeat("lyngk show alice\n", 60), id: "show60@test.example"}
	ins = checkBounds(t, processRaw(t, db, many.bytes()), engine.MaxMails)
	if len(ins) != engine.MaxMails || ins[len(ins)-1].Subject != "PBeM Server: some replies to your mail were left out" {
		t.Fatalf("60 lines: %d mails, or the last is not the summary", len(ins))
	}
	t.Logf("60 lines of lyngk show alice: %v", time.Since(start))

	ins = checkBounds(t, processRaw(t, db, rawMail{from: "victim@elsewhere.example", subject: "lyngk show alice", id: "show2@test.example"}.bytes()), 0)
	if len(ins) != 0 {
		t.Fatalf("stranger: %d mails, want none", len(ins))
	}
}

// TestProcessHugeArgument is a measured abuse case: a 1 MiB
// Latin-1 argument made a 12.9 MB error reply (the argument echoed twice,
// the mail quoted once). Now the reply is at most 64 KB: the argument is
// cut to 100 characters with "…", the quote to 2 KB. A huge comment on a
// move is cut likewise in the opponent's board mail.
func TestProcessHugeArgument(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	aliceChallengesBob(t, db)
	arg := strings.Repeat("\xe9", 1<<20-2048)
	m := rawMail{from: "alice@example.com", subject: "Hello", body: "lyngk show " + arg + "\n", id: "huge@test.example",
		contentType: "text/plain; charset=iso-8859-1"}
	raw := m.bytes()
	if len(raw) > maxMailSize {
		t.Fatalf("the mail is %d bytes, over the limit", len(raw))
	}
	ins := checkBounds(t, processRaw(t, db, raw), 1)
	if len(ins) != 1 {
		t.Fatalf("%d replies", len(ins))
	}
	body := ins[0].Body
	// The error text is wrapped to 76 columns: the argument may start a line.
	if want := `There is no user "` + strings.Repeat("é", engine.MaxEcho-1) + `…".`; !strings.Contains(strings.ReplaceAll(body, "\n", " "), want) {
		t.Fatalf("the echoed argument is not cut to %d characters:\n%.400s", engine.MaxEcho, body)
	}
	if q := body[strings.Index(body, "Original message follows:"):]; len(q) > engine.MaxQuote+200 {
		t.Fatalf("the quote is %d bytes", len(q))
	}

	comment := strings.Repeat("Ein sehr langer Kommentar mit Umlauten: äöü ÄÖÜ ß.\n", 17000)
	raws := processRaw(t, db, rawMail{from: "alice@example.com", subject: "lyngk move 101 alice pw G,c1-d1", body: comment, id: "long@test.example"}.bytes())
	ins = checkBounds(t, raws, 2)
	if len(ins) != 2 || !strings.Contains(ins[1].Body, "alice writes:") || !strings.Contains(ins[1].Body, "at most 64 KB") {
		t.Fatalf("bob's board mail does not carry the cut comment")
	}
}

// goldenFile compares got with the file at path (go test -update rewrites
// it).
func goldenFile(t *testing.T, path, got string) {
	t.Helper()
	golden.Check(t, path, got, *update)
}

// TestServeLoopRulesRejected runs the loop rules through `lyngk serve` in
// local mode: automatic mails from a player (an out-of-office reply, a
// read receipt, a mail with List-Post alone, Auto-Submitted after a
// comment) get no answer and land in the robot's Rejected folder, while
// the mails around them are answered.
func TestServeLoopRulesRejected(t *testing.T) {
	cfg := defaultConfig()
	cfg.DataDir = t.TempDir()
	report := "--b\r\nContent-Type: text/plain\r\n\r\nhelp\r\n--b--\r\n"
	deliverWhileStopped(t, cfg.DataDir,
		rawMail{from: "alice@localhost", subject: "signup alice Sesame-8zq", id: "1.alice@client.example"},
		rawMail{from: "alice@localhost", subject: "Automatic reply: PBeM Server signup alice", body: "help\r\n", id: "2.alice@client.example"},
		rawMail{from: "alice@localhost", subject: "Read: help", body: report, id: "3.alice@client.example",
			contentType: "multipart/report; report-type=disposition-notification; boundary=b"},
		rawMail{from: "alice@localhost", subject: "help rules", header: "List-Post: <mailto:all@example.com>\r\n", id: "4.alice@client.example"},
		rawMail{from: "alice@localhost", subject: "help notation", header: "Auto-Submitted: (vacation) auto-replied\r\n", id: "5.alice@client.example"},
		rawMail{from: "carol@localhost", subject: "help", id: "6.carol@client.example"})
	s := startServe(t, cfg)
	alice := localPlayer{t: t, name: "alice", smtp: s.smtp, imap: s.imap}
	carol := localPlayer{t: t, name: "carol", smtp: s.smtp, imap: s.imap}
	if got := carol.await(1); got.Subject != "PBeM Server help" {
		t.Fatalf("carol got %q", got.Subject)
	}
	want := []string{"Automatic reply: PBeM Server signup alice", "Read: help", "help rules", "help notation"}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		got := robotMailbox(t, s, "Rejected")
		if slices.Equal(got, want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Rejected holds %q, want %q", got, want)
		}
	}
	// The mails were applied in order, carol's last: alice's inbox holds
	// the confirmation mail of her signup alone.
	alice.await(1)
	if got := alice.inbox(); len(got) != 1 || got[0].Subject != "Confirm PBeM Server signup alice" {
		t.Fatalf("alice got %d mails", len(got))
	}
}

// TestProcessManySubscribers: a game takes at most 20 subscribers, so the
// board mails of a move (2 players, 20 watchers) always fit in one mail's
// 25, summary slot included: all 22 go out.
func TestProcessManySubscribers(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	signupConfirmed(t, db, "alice@example.com", "alice", "pw", "alice@test.example")
	signupConfirmed(t, db, "bob@example.com", "bob", "pw", "bob@test.example")
	for i := range engine.MaxSubscribers + 1 {
		signupConfirmed(t, db, fmt.Sprintf("w%d@example.com", i), fmt.Sprintf("w%d", i), "pw", fmt.Sprintf("w%d@test.example", i))
	}
	func() {
		a := testApp(t, db)
		var raws [][]byte
		add := func(from, subject string) {
			raws = append(raws, rawMail{from: from, subject: subject, id: fmt.Sprintf("s%d@test.example", len(raws))}.bytes())
		}
		add("alice@example.com", "lyngk challenge alice bob")
		for i := range engine.MaxSubscribers {
			add(fmt.Sprintf("w%d@example.com", i), fmt.Sprintf("lyngk subscribe 101 w%d pw", i))
		}
		if _, err := a.applyBatch(context.Background(), raws, func(*store.Tx, daemon.Outgoing, time.Time) error { return nil }); err != nil {
			t.Fatal(err)
		}
		a.db.Close()
	}()
	last := fmt.Sprintf("w%d", engine.MaxSubscribers)
	r := process(t, db, rawMail{from: last + "@example.com", subject: "lyngk subscribe 101 " + last + " pw", id: "full@test.example"})
	if len(r) != 1 || !strings.Contains(r[0].Body, "Lyngk Board 101 has 20 subscribers, the most a game may have.") {
		t.Fatalf("the 21st subscriber: %+v", r)
	}
	g := lyngk.New(101, lyngk.Standard)
	mv := g.Legal(nil)[0]
	r = process(t, db, rawMail{from: "alice@example.com", subject: "lyngk move 101 alice pw " + mv.String(), id: "move@test.example"})
	if len(r) != 2+engine.MaxSubscribers {
		t.Fatalf("the move: %d mails, want %d", len(r), 2+engine.MaxSubscribers)
	}
	for _, m := range r {
		if !strings.HasPrefix(m.Subject, "Lyngk Board 101 ") {
			t.Fatalf("mail %q among the board mails", m.Subject)
		}
	}
}

// TestProcessForgedChallenges is a measured abuse case: 209 forged
// mails of 24 lines "lyngk challenge alice robot" made 5,017 games and
// 4,611 board mails for alice. Now alice gets at most engine.MaxUnasked (10)
// mails a day of games she did not ask for: of 3 such forged mails (72
// challenges) 10 games are made, the rest refused at no cost to her, and a
// challenge from her own address still starts a game at once.
func TestProcessForgedChallenges(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	signupConfirmed(t, db, "alice@example.com", "alice", "pw", "a@test.example")
	signupConfirmed(t, db, "bob@example.com", "bob", "pw", "b@test.example")
	body := strings.Repeat("lyngk challenge alice robot\n", 24)
	toAlice := 0
	for i := range 3 {
		raw := rawMail{from: fmt.Sprintf("mallory%d@forged.example", i), subject: "multiple", body: body,
			id: fmt.Sprintf("forged%d@test.example", i)}
		for _, r := range process(t, db, raw) {
			if r.to == "alice@example.com" {
				toAlice++
			}
		}
	}
	if n := len(boards(t, db)); n != engine.MaxUnasked || toAlice != engine.MaxUnasked {
		t.Fatalf("%d games, %d mails to alice; want %d and %d", n, toAlice, engine.MaxUnasked, engine.MaxUnasked)
	}
	// bob, too, may no longer name her: a clear error, nothing changed.
	r := process(t, db, rawMail{from: "bob@example.com", subject: "lyngk challenge bob alice", id: "bob@test.example"})
	if len(r) != 1 || r[0].to != "bob@example.com" || !strings.Contains(r[0].Body, "alice has had 10 mails today of games alice did not ask for") {
		t.Fatalf("bob's challenge: %+v", r)
	}
	// alice's own challenge starts a game at once, a board mail to both.
	r = process(t, db, rawMail{from: "alice@example.com", subject: "lyngk challenge alice bob", id: "alice@test.example"})
	if len(r) != 2 {
		t.Fatalf("alice's own challenge: %d mails, want 2", len(r))
	}
}

// aliceChallengesBob signs alice and bob up in db (alice@example.com and
// bob@example.com, password pw) and has alice challenge bob: game 101.
func aliceChallengesBob(t *testing.T, db string) {
	t.Helper()
	for _, u := range []string{"alice", "bob"} {
		signupConfirmed(t, db, u+"@example.com", u, "pw", u+"@test.example")
	}
	process(t, db, rawMail{from: "alice@example.com", subject: "lyngk challenge alice bob", id: "c@test.example"})
}
