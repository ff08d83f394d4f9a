package mailer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Queue is the outbox the Sender drains; it keeps every mail's delivery
// state (attempts, next attempt, last error) and decides which mails may go
// now. Begin and Finish take a whole round's mails at once, so that a round
// costs two durable writes however many mails it carries.
type Queue interface {
	// Due returns, in queue order, up to max mails that may be tried now,
	// at most one per recipient (per-recipient order is the queue's
	// business, not the sender's).
	Due(now time.Time, max int) ([]QueuedMail, error)
	// Begin counts one more attempt for each mail and sets the retry time
	// its failure would mean; it is called before any network I/O.
	Begin(as []Attempt) error
	// Finish records what became of a round's mails.
	Finish(now time.Time, rs []Result) error
}

// Attempt is one attempt to record: the retry time if it fails.
type Attempt struct {
	ID   uint64
	Next time.Time
}

// Result is what became of one mail of a round.
type Result struct {
	ID     uint64
	Status Status
	Err    string // the error, for every status but Accepted
}

// Status is the outcome of an attempt to send a mail.
type Status int

const (
	// Accepted: the relay took the mail; it leaves the queue.
	Accepted Status = iota
	// Deferred: the mail was refused for now (a 4xx answer to it, or its
	// session broke while it was being sent); it keeps its attempt and
	// waits for the next step of RetrySchedule.
	Deferred
	// Refused: the mail was refused for good (5xx); it goes to the dead
	// letters.
	Refused
	// RelayDown: the relay failed, not the mail (no connection, TLS,
	// authentication, 421, the session gone before the mail began): the
	// attempt is taken back and the mail is due again at once; the
	// sender's own backoff paces the reconnections.
	RelayDown
)

// QueuedMail is one outgoing mail: raw RFC 5322 bytes and its envelope.
type QueuedMail struct {
	ID       uint64
	From     string
	To       []string
	Data     []byte
	Attempts int       // attempts made so far
	Queued   time.Time // when it entered the queue (for latency metrics; may be zero)
}

const (
	smtpCommandTimeout    = 30 * time.Second
	smtpSubmissionTimeout = time.Minute // for the answer to the final "."
	sendBatch             = 100
	// A round of more than mailsPerConn mails opens another connection for
	// every mailsPerConn of them, up to sendConns connections in all.
	sendConns    = 4
	mailsPerConn = 8
	// senderPoll is the longest the sender sleeps without a Wake: it finds
	// retries whose time has come and mail queued by another process.
	senderPoll = 5 * time.Second
)

// Sender submits queued mail over SMTP. A mail refused for now waits for
// the next step of RetrySchedule; a failing relay costs the mails nothing and
// makes the sender back off on RelaySchedule instead. Set OnSent before
// calling Run.
type Sender struct {
	// OnSent, if set, is called after the server accepted a mail.
	OnSent func(m QueuedMail, accepted time.Time)

	cfg  SMTPConfig
	q    Queue
	log  *slog.Logger
	wake chan struct{}
	now  func() time.Time
	poll time.Duration // the longest sleep without a Wake
	step func(string)  // CheckSMTPSteps's report of each step done; nil when sending

	// Owned by Run's goroutine: the relay's state, not any mail's (that
	// is all in the Queue).
	relayFails int       // relay failures in a row
	downUntil  time.Time // no new connection before this
}

// NewSender returns a sender; Run does the work.
func NewSender(cfg SMTPConfig, q Queue, log *slog.Logger) *Sender {
	return &Sender{
		cfg:  cfg.WithDefaults(),
		q:    q,
		log:  orDiscard(log),
		wake: make(chan struct{}, 1),
		now:  time.Now,
		poll: senderPoll,
	}
}

// Wake asks for a pass over the queue now (new mail was queued). It never
// blocks.
func (s *Sender) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Run drains the queue until ctx is cancelled, then returns nil; a mail
// being submitted is finished first. It returns an error only for a
// configuration it cannot use.
func (s *Sender) Run(ctx context.Context) error {
	if err := s.cfg.Validate(); err != nil {
		return err
	}
	for {
		next := s.round(ctx)
		if ctx.Err() != nil {
			return nil
		}
		d := next.Sub(s.now())
		if d <= 0 {
			continue
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-s.wake:
			t.Stop()
		case <-t.C:
		}
	}
}

