package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-smtp"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/mailer"
	"lyngk.example/lyngk/mailer/localmail"
	"lyngk.example/lyngk/mailer/mailtest"
	"lyngk.example/lyngk/store"
)

// anyPort is the address a test gives each listener of the daemon: the
// kernel picks a free port, and the test reads the one the daemon got from
// its "listening NAME ADDR" lines (listenAddr). A port picked free by the
// test and closed again could be taken by anybody before the daemon
// listens on it.
const anyPort = "127.0.0.1:0"

// patience is how long a test waits for an event (a mail, a log line, a
// listener, a metric) before it fails. It is no figure the work has to
// beat: the test goes on as soon as the event comes; it only turns a hang
// into a failure, and is long enough for a machine that two test runs
// keep busy.
const patience = 2 * time.Minute

// listenAddr waits until out holds the daemon's "listening NAME ADDR" line
// (printListening) and returns the address. done, when not nil, is where
// the daemon's end is reported: an end before the line fails the test at
// once (and the end is put back, for the test's clean-up to see).
func listenAddr(t testing.TB, out *lockedBuffer, name string, done chan error) string {
	t.Helper()
	rx := regexp.MustCompile(`(?m)^listening ` + regexp.QuoteMeta(name) + ` (\S+)$`)
	for deadline := time.Now().Add(patience); ; time.Sleep(10 * time.Millisecond) {
		if m := rx.FindStringSubmatch(out.String()); m != nil {
			return m[1]
		}
		select {
		case err := <-done:
			done <- err
			t.Fatalf("serve stopped before its %s listener said where it is: %v\n%s", name, err, out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s listener line after %v in:\n%s", name, patience, out.String())
		}
	}
}

// localPlayer talks to the local all-in-one mail service as a mail client.
type localPlayer struct {
	t          testing.TB
	name       string
	smtp, imap string
}

func (p localPlayer) addr() string { return p.name + "@localhost" }

func (p localPlayer) send(subject, body, inReplyTo string) {
	p.t.Helper()
	c, err := smtp.Dial(p.smtp)
	if err != nil {
		p.t.Fatal(err)
	}
	defer c.Close()
	m := rawMail{from: p.addr(), subject: subject, body: body, inReplyTo: inReplyTo,
		id: fmt.Sprintf("%d.%s@client.example", time.Now().UnixNano(), p.name)}
	if err := c.SendMail(p.addr(), []string{"lyngk@localhost"}, bytes.NewReader(m.bytes())); err != nil {
		p.t.Fatal(err)
	}
}

// await waits until the player's INBOX holds n mails and returns the last.
func (p localPlayer) await(n int) mailer.Inbound {
	p.t.Helper()
	deadline := time.Now().Add(patience)
	for {
		mails := p.inbox()
		if len(mails) >= n {
			return mails[n-1]
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("%s: waited for mail %d, have %d", p.name, n, len(mails))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// signup signs the player up, the INBOX holding n mails before, and
// confirms the address by replying to the confirmation mail; it returns
// that mail.
func (p localPlayer) signup(password string, n int) mailer.Inbound {
	p.t.Helper()
	p.send("signup "+p.name+" "+password, "", "")
	ask := p.await(n + 1)
	if !strings.HasPrefix(ask.Subject, "Confirm ") {
		p.t.Fatalf("%s: want the confirmation mail, got %q", p.name, ask.Subject)
	}
	p.send("Re: "+ask.Subject, "Yes.\n", ask.MessageID)
	if got := p.await(n + 2); got.Subject != "PBeM Server signup "+p.name {
		p.t.Fatalf("%s: want the welcome mail, got %q", p.name, got.Subject)
	}
	return ask
}

func (p localPlayer) inbox() []mailer.Inbound {
	p.t.Helper()
	var out []mailer.Inbound
	for _, raw := range p.rawInbox() {
		in, err := mailer.Parse(bytes.NewReader(raw), maxMailSize)
		if err != nil {
			p.t.Fatal(err)
		}
		out = append(out, in)
	}
	return out
}

// rawInbox returns the mails of the player's INBOX as they are stored.
func (p localPlayer) rawInbox() [][]byte {
	p.t.Helper()
	c, err := imapclient.DialInsecure(p.imap, nil)
	if err != nil {
		p.t.Fatal(err)
	}
	defer c.Close()
	watchdog := time.AfterFunc(patience, func() { c.Close() })
	defer watchdog.Stop()
	if err := c.Login(p.addr(), p.name).Wait(); err != nil {
		p.t.Fatal(err)
	}
	sel, err := c.Select("INBOX", nil).Wait()
	if err != nil {
		p.t.Fatal(err)
	}
	if sel.NumMessages == 0 {
		return nil
	}
	var seq imap.SeqSet
	seq.AddRange(1, sel.NumMessages)
	bs := &imap.FetchItemBodySection{Peek: true}
	msgs, err := c.Fetch(seq, &imap.FetchOptions{BodySection: []*imap.FetchItemBodySection{bs}}).Collect()
	if err != nil {
		p.t.Fatal(err)
	}
	var out [][]byte
	for _, m := range msgs {
		out = append(out, m.FindBodySection(bs))
	}
	return out
}

// metricValue reads one sample from the Prometheus text exposition.
func metricValue(t testing.TB, addr, name string) float64 {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\S+)$`).FindSubmatch(body)
	if m == nil {
		t.Fatalf("metric %s not found in:\n%s", name, body)
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestServeLocal starts `lyngk serve` in local all-in-one mode with metrics
// on, plays the opening of a game by mail (commands and a plain reply),
// checks the counters moved, takes an online backup through the control
// socket, shuts down cleanly, and checks the backup replays every game to
// the same board.
func TestServeLocal(t *testing.T) {
	dir := t.TempDir()
	cfg := defaultConfig()
	cfg.DataDir = filepath.Join(dir, "data")
	cfg.MetricsAddr = anyPort
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	var stdout, logs lockedBuffer
	go func() {
		done <- serve(ctx, cfg, anyPort, anyPort, &stdout, slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	}()
	// Every listener asked for port 0 and says the one it got.
	smtpAddr, imapAddr := listenAddr(t, &stdout, "smtp", done), listenAddr(t, &stdout, "imap", done)
	cfg.MetricsAddr = listenAddr(t, &stdout, "metrics", done)
	for _, a := range []string{smtpAddr, imapAddr, cfg.MetricsAddr} {
		if _, port, _ := net.SplitHostPort(a); port == "0" || port == "" {
			t.Fatalf("printed listener address %q", a)
		}
		waitListening(t, a, done)
	}

	alice := localPlayer{t: t, name: "alice", smtp: smtpAddr, imap: imapAddr}
	bob := localPlayer{t: t, name: "bob", smtp: smtpAddr, imap: imapAddr}
	ask := alice.signup("Sesame-8zq", 0)
	bob.signup("Sesame-9xy", 0)
	alice.send("lyngk challenge alice bob", "", "")
	alice.await(3)
	bob.await(3)

	g := lyngk.New(101, lyngk.Standard)
	names := [2]string{"alice", "bob"}
	first := g.Legal(nil)[0]
	alice.send(fmt.Sprintf("lyngk move 101 alice Sesame-8zq %s", first), "", "")
	if err := g.Apply(first); err != nil {
		t.Fatal(err)
	}
	board := bob.await(4)
	if board.Subject != "Lyngk Board 101 bob" || !strings.Contains(board.Body, g.Board(names)) {
		t.Fatalf("bob's board mail: %q\n%s", board.Subject, board.Body)
	}
	second := g.Legal(nil)[0]
	bob.send("Re: "+board.Subject, second.String()+"\n\n> the board\n", board.MessageID)
	if err := g.Apply(second); err != nil {
		t.Fatal(err)
	}
	if got := alice.await(5); !strings.Contains(got.Body, g.Board(names)) {
		t.Fatalf("alice's board mail after bob's reply:\n%s", got.Body)
	}
	bob.await(5) // bob's own copy: every reply has been accepted now

	if v := metricValue(t, cfg.MetricsAddr, `lyngk_mails_processed_total{outcome="applied"}`); v != 7 {
		t.Errorf("applied mails = %v, want 7", v)
	}
	if v := metricValue(t, cfg.MetricsAddr, "lyngk_games_started_total"); v != 1 {
		t.Errorf("games started = %v, want 1", v)
	}
	if v := metricValue(t, cfg.MetricsAddr, "lyngk_mail_processing_seconds_count"); v != 7 {
		t.Errorf("processing time observations = %v, want 7", v)
	}
	// Each applied mail caused replies (signups 1, confirmations 1,
	// challenge 2, moves 2). A reply is measured when the SMTP server has
	// answered the sender, a moment after the mail is in the mailbox.
	for deadline := time.Now().Add(patience); ; time.Sleep(10 * time.Millisecond) {
		v := metricValue(t, cfg.MetricsAddr, "lyngk_reply_seconds_count")
		if v == 10 {
			break
		}
		if v > 10 || time.Now().After(deadline) {
			t.Fatalf("replies measured = %v, want 10", v)
		}
	}
	// The poller reports each mail once it is moved out of the inbox,
	// which may come just after the replies went out.
	for deadline := time.Now().Add(patience); ; {
		v := metricValue(t, cfg.MetricsAddr, "lyngk_inbox_seconds_count")
		if v == 7 {
			break
		}
		if v > 7 || time.Now().After(deadline) {
			t.Fatalf("mails timed through the inbox = %v, want 7", v)
		}
		time.Sleep(20 * time.Millisecond)
	}
	resp, err := http.Get("http://" + cfg.MetricsAddr + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz: %v %v", resp, err)
	}
	resp.Body.Close()
	if !strings.Contains(stdout.String(), "login NAME@localhost, password NAME") {
		t.Errorf("local mode did not print how to connect:\n%s", stdout.String())
	}

	// Online backup while the daemon holds the store: through the socket.
	dbPath := filepath.Join(cfg.DataDir, "lyngk.db")
	backup := filepath.Join(dir, "backup.db")
	var out, errb bytes.Buffer
	if code := run([]string{"backup", "-db", dbPath, backup}, nil, &out, &errb); code != 0 {
		t.Fatalf("backup: exit %d: %s", code, errb.String())
	}
	out.Reset()
	if code := run([]string{"admin", "-db", dbPath, "games"}, nil, &out, &errb); code != 0 ||
		!strings.Contains(out.String(), "101 lyngk standard alice-bob 2 moves playing") {
		t.Fatalf("admin games through the socket: exit %d: %q %s", code, out.String(), errb.String())
	}

	// procmail beside the daemon: `lyngk process` hands the mail over the
	// control socket; with -mbox the replies come back, without it the
	// daemon's sender delivers them.
	help := rawMail{from: "carol@localhost", subject: "help", id: "p1@procmail.example"}
	out.Reset()
	errb.Reset()
	if code := run([]string{"process", "-db", dbPath, "-mbox", "-"}, bytes.NewReader(help.bytes()), &out, &errb); code != 0 ||
		!strings.Contains(out.String(), "Subject: PBeM Server help") {
		t.Fatalf("process -mbox through the daemon: exit %d: %q %s", code, out.String(), errb.String())
	}
	carol := localPlayer{t: t, name: "carol", smtp: smtpAddr, imap: imapAddr}
	signup := rawMail{from: "carol@localhost", subject: "signup carol pw3", id: "p2@procmail.example"}
	if code := run([]string{"process", "-db", dbPath}, bytes.NewReader(signup.bytes()), &out, &errb); code != 0 {
		t.Fatalf("process through the daemon: exit %d: %s", code, errb.String())
	}
	if got := carol.await(1); got.Subject != "Confirm PBeM Server signup carol" {
		t.Fatalf("carol got %q", got.Subject)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(patience):
		t.Fatal("serve did not stop")
	}

	// The log tells what happened, and never a password, a reply token or
	// a confirmation code.
	log := logs.String()
	if !strings.Contains(log, "outcome=applied") || strings.Contains(log, "Sesame") {
		t.Fatalf("log lacks the mail lines or shows a password:\n%s", log)
	}
	if tok := strings.TrimSuffix(strings.TrimPrefix(board.MessageID, "lyngk."), "@localhost"); strings.Contains(log, tok) {
		t.Fatalf("log shows the reply token %s:\n%s", tok, log)
	}
	if code := strings.TrimSuffix(strings.TrimPrefix(ask.MessageID, "lyngk-confirm."), "@localhost"); code == ask.MessageID || strings.Contains(log, code) {
		t.Fatalf("log shows the confirmation code %s:\n%s", code, log)
	}

	// Restore: the copy, put in place of a store, replays to the same boards.
	restored := filepath.Join(dir, "restored", "lyngk.db")
	if err := os.MkdirAll(filepath.Dir(restored), 0o700); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(backup)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(restored, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if a, b := boards(t, dbPath), boards(t, restored); len(a) != 1 || a[101] != b[101] || a[101] != g.Board(names) {
		t.Fatalf("restored boards differ:\n%v\n%v", a, b)
	}
}

// lockedBuffer is a bytes.Buffer safe for the daemon's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// boards replays every game of a store and returns its board blocks.
func boards(t *testing.T, path string) map[int]string {
	t.Helper()
	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res := map[int]string{}
	err = db.View(func(tx *store.Tx) error {
		gs, err := engine.Games(tx)
		for _, g := range gs {
			_, b, err := engine.GameRecord(tx, offered(), g.Board)
			if err != nil {
				return err
			}
			res[g.Board] = b
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// waitListening waits until addr accepts connections or serve failed.
func waitListening(t testing.TB, addr string, done <-chan error) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return
		}
		select {
		case err := <-done:
			t.Fatalf("serve stopped: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not listening: %v", addr, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// served is a `lyngk serve` in local mode running for a test.
type served struct {
	cfg        config
	smtp, imap string
	stdout     *lockedBuffer
	logs       *lockedBuffer
	cancel     func()
	done       chan error
}

// startServe runs serve in local mode until the test ends, its listeners
// on ports the kernel picks: those cfg asks for (web_addr, metrics_addr:
// set them to anyPort) and the local SMTP and IMAP servers. s.cfg holds
// the addresses they got, and the web part's URL.
func startServe(t *testing.T, cfg config) *served {
	t.Helper()
	s := &served{cfg: cfg, stdout: &lockedBuffer{}, logs: &lockedBuffer{}, done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	go func() {
		s.done <- serve(ctx, cfg, anyPort, anyPort, s.stdout, slog.New(slog.NewTextHandler(s.logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	}()
	t.Cleanup(func() { s.stop(t) })
	s.smtp, s.imap = listenAddr(t, s.stdout, "smtp", s.done), listenAddr(t, s.stdout, "imap", s.done)
	if cfg.WebAddr != "" {
		s.cfg.WebAddr = listenAddr(t, s.stdout, "web", s.done)
		if s.cfg.WebURL == "" {
			s.cfg.WebURL = "http://" + s.cfg.WebAddr
		}
	}
	if cfg.MetricsAddr != "" {
		s.cfg.MetricsAddr = listenAddr(t, s.stdout, "metrics", s.done)
	}
	// Logged once the control socket listens too.
	waitText(t, s.logs, `msg="lyngk serving"`)
	return s
}

// stop shuts serve down and waits for it (once; later calls do nothing).
func (s *served) stop(t *testing.T) {
	t.Helper()
	if s.cancel == nil {
		return
	}
	s.cancel()
	s.cancel = nil
	select {
	case err := <-s.done:
		if err != nil {
			t.Errorf("serve: %v", err)
		}
	case <-time.After(patience):
		t.Fatal("serve did not stop")
	}
}

// waitText waits until b holds re's match and returns its first group.
func waitText(t testing.TB, b *lockedBuffer, re string) string {
	t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.Now().Add(patience)
	for {
		if m := rx.FindStringSubmatch(b.String()); m != nil {
			return m[len(m)-1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited for %q in:\n%s", re, b.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// imapLogin reports whether user/pass logs in to the IMAP server at addr.
func imapLogin(t *testing.T, addr, user, pass string) error {
	t.Helper()
	c, err := imapclient.DialInsecure(addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.Login(user, pass).Wait()
}

// TestServeLocalRobotPassword: in local mode the robot's
// mailbox, whose subjects carry every signup password, no longer opens with
// the documented password `lyngk`; it has a random one printed at start,
// while players keep NAME. The daemon's own poller uses it: mail is still
// answered.
func TestServeLocalRobotPassword(t *testing.T) {
	cfg := defaultConfig()
	cfg.DataDir = t.TempDir()
	s := startServe(t, cfg)
	pw := waitText(t, s.stdout, `The server's address: lyngk@localhost \(its mailbox: password ([a-z2-7]{26}), new at each start\)`)
	if err := imapLogin(t, s.imap, "lyngk@localhost", "lyngk"); err == nil {
		t.Fatal("the robot's mailbox opens with password lyngk")
	}
	if err := imapLogin(t, s.imap, "lyngk@localhost", pw); err != nil {
		t.Fatalf("the robot's printed password: %v", err)
	}
	if err := imapLogin(t, s.imap, "alice@localhost", "alice"); err != nil {
		t.Fatalf("a player's documented password: %v", err)
	}
	alice := localPlayer{t: t, name: "alice", smtp: s.smtp, imap: s.imap}
	alice.send("help", "", "")
	if got := alice.await(1); got.Subject != "PBeM Server help" {
		t.Fatalf("alice got %q", got.Subject)
	}
	if strings.Contains(s.logs.String(), pw) {
		t.Fatalf("the robot's password is in the log:\n%s", s.logs.String())
	}
}

// uidMail is one mail of a mailbox as an IMAP client sees it.
type uidMail struct {
	UID     imap.UID
	Subject string
}

// mailboxUIDs logs in as user and returns a mailbox's UIDVALIDITY and mails.
func mailboxUIDs(t *testing.T, addr, user, pass, mailbox string) (uint32, []uidMail) {
	t.Helper()
	validity, msgs := mailtest.Fetch(t, addr, user, pass, mailbox, &imap.FetchOptions{UID: true, Envelope: true})
	var out []uidMail
	for _, m := range msgs {
		out = append(out, uidMail{m.UID, m.Envelope.Subject})
	}
	return validity, out
}

// TestServeLocalKeepsMail: `lyngk serve` in local mode
// keeps the mailboxes in its data directory. After a restart a player finds
// the same mails under the same UIDs and UIDVALIDITY, and new mail comes
// above them; the robot's Processed folder is kept too.
func TestServeLocalKeepsMail(t *testing.T) {
	cfg := defaultConfig()
	cfg.DataDir = t.TempDir()
	s := startServe(t, cfg)
	alice := localPlayer{t: t, name: "alice", smtp: s.smtp, imap: s.imap}
	alice.send("signup alice Sesame-8zq", "", "")
	alice.await(1)
	alice.send("help", "", "")
	alice.await(2)
	validity, before := mailboxUIDs(t, s.imap, "alice@localhost", "alice", "INBOX")
	if want := []uidMail{{1, "Confirm PBeM Server signup alice"}, {2, "PBeM Server help"}}; !slices.Equal(before, want) {
		t.Fatalf("alice's INBOX = %v, want %v", before, want)
	}
	s.stop(t)
	if _, err := os.Stat(filepath.Join(cfg.DataDir, localmail.LocalMailFile)); err != nil {
		t.Fatalf("no mailboxes in the data directory: %v", err)
	}

	s = startServe(t, cfg)
	alice = localPlayer{t: t, name: "alice", smtp: s.smtp, imap: s.imap}
	again, after := mailboxUIDs(t, s.imap, "alice@localhost", "alice", "INBOX")
	if again != validity || !slices.Equal(after, before) {
		t.Fatalf("after the restart: UIDVALIDITY %d, INBOX %v; want %d, %v", again, after, validity, before)
	}
	alice.send("list", "", "") // she has not confirmed: a stranger gets list, not a listing
	if got := alice.await(3); got.Subject != "PBeM Server help list" {
		t.Fatalf("alice got %q", got.Subject)
	}
	if _, got := mailboxUIDs(t, s.imap, "alice@localhost", "alice", "INBOX"); !slices.Equal(got[2:], []uidMail{{3, "PBeM Server help list"}}) {
		t.Fatalf("new mail after the restart: %v, want UID 3", got)
	}
	pw := waitText(t, s.stdout, `its mailbox: password ([a-z2-7]+)`)
	if _, got := mailboxUIDs(t, s.imap, "lyngk@localhost", pw, "Processed"); len(got) != 3 || got[2].UID != 3 {
		t.Fatalf("robot's Processed after the restart: %v", got)
	}
}

// TestServeServerName: the server's name (server_name) is the display
// name of its mails' sender, starts the subjects of the mails of no game
// and the local mode's help; the log names the server's address with the
// key "server", leaving "robot" to the computer player.
func TestServeServerName(t *testing.T) {
	cfg := defaultConfig()
	cfg.DataDir = t.TempDir()
	cfg.ServerName = "Club Kris"
	s := startServe(t, cfg)
	if !strings.Contains(s.logs.String(), "server=lyngk@localhost") || strings.Contains(s.logs.String(), "robot=lyngk@") {
		t.Errorf("the log does not name the server's address as server=:\n%s", s.logs.String())
	}
	if out := s.stdout.String(); !strings.Contains(out, "\nClub Kris, local all-in-one mode") ||
		!strings.Contains(out, `"lyngk challenge alice bob" or "yinsh challenge alice bob"`) {
		t.Errorf("local help:\n%s", out)
	}
	alice := localPlayer{t: t, name: "alice", smtp: s.smtp, imap: s.imap}
	alice.send("help", "", "")
	help := alice.await(1)
	if help.Subject != "Club Kris help" || help.FromName != "Club Kris" || help.From != "lyngk@localhost" {
		t.Errorf("help mail: subject %q from %q <%s>", help.Subject, help.FromName, help.From)
	}
}
