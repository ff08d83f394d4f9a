package mailer

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

func TestDebugLoop(t *testing.T) {
	l := startTestLocal(t)
	q := newFakeQueue(&eventLog{})
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	s := NewSender(SMTPConfig{Addr: l.SMTPAddr(), TLS: TLSNone}, q, log)
	handled := make(chan struct{}, 1)
	answer := func(_ context.Context, raw []byte) (Outcome, error) {
		_, subject, _ := strings.Cut(string(raw), "\r\nSubject: ")
		subject, _, _ = strings.Cut(subject, "\r\n")
		q.add("re: "+subject, "bob@localhost")
		s.Wake()
		handled <- struct{}{}
		return Processed, nil
	}
	p := NewPoller(IMAPConfig{Addr: l.IMAPAddr(), Username: "lyngk@localhost", Password: "lyngk", TLS: TLSNone,
		PollInterval: time.Hour}, answer, log)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go p.Run(ctx)
	go s.Run(ctx)
	c, err := smtp.Dial(l.SMTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	msg := testMail("bench")
	for i := range 20000 {
		if err := c.SendMail("alice@localhost", []string{"lyngk@localhost"}, bytes.NewReader(msg)); err != nil {
			t.Fatal(err)
		}
		select {
		case <-handled:
		case <-time.After(3 * time.Second):
			t.Fatalf("mail %d not handled; robot INBOX %d", i, len(inboxRaw(t, l.IMAPAddr(), "lyngk@localhost", "lyngk")))
		}
	}
}