// round tries the due mails once and returns when the next round should
// start.
func (s *Sender) round(ctx context.Context) time.Time {
	now := s.now()
	if now.Before(s.downUntil) {
		return s.downUntil
	}
	mails, err := s.q.Due(now, sendBatch)
	if err != nil {
		s.log.Error("outbox read failed", "err", err)
		return now.Add(s.poll)
	}
	var todo []QueuedMail
	var results []Result
	for _, m := range mails {
		if m.Attempts >= len(RetrySchedule) { // the last attempt was cut short (a crash)
			results = append(results, Result{ID: m.ID, Status: Refused, Err: fmt.Sprintf("mailer: gave up after %d attempts", m.Attempts)})
			continue
		}
		todo = append(todo, m)
	}
	if len(todo) == 0 {
		return s.finish(ctx, now, mails, results)
	}
	// Attempts are recorded before any network I/O, so that a crash
	// during an attempt still counts it and can never become a tight loop.
	as := make([]Attempt, len(todo))
	for i, m := range todo {
		as[i] = Attempt{ID: m.ID, Next: now.Add(RetrySchedule[m.Attempts])}
	}
	if err := s.q.Begin(as); err != nil {
		s.log.Error("outbox update failed", "err", err)
		return now.Add(s.poll)
	}
	for i := range todo {
		todo[i].Attempts++
	}
	c, err := s.dial(ctx)
	if err != nil {
		for _, m := range todo {
			results = append(results, Result{ID: m.ID, Status: RelayDown, Err: err.Error()})
		}
		return s.finish(ctx, now, mails, results)
	}
	defer s.quit(c)
	return s.finish(ctx, now, mails, append(results, s.submitAll(ctx, c, todo)...))
}

// finish records a round's results, logs them, and returns when the next
// round should start.
func (s *Sender) finish(ctx context.Context, now time.Time, mails []QueuedMail, results []Result) time.Time {
	byID := make(map[uint64]QueuedMail, len(mails))
	for _, m := range mails {
		byID[m.ID] = m
	}
	var relayErr string
	left := false // a mail left the queue: later mails to its recipients may be due
	for i, r := range results {
		m := byID[r.ID]
		switch r.Status {
		case Deferred:
			if m.Attempts+1 >= len(RetrySchedule) {
				results[i] = Result{ID: r.ID, Status: Refused, Err: fmt.Sprintf("mailer: gave up after %d attempts: %s", m.Attempts+1, r.Err)}
				left = true
			}
		case Accepted, Refused:
			left = true
		case RelayDown:
			relayErr = r.Err
		}
	}
	if len(results) > 0 {
		if err := s.q.Finish(s.now(), results); err != nil {
			// Accepted mails stay queued and will be sent twice, which
			// beats losing them.
			s.log.Error("outbox update failed", "err", err)
			return now.Add(s.poll)
		}
	}
	accepted := s.now()
	for _, r := range results {
		m := byID[r.ID]
		switch r.Status {
		case Accepted:
			s.log.Debug("mail sent", "id", m.ID, "to", m.To, "attempts", m.Attempts+1)
			if s.OnSent != nil {
				s.OnSent(m, accepted)
			}
		case Deferred:
			s.log.Warn("mail not sent, will retry", "id", m.ID, "to", m.To, "attempts", m.Attempts+1,
				"retry_at", now.Add(RetrySchedule[m.Attempts]), "err", r.Err)
		case Refused:
			s.log.Error("mail given up", "id", m.ID, "from", m.From, "to", m.To, "err", r.Err)
		}
	}
	if relayErr != "" && ctx.Err() == nil {
		wait := backoff(RelaySchedule, s.relayFails)
		s.relayFails++
		s.downUntil = now.Add(wait)
		s.log.Warn("SMTP relay failed; mail stays queued without spending its retries", "failures", s.relayFails,
			"retry_in", wait.Round(time.Millisecond), "err", relayErr)
		return s.downUntil
	}
	if len(results) > 0 {
		s.relayFails = 0
	}
	if left || len(mails) == sendBatch {
		return now // more may be waiting
	}
	return now.Add(s.poll)
}

