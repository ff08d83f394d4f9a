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

// e2eRemote stands for the mail providers of players hosted elsewhere. A
// robot host hands its board mails to Postfix, which relays them over SMTP to
// the players' providers; here Postfix relays the remote domain to this SMTP
// server, which files each mail in its envelope recipient's box. A mail
// counts as fetched when its data has been received.
type e2eRemote struct {
	boxes map[string]*e2eMailbox // lower-case address -> box
}

// e2eRemoteMaxMail bounds a mail the remote providers take.
const e2eRemoteMaxMail = 1 << 20

// startRemote gives each player (with his address in the remote domain) a
// box of his own, listens on the environment's remote address until the test
// ends, and returns the boxes.
func (e *e2eEnv) startRemote(tb testing.TB, players []*e2ePlayer) []*e2eMailbox {
	tb.Helper()
	r := &e2eRemote{boxes: map[string]*e2eMailbox{}}
	var boxes []*e2eMailbox
	for _, p := range players {
		p.box = newE2EMailbox(tb, p.addr, "(relayed by SMTP)")
		r.boxes[strings.ToLower(p.addr)] = p.box
		boxes = append(boxes, p.box)
	}
	ln, err := net.Listen("tcp", e.remoteAddr)
	if err != nil {
		tb.Fatalf("remote players' SMTP server: %v", err)
	}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) {
		return &e2eRemoteSession{r: r}, nil
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
	return boxes
}

// e2eRemoteSession is one SMTP session of Postfix's relay client.
type e2eRemoteSession struct {
	r     *e2eRemote
	boxes []*e2eMailbox
}

func (s *e2eRemoteSession) Mail(string, *smtp.MailOptions) error { return nil }

func (s *e2eRemoteSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	b := s.r.boxes[strings.ToLower(to)]
	if b == nil {
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such mailbox: " + to}
	}
	s.boxes = append(s.boxes, b)
	return nil
}

func (s *e2eRemoteSession) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	now := time.Now()
	for _, b := range s.boxes {
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

func (s *e2eRemoteSession) Reset()        { s.boxes = nil }
func (s *e2eRemoteSession) Logout() error { return nil }
