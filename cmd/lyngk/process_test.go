package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	netmail "net/mail"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/daemon"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/mailer"
	"lyngk.example/lyngk/store"
)

// rawMail builds an incoming mail as a mail client would send it.
type rawMail struct {
	from, subject, body, id, inReplyTo string
	header                             string // extra header lines, CRLF-terminated
	contentType                        string // "" = text/plain; charset=utf-8
	// confirm, for tests that queue their replies, makes the mail a reply
	// to the queued confirmation mail to this address.
	confirm string
}

func (m rawMail) bytes() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "From: %s\r\nTo: lyngk@localhost\r\nSubject: %s\r\n", m.from, m.subject)
	fmt.Fprintf(&b, "Date: Sat, 21 Nov 2026 22:00:00 +0000\r\nMessage-ID: <%s>\r\n", m.id)
	if m.inReplyTo != "" {
		fmt.Fprintf(&b, "In-Reply-To: <%s>\r\nReferences: <%s>\r\n", m.inReplyTo, m.inReplyTo)
	}
	b.WriteString(m.header)
	ct := m.contentType
	if ct == "" {
		ct = "text/plain; charset=utf-8"
	}
	b.WriteString("MIME-Version: 1.0\r\nContent-Type: " + ct + "\r\n\r\n")
	b.WriteString(strings.ReplaceAll(m.body, "\n", "\r\n"))
	return []byte(b.String())
}