// submitAll submits a round's mails, which go to pairwise different
// recipients, on c and, for a big round, on up to sendConns-1 more
// connections at once: the server answers each mail only once its queue file
// is safely on disk, and one connection would spend most of a busy round
// waiting for that. A connection whose session breaks stops taking mails;
// the others finish the round. A mail no connection got to is RelayDown.
func (s *Sender) submitAll(ctx context.Context, c *smtp.Client, todo []QueuedMail) []Result {
	results := make([]Result, len(todo))
	for i, m := range todo {
		results[i] = Result{ID: m.ID, Status: RelayDown, Err: "mailer: not tried: the SMTP session ended first"}
	}
	queue := make(chan int, len(todo))
	for i := range todo {
		queue <- i
	}
	close(queue)
	work := func(c *smtp.Client) {
		for i := range queue {
			if ctx.Err() != nil {
				results[i].Err = "mailer: not tried: the sender is stopping"
				return
			}
			status, err := submit(c, todo[i], s.now())
			results[i].Status = status
			if err == nil {
				results[i].Err = ""
				continue
			}
			results[i].Err = err.Error()
			// After a refusal of the mail, RSET abandons the transaction;
			// after any other error the session is gone or useless.
			var se *smtp.SMTPError
			if status == RelayDown || !errors.As(err, &se) || c.Reset() != nil {
				return
			}
		}
	}
	var wg sync.WaitGroup
	for range min(sendConns, 1+(len(todo)-1)/mailsPerConn) - 1 {
		wg.Go(func() {
			extra, err := s.dial(ctx)
			if err != nil {
				s.log.Warn("extra SMTP connection failed; the round goes on without it", "err", err)
				return
			}
			defer s.quit(extra)
			work(extra)
		})
	}
	work(c)
	wg.Wait()
	return results
}

// submit sends one mail on c, dated now, and judges the answer.
func submit(c *smtp.Client, m QueuedMail, now time.Time) (Status, error) {
	var opts *smtp.MailOptions
	if !isASCII(m.From) || slices.ContainsFunc(m.To, func(r string) bool { return !isASCII(r) }) {
		opts = &smtp.MailOptions{UTF8: true} // RFC 6531
	}
	// Any failure of MAIL FROM is about our own address or the session, a
	// problem every mail shares: the relay's, not this mail's.
	if err := c.Mail(m.From, opts); err != nil {
		return RelayDown, err
	}
	for _, r := range m.To {
		if err := c.Rcpt(r, nil); err != nil {
			return verdict(err), err
		}
	}
	w, err := c.Data()
	if err != nil {
		return verdict(err), err
	}
	if _, err := w.Write(setDate(m.Data, now)); err != nil {
		w.Close()
		return verdict(err), err
	}
	if err := w.Close(); err != nil {
		return verdict(err), err
	}
	return Accepted, nil
}

// dateLayout is RFC 5322's date-time, as go-message writes it.
const dateLayout = "Mon, 02 Jan 2006 15:04:05 -0700"

// setDate returns data with its Date field set to t, the time the mail is
// handed to the relay. RFC 5322 §3.6.1 dates a mail when it is "ready to
// enter the mail delivery system", and spam filters score a Date hours
// before the relay's Received line (SpamAssassin's DATE_IN_PAST_03_06 made a
// board mail held 4 h in the outbox spam). Only the top-level header's Date
// changes (a field of one line or folded); the Message-ID and the rest stay
// as stored. A mail without one gets it first.
func setDate(data []byte, t time.Time) []byte {
	field := "Date: " + t.Format(dateLayout) + "\r\n"
	for i := 0; i < len(data); {
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			break
		}
		line := data[i : i+j+1]
		if len(bytes.TrimRight(line, "\r\n")) == 0 {
			break // the end of the header
		}
		if len(line) >= 5 && bytes.EqualFold(line[:5], []byte("date:")) {
			end := i + j + 1
			for end < len(data) && (data[end] == ' ' || data[end] == '\t') {
				k := bytes.IndexByte(data[end:], '\n')
				if k < 0 {
					end = len(data)
					break
				}
				end += k + 1
			}
			return slices.Concat(data[:i], []byte(field), data[end:])
		}
		i += j + 1
	}
	return slices.Concat([]byte(field), data)
}

