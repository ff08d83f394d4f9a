package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

// e2eRemoteMaxMail bounds a mail the remote providers take.
const e2eRemoteMaxMail = 1 << 20

// startRemote stands for the mail providers of players hosted elsewhere. A
// robot host hands its board mails to Postfix, which relays them over SMTP to
// the players' providers; here Postfix relays the remote domain to an SMTP
// server on the environment's remote address, which files each mail in the
// box of its envelope recipient (boxes is keyed by lower-case address) until
// the test ends. A mail counts as fetched when its data has been received.
func (e *e2eEnv) startRemote(tb testing.TB, boxes map[string]*e2eMailbox) {
	tb.Helper()
	ln, err := net.Listen("tcp", e.remoteAddr)
	if err != nil {
		tb.Fatalf("remote players' SMTP server: %v", err)
	}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) {
		return &e2eRemoteSession{boxes: boxes}, nil
	}))
	srv.Domain = e.remoteDomain
	srv.MaxMessageBytes = e2eRemoteMaxMail
	srv.MaxRecipients = 10
	srv.ReadTimeout = time.Minute
	srv.WriteTimeout = time.Minute
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	tb.Cleanup(func() {
		srv.Close()
		if err := <-done; err != nil && !errors.Is(err, smtp.ErrServerClosed) {
			tb.Errorf("remote players' SMTP server: %v", err)
		}
	})
}

// e2eRemoteSession is one SMTP session of Postfix's relay client.
type e2eRemoteSession struct {
	boxes map[string]*e2eMailbox // every player's, by lower-case address
	rcpts []*e2eMailbox          // this mail's
}

func (s *e2eRemoteSession) Mail(string, *smtp.MailOptions) error { return nil }

func (s *e2eRemoteSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	b := s.boxes[strings.ToLower(to)]
	if b == nil {
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such mailbox: " + to}
	}
	s.rcpts = append(s.rcpts, b)
	return nil
}

func (s *e2eRemoteSession) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	now := time.Now()
	for _, b := range s.rcpts {
		m, err := e2eParse(raw)
		if err != nil {
			// The mail is taken, or Postfix would retry it for ever; the
			// test waiting for it reports this error.
			b.fail(fmt.Errorf("remote mail to %s: %w", b.user, err))
			continue
		}
		m.Fetched = now
		b.add(m)
	}
	return nil
}

func (s *e2eRemoteSession) Reset()        { s.rcpts = nil }
func (s *e2eRemoteSession) Logout() error { return nil }
