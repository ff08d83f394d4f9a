package mailer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Queue is the outbox the Sender drains. Due returns mails in queue order.
// RecordAttempts and Sent take a whole round's mails at once, so that a
// round costs two durable writes however many mails it carries.
type Queue interface {
	Due(now time.Time, max int) ([]QueuedMail, error)
	// RecordAttempts counts one more attempt for each mail and sets its
	// next one.
	RecordAttempts(as []Attempt) error
	// Sent removes mails the server accepted.
	Sent(ids []uint64) error
	Dead(id uint64, errText string) error
}

// Attempt is one attempt to record: the retry time if it fails, and the
// error of the previous attempt ("" if none is known).
type Attempt struct {
	ID   uint64
	Next time.Time
	Err  string
}

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

// Sender submits queued mail over SMTP, retrying on RetrySchedule.
// Set OnSent before calling Run.
type Sender struct {
	// OnSent, if set, is called after the server accepted a mail.
	OnSent func(m QueuedMail, accepted time.Time)

	cfg  SMTPConfig
	q    Queue
	log  *slog.Logger
	wake chan struct{}
	now  func() time.Time

	// Owned by Run's goroutine.
	lastErr   map[uint64]string    // error of the last failed attempt, for the next RecordAttempt
	blocked   map[string]time.Time // recipient -> until: an earlier mail to it is waiting for a retry
	connFails int                  // connection failures in a row
	downUntil time.Time            // no new connection before this
}

