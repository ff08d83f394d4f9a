package localmail

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"lyngk.example/lyngk/mailer"
	"lyngk.example/lyngk/mailer/mailtest"
)

func startTestLocal(t testing.TB) *Local {
	t.Helper()
	l, err := StartLocal(context.Background(), LocalConfig{SMTPAddr: "127.0.0.1:0", IMAPAddr: "127.0.0.1:0",
		Server: "lyngk@localhost", Dir: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return l
}

func smtpSubmit(t testing.TB, addr, from string, to []string, msg []byte) error {
	t.Helper()
	c, err := smtp.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.SendMail(from, to, bytes.NewReader(msg))
}

// inboxRaw returns the raw mails in a user's INBOX over IMAP.
func inboxRaw(t *testing.T, addr, user, pass string) []string {
	t.Helper()
	_, msgs := mailtest.Fetch(t, addr, user, pass, "INBOX", &imap.FetchOptions{
		BodySection: []*imap.FetchItemBodySection{{Peek: true}},
	})
	var out []string
	for _, m := range msgs {
		out = append(out, string(m.FindBodySection(&imap.FetchItemBodySection{})))
	}
	return out
}

func TestLocalSMTPToIMAP(t *testing.T) {
	l := startTestLocal(t)
	// A mail client may log in before any mail arrived.
	if got := inboxRaw(t, l.IMAPAddr(), "bob@localhost", "bob"); len(got) != 0 {
		t.Fatalf("new INBOX holds %q", got)
	}
	msg := mailtest.Mail("hello")
	if err := smtpSubmit(t, l.SMTPAddr(), "alice@localhost", []string{"bob@localhost", "Carol@LOCALHOST", "bob@localhost"}, msg); err != nil {
		t.Fatal(err)
	}
	for _, user := range []string{"bob", "carol"} {
		got := inboxRaw(t, l.IMAPAddr(), user+"@localhost", user)
		if len(got) != 1 {
			t.Fatalf("%s has %d mails, want 1", user, len(got))
		}
		if !strings.HasPrefix(got[0], "Return-Path: <alice@localhost>\r\nReceived: from localhost by localhost") ||
			!strings.HasSuffix(got[0], "\r\n"+string(msg)) {
			t.Errorf("%s got\n%s", user, got[0])
		}
	}
	if got := mailtest.ReadMailbox(t, l.IMAPAddr(), "bob@localhost", "bob", "INBOX"); len(got) != 1 || got[0] != (mailtest.Listed{Subject: "hello", Seen: false}) {
		t.Errorf("bob's INBOX lists %v", got)
	}
}

func TestLocalRefusals(t *testing.T) {
	l := startTestLocal(t)
	var se *smtp.SMTPError
	err := smtpSubmit(t, l.SMTPAddr(), "alice@localhost", []string{"bob@example.com"}, mailtest.Mail("out"))
	if !errors.As(err, &se) || se.Code != 550 {
		t.Errorf("mail to bob@example.com: %v, want a 550", err)
	}
	logins := []struct{ user, pass string }{
		{"bob@localhost", "alice"},
		{"bob@localhost", ""},
		{"bob@example.com", "bob"},
		{"b b@localhost", "b b"},
		{"@localhost", ""},
		{"lyngk@localhost", "lyngk"}, // the robot's mailbox has a random password
		{"LYNGK@localhost", "LYNGK"},
		{"lyngk@localhost", strings.ToUpper(l.RobotPassword())},
	}
	for _, lg := range logins {
		c, err := imapclient.DialInsecure(l.IMAPAddr(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Login(lg.user, lg.pass).Wait(); err == nil {
			t.Errorf("login %q/%q accepted", lg.user, lg.pass)
		}
		c.Close()
	}
}

// TestLocalRobotPassword: the robot's mailbox opens with the random password
// of this start only (128 bits from crypto/rand), by IMAP and SMTP AUTH.
func TestLocalRobotPassword(t *testing.T) {
	l := startTestLocal(t)
	pw := l.RobotPassword()
	if len(pw) != 26 || pw == "lyngk" {
		t.Fatalf("robot password %q: want 26 base32 characters", pw)
	}
	if other := startTestLocal(t).RobotPassword(); other == pw {
		t.Fatalf("two starts gave the same robot password %q", pw)
	}
	c, err := imapclient.DialInsecure(l.IMAPAddr(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Login("lyngk@localhost", pw).Wait(); err != nil {
		t.Fatalf("robot login with its password: %v", err)
	}
	sc, err := smtp.Dial(l.SMTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	if err := sc.Auth(sasl.NewPlainClient("", "lyngk@localhost", "lyngk")); err == nil {
		t.Fatal("SMTP AUTH as the robot with password lyngk accepted")
	}
	if err := sc.Auth(sasl.NewPlainClient("", "lyngk@localhost", pw)); err != nil {
		t.Fatalf("SMTP AUTH as the robot with its password: %v", err)
	}
}

func TestStartLocalRefusesNonLoopback(t *testing.T) {
	tests := []struct {
		smtpAddr, imapAddr, robot string
		want                      error
	}{
		{"0.0.0.0:0", "127.0.0.1:0", "lyngk@localhost", mailer.ErrNotLoopback},
		{"127.0.0.1:0", ":0", "lyngk@localhost", mailer.ErrNotLoopback},
		{"192.0.2.1:25", "127.0.0.1:0", "lyngk@localhost", mailer.ErrNotLoopback},
		{"127.0.0.1:0", "127.0.0.1:0", "lyngk@example.com", mailer.ErrBadConfig},
	}
	for _, tt := range tests {
		l, err := StartLocal(context.Background(), LocalConfig{SMTPAddr: tt.smtpAddr, IMAPAddr: tt.imapAddr,
			Server: tt.robot, Dir: t.TempDir()}, nil)
		if !errors.Is(err, tt.want) {
			t.Errorf("StartLocal(%s, %s, %s) = %v, want %v", tt.smtpAddr, tt.imapAddr, tt.robot, err, tt.want)
		}
		if l != nil {
			l.Close()
		}
	}
}

func TestLocalNames(t *testing.T) {
	tests := []struct {
		addr, name string
		ok         bool
	}{
		{"bob@localhost", "bob", true},
		{"Bob.Smith+lyngk@LocalHost", "bob.smith+lyngk", true},
		{"bob@example.com", "", false},
		{"bob", "", false},
		{"@localhost", "", false},
		{"b/b@localhost", "", false},
		{"bob@localhost@localhost", "", false},
	}
	for _, tt := range tests {
		name, ok := localName(tt.addr)
		if name != tt.name || ok != tt.ok {
			t.Errorf("localName(%q) = %q, %v; want %q, %v", tt.addr, name, ok, tt.name, tt.ok)
		}
	}
}

// localLoop is local mode end to end: a robot reading its mailbox with the
// Poller and answering through a queue drained by the Sender, both over the
// real protocols to a Local.
type localLoop struct {
	l      *Local
	q      *memQueue
	marked func() int // mails the robot handled and moved
}

func startLocalLoop(t testing.TB) *localLoop {
	t.Helper()
	l := startTestLocal(t)
	q := &memQueue{}
	s := mailer.NewSender(mailer.SMTPConfig{Addr: l.SMTPAddr(), TLS: mailer.TLSNone}, q, nil)
	answer := func(_ context.Context, raw []byte) (mailer.Outcome, error) {
		_, subject, _ := strings.Cut(string(raw), "\r\nSubject: ")
		subject, _, _ = strings.Cut(subject, "\r\n")
		q.add("re: "+subject, "bob@localhost")
		s.Wake()
		return mailer.Processed, nil
	}
	p := mailer.NewPoller(mailer.IMAPConfig{Addr: l.IMAPAddr(), Username: "lyngk@localhost", Password: l.RobotPassword(), TLS: mailer.TLSNone,
		PollInterval: time.Hour}, eachMail(answer), nil)
	marked := countMarked(p)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{}, 2)
	go func() { p.Run(ctx); done <- struct{}{} }()
	go func() { s.Run(ctx); done <- struct{}{} }()
	t.Cleanup(func() { cancel(); <-done; <-done })
	return &localLoop{l: l, q: q, marked: marked}
}

func TestLocalModeEndToEnd(t *testing.T) {
	ll := startLocalLoop(t)
	if err := smtpSubmit(t, ll.l.SMTPAddr(), "alice@localhost", []string{"lyngk@localhost"}, mailtest.Mail("move a1-b2")); err != nil {
		t.Fatal(err)
	}
	mailtest.WaitFor(t, "the answer in bob's INBOX", func() bool {
		return ll.q.len() == 0 && ll.marked() == 1 && len(mailtest.ReadMailbox(t, ll.l.IMAPAddr(), "bob@localhost", "bob", "INBOX")) == 1
	})
	if got := mailtest.ReadMailbox(t, ll.l.IMAPAddr(), "bob@localhost", "bob", "INBOX"); got[0].Subject != "re: move a1-b2" {
		t.Errorf("bob got %v", got)
	}
	if got := mailtest.ReadMailbox(t, ll.l.IMAPAddr(), "lyngk@localhost", ll.l.RobotPassword(), "Processed"); len(got) != 1 || !got[0].Seen {
		t.Errorf("robot's Processed = %v", got)
	}
}

// idleWatcher is an IMAP client idling on an INBOX, reporting EXISTS.
func idleWatcher(b *testing.B, addr, user, pass string) chan struct{} {
	b.Helper()
	exists := make(chan struct{}, 1)
	c, err := imapclient.DialInsecure(addr, &imapclient.Options{UnilateralDataHandler: &imapclient.UnilateralDataHandler{
		Mailbox: func(d *imapclient.UnilateralDataMailbox) {
			if d.NumMessages != nil {
				select {
				case exists <- struct{}{}:
				default:
				}
			}
		},
	}})
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Login(user, pass).Wait(); err != nil {
		b.Fatal(err)
	}
	if _, err := c.Select("INBOX", nil).Wait(); err != nil {
		b.Fatal(err)
	}
	idle, err := c.Idle()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		idle.Close()
		c.Close()
	})
	return exists
}

func waitExists(b *testing.B, exists chan struct{}) {
	select {
	case <-exists:
	case <-time.After(mailtest.Deadline):
		b.Fatal("no EXISTS")
	}
}

// BenchmarkLocalSubmitToIMAP is one mail from SMTP submission to the
// EXISTS announcement on an idling IMAP client.
func BenchmarkLocalSubmitToIMAP(b *testing.B) {
	l := startTestLocal(b)
	exists := idleWatcher(b, l.IMAPAddr(), "bob@localhost", "bob")
	c, err := smtp.Dial(l.SMTPAddr())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	msg := mailtest.Mail("bench")
	for b.Loop() {
		if err := c.SendMail("alice@localhost", []string{"bob@localhost"}, bytes.NewReader(msg)); err != nil {
			b.Fatal(err)
		}
		waitExists(b, exists)
	}
}

// BenchmarkLocalReply is the robot's round trip in local mode: a player's
// SMTP submission, the Poller's IDLE wake-up, fetch and handler, the
// Sender's SMTP submission of the answer, and its EXISTS on the other
// player's idling IMAP client.
func BenchmarkLocalReply(b *testing.B) {
	ll := startLocalLoop(b)
	exists := idleWatcher(b, ll.l.IMAPAddr(), "bob@localhost", "bob")
	c, err := smtp.Dial(ll.l.SMTPAddr())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	msg := mailtest.Mail("bench")
	for b.Loop() {
		if err := c.SendMail("alice@localhost", []string{"lyngk@localhost"}, bytes.NewReader(msg)); err != nil {
			b.Fatal(err)
		}
		waitExists(b, exists)
	}
}