// verdict judges a failure of a mail's RCPT TO or data by go-smtp's error:
// 421 closes the session for reasons of the server's own (RFC 5321 §3.8),
// another 4xx refuses the mail for now, a 5xx for good. A session that
// breaks in the middle of a mail is charged to the mail, since the mail may
// be its cause; it still gets every retry of its schedule.
func verdict(err error) Status {
	var se *smtp.SMTPError
	switch {
	case !errors.As(err, &se):
		return Deferred
	case se.Code == 421:
		return RelayDown
	case se.Temporary():
		return Deferred
	case se.Code/100 == 5:
		return Refused
	}
	return Deferred
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func (s *Sender) dial(ctx context.Context) (*smtp.Client, error) {
	tc, err := s.cfg.tlsConfig()
	if err != nil {
		return nil, err
	}
	conn, err := dialTCP(ctx, s.cfg.Addr, s.cfg.TLS)
	if err != nil {
		return nil, fmt.Errorf("mailer: SMTP dial: %w", err)
	}
	report(s.step, "TCP connection to %s", conn.RemoteAddr())
	var c *smtp.Client
	switch s.cfg.TLS {
	case TLSNone:
		c = smtp.NewClient(conn)
	case TLSStartTLS:
		// NewClientStartTLS waits minutes for the greeting: guard it.
		if err := guard(smtpCommandTimeout, conn.Close, "SMTP STARTTLS", func() (err error) {
			c, err = smtp.NewClientStartTLS(conn, tc)
			return err
		}); err != nil {
			conn.Close()
			return nil, fmt.Errorf("mailer: SMTP STARTTLS: %w", err)
		}
		report(s.step, "greeting, STARTTLS, the server's certificate verified")
	default:
		if conn, err = handshake(ctx, conn, tc); err != nil {
			return nil, fmt.Errorf("mailer: SMTP %w", err)
		}
		report(s.step, "TLS handshake, the server's certificate verified")
		c = smtp.NewClient(conn)
	}
	c.CommandTimeout = smtpCommandTimeout
	c.SubmissionTimeout = smtpSubmissionTimeout
	// After STARTTLS this is the first command on TLS: a bad certificate
	// shows up here, not as a puzzling AUTH error later.
	if err := c.Hello(s.cfg.HeloName); err != nil {
		c.Close()
		return nil, fmt.Errorf("mailer: SMTP EHLO: %w", err)
	}
	report(s.step, "EHLO %s", s.cfg.HeloName)
	if err := s.login(ctx, c); err != nil {
		c.Close()
		return nil, err
	}
	switch {
	case s.cfg.Auth != AuthPassword:
		report(s.step, "AUTH %s as %s with a fresh access token", s.cfg.Auth, s.cfg.Username)
	case s.cfg.Username != "":
		report(s.step, "AUTH PLAIN as %s", s.cfg.Username)
	}
	return c, nil
}

// login authenticates by the configured method: AUTH PLAIN with the
// password (when a username is set), or XOAUTH2/OAUTHBEARER with a fresh
// OAuth2 access token.
func (s *Sender) login(ctx context.Context, c *smtp.Client) error {
	if s.cfg.Auth != AuthPassword {
		sc := newOAuthClient(s.cfg.Auth, s.cfg.Username, "", s.cfg.Addr)
		if !c.SupportsAuth(sc.mech) {
			return fmt.Errorf("mailer: SMTP server at %s does not offer AUTH %s", s.cfg.Addr, sc.mech)
		}
		tctx, cancel := context.WithTimeout(ctx, smtpCommandTimeout)
		token, err := s.cfg.Tokens(tctx)
		cancel()
		if err != nil {
			return fmt.Errorf("mailer: SMTP %s: access token: %w", s.cfg.Auth, err)
		}
		sc = newOAuthClient(s.cfg.Auth, s.cfg.Username, token, s.cfg.Addr)
		if err := c.Auth(sc); err != nil {
			var serr *smtp.SMTPError
			if errors.As(err, &serr) {
				return fmt.Errorf("mailer: SMTP %w", sc.refused(err))
			}
			return fmt.Errorf("mailer: SMTP AUTH: %w", err)
		}
		return nil
	}
	if s.cfg.Username != "" {
		if !c.SupportsAuth("PLAIN") {
			return fmt.Errorf("mailer: SMTP server at %s does not offer AUTH PLAIN", s.cfg.Addr)
		}
		if err := c.Auth(sasl.NewPlainClient("", s.cfg.Username, s.cfg.Password)); err != nil {
			return fmt.Errorf("mailer: SMTP AUTH: %w", err)
		}
	}
	return nil
}

// CheckSMTP connects as the sender would, logs in and quits: what an
// operator runs to see that the settings work. It reports the step that
// failed.
func CheckSMTP(ctx context.Context, cfg SMTPConfig) error { return CheckSMTPSteps(ctx, cfg, nil) }

// CheckSMTPSteps is CheckSMTP telling step (when not nil) of each step
// done: the connection, TLS, EHLO, the login, QUIT.
func CheckSMTPSteps(ctx context.Context, cfg SMTPConfig, step func(string)) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	s := NewSender(cfg, nil, nil)
	s.step = step
	c, err := s.dial(ctx)
	if err != nil {
		return err
	}
	s.quit(c)
	report(step, "QUIT")
	return nil
}

func (s *Sender) quit(c *smtp.Client) {
	if err := c.Quit(); err != nil {
		c.Close()
	}
}