// NewSender returns a sender; Run does the work.
func NewSender(cfg SMTPConfig, q Queue, log *slog.Logger) *Sender {
	return &Sender{
		cfg:     cfg.WithDefaults(),
		q:       q,
		log:     orDiscard(log),
		wake:    make(chan struct{}, 1),
		now:     time.Now,
		lastErr: make(map[uint64]string),
		blocked: make(map[string]time.Time),
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

// round tries the due mails once, on one connection, and returns when the
// next round should start.
func (s *Sender) round(ctx context.Context) time.Time {
	now := s.now()
	if now.Before(s.downUntil) {
		return s.downUntil
	}
	mails, err := s.q.Due(now, sendBatch)
	if err != nil {
		s.log.Error("outbox read failed", "err", err)
		return now.Add(senderPoll)
	}
	// A round carries at most one mail per recipient: should it fail, the
	// next one to that recipient must wait for its retry (per-recipient
	// order), and it is not charged an attempt it never had.
	var todo []QueuedMail
	inRound := map[string]bool{}
	deferred := false
	for _, m := range mails {
		switch {
		case s.isBlocked(m.To, now):
			// per-recipient order: an earlier mail to one of them waits for a retry
		case slices.ContainsFunc(m.To, func(r string) bool { return inRound[strings.ToLower(r)] }):
			deferred = true
		case m.Attempts >= len(RetrySchedule): // the last attempt was cut short
			s.dead(m, fmt.Sprintf("mailer: gave up after %d attempts", m.Attempts))
		default:
			todo = append(todo, m)
		}
		for _, r := range m.To {
			inRound[strings.ToLower(r)] = true
		}
	}
	if len(todo) == 0 {
		return now.Add(senderPoll)
	}
	retry := func(m QueuedMail) time.Time { return now.Add(RetrySchedule[m.Attempts]) }
	// Attempts are recorded before any network I/O, so that a crash during
	// an attempt still counts it and can never become a tight loop. The
	// first mail is charged alone before dialing, so a server that is down
	// costs one attempt; the rest of the round in one write once connected.
	record := func(ms []QueuedMail) bool {
		as := make([]Attempt, len(ms))
		for i, m := range ms {
			as[i] = Attempt{ID: m.ID, Next: retry(m), Err: s.lastErr[m.ID]}
		}
		if err := s.q.RecordAttempts(as); err != nil {
			s.log.Error("outbox update failed", "err", err)
			return false
		}
		return true
	}
	if !record(todo[:1]) {
		return now.Add(senderPoll)
	}
	c, err := s.dial(ctx)
	if err != nil {
		todo[0].Attempts++
		s.failed(todo[0], retry(todo[0]), err)
		s.connFails++
		s.downUntil = now.Add(backoff(ReconnectSchedule, s.connFails-1))
		return s.downUntil
	}
	s.connFails = 0
	defer s.quit(c)
	if !record(todo[1:]) {
		todo = todo[:1]
	}
	results := s.submitAll(ctx, c, todo)
	var sent []QueuedMail
	broken := false
	for i, m := range todo {
		next := retry(m)
		m.Attempts++
		r := results[i]
		broken = broken || r.broke
		switch {
		case !r.tried:
			// A connection broke or we are stopping: the mail keeps the
			// attempt it was charged and waits for its retry, and so do
			// later mails to its recipients.
			broken = true
			s.block(m.To, next)
		case r.err == nil:
			sent = append(sent, m)
		case r.permanent:
			s.dead(m, r.err.Error())
		default:
			s.failed(m, next, r.err)
		}
	}
	s.sent(sent)
	if broken {
		return now.Add(backoff(ReconnectSchedule, 0))
	}
	if deferred || len(mails) == sendBatch {
		return now // more are waiting
	}
	return now.Add(senderPoll)
}

// submitResult is what became of one mail of a round.
type submitResult struct {
	tried     bool // false: its connection broke first, or the sender is stopping
	broke     bool // the session ended with this mail
	permanent bool
	err       error
}

// submitAll submits a round's mails, which go to pairwise different
// recipients, on c and, for a big round, on up to sendConns-1 more
// connections at once: the server answers each mail only once its queue file
// is safely on disk, and one connection would spend most of a busy round
// waiting for that. A connection whose session breaks stops taking mails;
// the others finish the round.
func (s *Sender) submitAll(ctx context.Context, c *smtp.Client, todo []QueuedMail) []submitResult {
	results := make([]submitResult, len(todo))
	queue := make(chan int, len(todo))
	for i := range todo {
		queue <- i
	}
	close(queue)
	work := func(c *smtp.Client) {
		for i := range queue {
			if ctx.Err() != nil {
				return
			}
			permanent, err := submit(c, todo[i])
			results[i] = submitResult{tried: true, permanent: permanent, err: err}
			if err == nil {
				continue
			}
			// After a refusal, RSET abandons the transaction; after any
			// other error the session is gone.
			var se *smtp.SMTPError
			if !errors.As(err, &se) || c.Reset() != nil {
				results[i].broke = true
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

// submit sends one mail on c. Only a 5xx answer to RCPT TO or to the data
// condemns the mail: one to MAIL FROM is about our own address or session,
// a configuration problem every mail shares, so it counts as temporary.
func submit(c *smtp.Client, m QueuedMail) (permanent bool, err error) {
	var opts *smtp.MailOptions
	if !isASCII(m.From) || slices.ContainsFunc(m.To, func(r string) bool { return !isASCII(r) }) {
		opts = &smtp.MailOptions{UTF8: true} // RFC 6531
	}
	if err := c.Mail(m.From, opts); err != nil {
		return false, err
	}
	for _, r := range m.To {
		if err := c.Rcpt(r, nil); err != nil {
			return isPermanent(err), err
		}
	}
	w, err := c.Data()
	if err != nil {
		return isPermanent(err), err
	}
	if _, err := w.Write(m.Data); err != nil {
		w.Close()
		return false, err
	}
	if err := w.Close(); err != nil {
		return isPermanent(err), err
	}
	return false, nil
}

func isPermanent(err error) bool {
	var se *smtp.SMTPError
	return errors.As(err, &se) && se.Code >= 500
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
	default:
		if conn, err = handshake(ctx, conn, tc); err != nil {
			return nil, fmt.Errorf("mailer: SMTP %w", err)
		}
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
	if s.cfg.Username != "" {
		if !c.SupportsAuth("PLAIN") {
			c.Close()
			return nil, fmt.Errorf("mailer: SMTP server at %s does not offer AUTH PLAIN", s.cfg.Addr)
		}
		if err := c.Auth(sasl.NewPlainClient("", s.cfg.Username, s.cfg.Password)); err != nil {
			c.Close()
			return nil, fmt.Errorf("mailer: SMTP AUTH: %w", err)
		}
	}
	return c, nil
}

func (s *Sender) quit(c *smtp.Client) {
	if err := c.Quit(); err != nil {
		c.Close()
	}
}

// sent records the mails the server accepted, in one write.
func (s *Sender) sent(ms []QueuedMail) {
	if len(ms) == 0 {
		return
	}
	accepted := s.now()
	ids := make([]uint64, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	if err := s.q.Sent(ids); err != nil {
		// The mails went out but stay queued: they will be sent twice,
		// which beats losing them.
		s.log.Error("outbox update failed after sending", "ids", ids, "err", err)
		return
	}
	for _, m := range ms {
		delete(s.lastErr, m.ID)
		for _, r := range m.To {
			delete(s.blocked, strings.ToLower(r))
		}
		s.log.Debug("mail sent", "id", m.ID, "to", m.To, "attempts", m.Attempts)
		if s.OnSent != nil {
			s.OnSent(m, accepted)
		}
	}
}

func (s *Sender) failed(m QueuedMail, retry time.Time, err error) {
	if m.Attempts >= len(RetrySchedule) {
		s.dead(m, fmt.Sprintf("mailer: gave up after %d attempts: %v", m.Attempts, err))
		return
	}
	s.lastErr[m.ID] = err.Error()
	s.block(m.To, retry)
	s.log.Warn("mail not sent, will retry", "id", m.ID, "to", m.To, "attempts", m.Attempts, "retry_at", retry, "err", err)
}

func (s *Sender) dead(m QueuedMail, errText string) {
	if err := s.q.Dead(m.ID, errText); err != nil {
		s.log.Error("outbox update failed", "id", m.ID, "err", err)
		return
	}
	delete(s.lastErr, m.ID)
	s.log.Error("mail given up", "id", m.ID, "from", m.From, "to", m.To, "attempts", m.Attempts, "err", errText)
}

// block holds back mail to these recipients until the given time: an
// earlier mail to them waits for its retry.
func (s *Sender) block(to []string, until time.Time) {
	for _, r := range to {
		s.blocked[strings.ToLower(r)] = until
	}
}

func (s *Sender) isBlocked(to []string, now time.Time) bool {
	for _, r := range to {
		r = strings.ToLower(r)
		if until, ok := s.blocked[r]; ok {
			if now.Before(until) {
				return true
			}
			delete(s.blocked, r)
		}
	}
	return false
}