// process runs `lyngk process -db DB -mbox -` on one mail, in process, and
// returns the replies parsed back from the mbox.
func process(t *testing.T, db string, m rawMail) []reply {
	t.Helper()
	var out, errb bytes.Buffer
	code := run([]string{"process", "-db", db, "-mbox", "-"}, bytes.NewReader(m.bytes()), &out, &errb)
	if code != 0 {
		t.Fatalf("process %q: exit %d: %s", m.subject, code, errb.String())
	}
	msgs, err := mailer.ReadMbox(&out)
	if err != nil {
		t.Fatal(err)
	}
	var res []reply
	for _, raw := range msgs {
		in, err := mailer.Parse(bytes.NewReader(raw), maxMailSize)
		if err != nil {
			t.Fatal(err)
		}
		h, err := netmail.ReadMessage(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		to, err := h.Header.AddressList("To")
		if err != nil || len(to) == 0 {
			t.Fatalf("want recipients, got %q (%v)", h.Header.Get("To"), err)
		}
		var addrs []string
		for _, a := range to {
			addrs = append(addrs, a.Address)
		}
		res = append(res, reply{Inbound: in, to: strings.Join(addrs, ", ")})
	}
	return res
}

// reply is one mail written by `lyngk process`.
type reply struct {
	mailer.Inbound
	to string // the recipients, joined by ", "
}

// TestProcessWholeGame plays a whole game through `lyngk process`, moves
// alternating between full commands with the password and plain replies to
// the last board mail, and checks every reply mail: who gets it, its
// subject, and its board block against the rules engine.
func TestProcessWholeGame(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	addr := map[string]string{"alice": "alice@example.com", "bob": "bob@example.org"}
	pw := map[string]string{"alice": "secret1", "bob": "secret2"}
	n := 0
	nextID := func() string { n++; return fmt.Sprintf("m%d@test.example", n) }

	for _, u := range []string{"alice", "bob"} {
		signupConfirmed(t, db, addr[u], u, pw[u], nextID())
	}
	replies := process(t, db, rawMail{from: addr["alice"], subject: "lyngk challenge alice bob", id: nextID()})
	names := [2]string{"alice", "bob"}
	g := lyngk.New(101, lyngk.Standard)
	last := map[string]string{} // the latest board mail's Message-ID per player
	checkBoardMails := func(replies []reply, subject string) {
		t.Helper()
		if len(replies) != 2 {
			t.Fatalf("want a board mail for each player, got %d mails", len(replies))
		}
		var got []string
		for i, r := range replies {
			if want := addr[names[i]]; r.to != want {
				t.Errorf("mail %d goes to %q, want %q", i, r.to, want)
			}
			if r.Subject != subject {
				t.Errorf("subject %q, want %q", r.Subject, subject)
			}
			if !strings.Contains(r.Body, g.Board(names)) {
				t.Fatalf("board mail does not carry the engine's board:\n%s\nwant block:\n%s", r.Body, g.Board(names))
			}
			got = append(got, r.MessageID)
		}
		// Mails come one per recipient, in challenge order.
		last["alice"], last["bob"] = got[0], got[1]
	}
	checkBoardMails(replies, "New Lyngk Board 101 alice")

	rng := rand.New(rand.NewPCG(1, 2))
	var buf []lyngk.Move
	for i := 0; g.Status() == games.Playing; i++ {
		buf = g.Legal(buf[:0])
		slices.SortFunc(buf, func(a, b lyngk.Move) int { return strings.Compare(a.String(), b.String()) })
		mv := buf[rng.IntN(len(buf))]
		who := names[g.Turn()-1]
		var m rawMail
		if i%2 == 0 {
			m = rawMail{from: addr[who], subject: fmt.Sprintf("lyngk move 101 %s %s %s", who, pw[who], mv), id: nextID()}
		} else {
			m = rawMail{from: addr[who], subject: "Re: Lyngk Board 101 " + who, id: nextID(), inReplyTo: last[who],
				body: mv.String() + "\n\nOn Sat, 21 Nov 2026, PBeM Server wrote:\n> Summary of Lyngk Board 101\n"}
		}
		if err := g.Apply(mv); err != nil {
			t.Fatal(err)
		}
		want := "Lyngk Board 101 " + names[max(g.Turn(), 1)-1]
		if g.Status() != games.Playing {
			// gamerz wrote "Lyngk Board 101 " for a finished game; ours
			// ends with the board number.
			want = "Lyngk Board 101"
		}
		// The move that ends the game brings the game-over mails with
		// the robot's review in them (TestReviewInGameOver).
		checkBoardMails(process(t, db, m), want)
		if t.Failed() {
			t.FailNow()
		}
	}
	// The last board mail carries the result line.
	final := process(t, db, rawMail{from: addr["bob"], subject: "lyngk show 101", id: nextID()})
	if len(final) != 1 || final[0].to != addr["bob"] {
		t.Fatalf("show: %d mails", len(final))
	}
	result := "Game was a tie."
	if g.Status() == games.Won {
		result = "Game won by " + names[g.Winner()-1] + "."
	}
	if !strings.Contains(final[0].Body, "\n"+result+"\n") || !strings.Contains(final[0].Body, g.Board(names)) {
		t.Fatalf("final board mail lacks %q or the board:\n%s", result, final[0].Body)
	}
}

// TestProcessDuplicate delivers the same mail twice: it is applied once and
// the second delivery gets no answer at all.
func TestProcessDuplicate(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	m := rawMail{from: "carol@example.net", subject: "signup carol pw", id: "dup@test.example"}
	if r := process(t, db, m); len(r) != 1 {
		t.Fatalf("first delivery: %d replies", len(r))
	}
	if r := process(t, db, m); len(r) != 0 {
		t.Fatalf("second delivery answered: %+v", r)
	}
}

// snapshot is what one mail may change in the store.
type snapshot struct {
	users, games, moves, outbox int
	seen                        bool
}

func snap(t *testing.T, path string, m rawMail) snapshot {
	t.Helper()
	raw := m.bytes()
	in, err := mailer.Parse(bytes.NewReader(raw), maxMailSize)
	if err != nil {
		t.Fatal(err)
	}
	key := dedupeKey(in, raw)
	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var s snapshot
	err = db.View(func(tx *store.Tx) error {
		us, err := engine.Users(tx)
		if err != nil {
			return err
		}
		gs, err := engine.Games(tx)
		if err != nil {
			return err
		}
		out, err := tx.Outbox()
		if err != nil {
			return err
		}
		s.users, s.games, s.outbox = len(us), len(gs), len(out)
		for _, g := range gs {
			s.moves += len(g.Moves)
		}
		s.seen, err = tx.Seen(key)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestProcessCrash kills `lyngk process` with SIGKILL at random moments
// while it applies each mail of a game, then delivers the mail again, as a
// mail server would. After every kill the store holds either nothing or
// everything of that mail (dedupe record, game change, queued replies),
// and the redelivery completes it exactly once.
func TestProcessCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and kills it many times")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "lyngk")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	db := filepath.Join(dir, "lyngk.db")
	// typical is how long the last complete run took; kills are spread
	// over twice that, so they land before and after the commit alike.
	typical := 20 * time.Millisecond
	deliver := func(m rawMail, killAfter time.Duration) {
		t.Helper()
		if m.confirm != "" {
			// The reply to the confirmation mail the signup queued.
			withDB(t, db, func(db *store.DB) { m.inReplyTo = queuedConfirm(t, db, m.confirm) })
		}
		cmd := exec.Command(bin, "process", "-db", db)
		cmd.Stdin = bytes.NewReader(m.bytes())
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if killAfter >= 0 {
			time.AfterFunc(killAfter, func() { _ = cmd.Process.Signal(syscall.SIGKILL) })
		}
		start := time.Now()
		err := cmd.Wait()
		if killAfter < 0 {
			if err != nil {
				t.Fatalf("process %q: %v: %s", m.subject, err, errb.String())
			}
			typical = time.Since(start)
		}
	}
	mails := []rawMail{
		{from: "alice@example.com", subject: "signup alice pw1"},
		{from: "alice@example.com", subject: "Re: Confirm", body: "yes\n", confirm: "alice@example.com"},
		{from: "bob@example.com", subject: "signup bob pw2"},
		{from: "bob@example.com", subject: "Re: Confirm", body: "yes\n", confirm: "bob@example.com"},
		{from: "alice@example.com", subject: "lyngk challenge alice bob"},
	}
	const setup = 5 // mails before the first move
	g := lyngk.New(101, lyngk.Standard)
	for len(mails) < 17 {
		mv := g.Legal(nil)[0]
		who := []string{"", "alice", "bob"}[g.Turn()]
		pw := map[string]string{"alice": "pw1", "bob": "pw2"}[who]
		mails = append(mails, rawMail{from: who + "@example.com", subject: fmt.Sprintf("lyngk move 101 %s %s %s", who, pw, mv)})
		if err := g.Apply(mv); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var killedBefore, killedAfter int
	for i, m := range mails {
		m.id = fmt.Sprintf("crash%d@test.example", i)
		before := snap(t, db, m)
		deliver(m, time.Duration(rng.Int64N(2*int64(typical))))
		mid := snap(t, db, m)
		deliver(m, -1)
		after := snap(t, db, m)
		if !after.seen || after == before {
			t.Fatalf("mail %d %q had no effect: %+v", i, m.subject, after)
		}
		switch mid {
		case before:
			killedBefore++
		case after:
			killedAfter++
		default:
			t.Errorf("mail %d %q torn by the kill: before %+v, after kill %+v, after redelivery %+v", i, m.subject, before, mid, after)
		}
		deliver(m, -1)
		if again := snap(t, db, m); again != after {
			t.Fatalf("mail %d applied twice: %+v then %+v", i, after, again)
		}
	}
	// Kills that interrupted the work must have happened, or the test
	// proved nothing. (Where each lands depends on the machine's load; the
	// store's own crash test kills inside a stream of transactions.)
	t.Logf("killed before the commit %d times, after it %d times", killedBefore, killedAfter)
	if killedBefore == 0 {
		t.Fatalf("no kill interrupted a mail: %d landed after the commit", killedAfter)
	}
	if final := snap(t, db, rawMail{from: "none@example.com", id: "none@test.example"}); final.moves != len(mails)-setup {
		t.Fatalf("game has %d moves, want %d", final.moves, len(mails)-setup)
	}
	_ = os.Remove(bin)
}

// TestApplyBatch applies several mails in one transaction, as the daemon
// does with a fetched batch: in order, a repeated Message-ID within the
// batch is a duplicate, an unreadable mail is rejected on its own, and a
// later mail sees what an earlier one of the same batch wrote.
func TestApplyBatch(t *testing.T) {
	db, err := store.Open(filepath.Join(t.TempDir(), "lyngk.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cfg := defaultConfig()
	eng, err := newEngine(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a := &app{db: db, eng: eng, robot: cfg.Server, log: slog.New(slog.NewTextHandler(io.Discard, nil)), now: time.Now}
	signup := rawMail{from: "dora@example.com", subject: "signup dora pw", id: "b1@test.example"}.bytes()
	raws := [][]byte{
		signup,
		[]byte("\x00\x01 not a mail header\r\n"),
		rawMail{from: "ed@example.com", subject: "signup ed pw", id: "b2@test.example"}.bytes(),
		signup,
		rawMail{from: "dora@example.com", subject: "lyngk challenge dora ed", id: "b3@test.example"}.bytes(),
		rawMail{from: "auto@example.com", subject: "Out of office", id: "b4@test.example"}.bytes(),
	}
	raws[5] = []byte(strings.Replace(string(raws[5]), "MIME-Version", "Auto-Submitted: auto-replied\r\nMIME-Version", 1))
	var subjects, bodies []string
	got, err := a.applyBatch(context.Background(), raws, func(tx *store.Tx, m daemon.Outgoing, now time.Time) error {
		in, err := mailer.Parse(bytes.NewReader(m.Data), maxMailSize)
		if err != nil {
			return err
		}
		subjects, bodies = append(subjects, in.Subject), append(bodies, in.Body)
		return daemon.Enqueue(tx, m, now)
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []outcome{outcomeApplied, outcomeRejected, outcomeApplied, outcomeDuplicate, outcomeApplied, outcomeIgnored}
	if !slices.Equal(got, want) {
		t.Fatalf("outcomes %v, want %v", got, want)
	}
	// Two confirmation mails; the challenge, from an address not yet
	// confirmed (a stranger's), was refused without an answer.
	if len(subjects) != 2 || !strings.HasPrefix(subjects[0], "Confirm ") || !strings.HasPrefix(subjects[1], "Confirm ") {
		t.Fatalf("replies queued: %q\n%s", subjects, bodies)
	}
}
