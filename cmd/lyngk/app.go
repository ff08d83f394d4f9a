package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/daemon"
	"lyngk.example/lyngk/mailer"
	"lyngk.example/lyngk/store"
)

// maxMailSize is the size above which a mail is refused unread (SPEC §3).
const maxMailSize = 1 << 20

// app applies incoming mail to the store: the one place where mailer,
// engine and store meet for mail. Every batch of mails is one unit of work
// of the daemon (engine/daemon, its one write path): the dedupe record,
// the game change and the outgoing mails commit together or not at all, so
// a crash at any point loses nothing and applies nothing twice.
type app struct {
	db      *store.DB
	eng     *engine.Engine
	robot   string
	verp    bool // bounce_verp: envelope senders robot+b-TOKEN@domain (engine/daemon)
	log     *slog.Logger
	metrics *metrics // nil when metrics are off
	now     func() time.Time
	// checks runs password checks, a bounded number at once; nil runs them
	// one by one in the caller's goroutine (lyngk process).
	checks *checkPool
	// authservID is the authserv-id whose Authentication-Results the
	// server trusts (trusted_authserv_id; "" none): a stranger whose mail
	// it says failed SPF and DKIM gets no answer (engine.Inbound.AuthFailed).
	authservID string
	// lane, in the daemon, applies the mails that need password checks
	// apart from the others (see handle); nil applies every mail in line.
	lane *lane

	// d writes the store; made from the fields above at its first use
	// (daemon), so that an app built by hand (lyngk process, the tests)
	// writes through it too.
	d    *daemon.Daemon
	once sync.Once
}

// daemon is the app's writer of the store.
func (a *app) daemon() *daemon.Daemon {
	a.once.Do(func() {
		if a.d == nil {
			a.d = daemon.New(daemon.Config{DB: a.db, Engine: a.eng, Server: a.robot, VERP: a.verp, Log: a.log,
				Now: func() time.Time { return a.now() }, Held: a.metrics.held})
		}
	})
	return a.d
}

// outcome says what became of one incoming mail.
type outcome string

const (
	outcomeApplied   outcome = "applied"   // commands run, replies queued
	outcomeDuplicate outcome = "duplicate" // Message-ID seen before: nothing done
	outcomeIgnored   outcome = "ignored"   // auto-reply, bounce or our own mail: deliberate silence
	outcomeRejected  outcome = "rejected"  // unreadable mail
	outcomeFailed    outcome = "failed"    // failed inside the server: internal-error answer, set aside
)

// apply parses one raw mail and applies it (see applyBatch).
func (a *app) apply(ctx context.Context, raw []byte, deliver daemon.Deliver) (outcome, error) {
	res, err := a.applyBatch(ctx, [][]byte{raw}, deliver)
	if err != nil {
		return "", err
	}
	return res[0], nil
}

// parsed is one incoming mail ready for the transaction.
type parsed struct {
	in      mailer.Inbound
	id      string // dedupe key (dedupeKey)
	size    int    // of the raw mail
	res     outcome
	replies int
	bad     error // unreadable: rejected without a transaction
	failed  error // failed inside the server: answered and set aside
	// bounce is set when the mail is a bounce; bounced is what became of it.
	bounce  *mailer.Bounce
	bounced engine.BounceOutcome
}

// messageID is what the log calls the mail: its Message-ID, else its
// dedupe key.
func (m *parsed) messageID() string {
	if m.in.MessageID != "" {
		return m.in.MessageID
	}
	return m.id
}

// errMailFailed aborts a transaction in which one mail failed for a reason
// of its own outside the engine (a panic while composing its replies, say):
// the transaction may hold part of that mail, so it is rolled back and the
// mails are applied again one at a time.
var errMailFailed = errors.New("lyngk: a mail failed")

// dedupeKey identifies a mail for the dedupe record: its Message-ID
// together with a digest of its sender, subject and text. A redelivered copy
// (the same mail again, whatever Received lines it gained) has the same key
// and is applied once; another mail that reuses a Message-ID (a careless
// client, or somebody who wants a player's next command swallowed) has
// another key and is applied. Without a Message-ID the raw mail itself
// identifies it.
func dedupeKey(in mailer.Inbound, raw []byte) string {
	if in.MessageID == "" {
		sum := sha256.Sum256(raw)
		return "sha256:" + hex.EncodeToString(sum[:])
	}
	h := sha256.New()
	for _, s := range []string{in.From, in.Subject, in.Body} {
		fmt.Fprintf(h, "%d:%s", len(s), s)
	}
	return in.MessageID + " " + hex.EncodeToString(h.Sum(nil)[:16])
}

// applyBatch parses mails and applies them in order, all in ONE bbolt
// transaction: each mail's dedupe record, game change and replies commit
// together with the others or not at all, so a crash loses nothing and
// applies nothing twice, and a batch costs one fsync. If that transaction
// fails, the mails are applied again one at a time, each in its own, so
// that one bad mail cannot hold back the others.
//
// A mail that fails for a reason of its own (the engine's internal error:
// a template that does not render, a record that does not decode, a panic)
// is poison, not a store failure: nothing of it is applied, its sender gets
// the internal-error answer (automatic mail gets none), its Message-ID is
// recorded so it is never tried again, it is logged at level ERROR with its
// Message-ID and its outcome is "failed" (the poller moves it to
// Rejected). A returned error means the store failed: the outcomes returned
// with it are those of the mails before the one that failed, which were
// committed; the caller retries the rest later. The log lines never carry a
// subject or body, where commands carry passwords.
//
// Before that transaction, the mails' password checks run (verify, in
// passwords.go), so that bcrypt never holds the store's write lock, and
// their pictures are drawn (forecast).
func (a *app) applyBatch(ctx context.Context, raws [][]byte, deliver daemon.Deliver) ([]outcome, error) {
	start := time.Now()
	ms := parse(raws)
	if err := a.verify(ctx, ms); err != nil {
		return nil, err
	}
	return a.applyParsed(ctx, ms, deliver, start)
}

// parse reads raw mails and gives each its dedupe key.
func parse(raws [][]byte) []parsed {
	ms := make([]parsed, len(raws))
	for i, raw := range raws {
		m := &ms[i]
		m.size = len(raw)
		if err := guard(func() error {
			m.in, m.bad = mailer.Parse(bytes.NewReader(raw), maxMailSize)
			if m.bad == nil && !m.in.TooBig {
				m.bounce = parseBounce(m.in, raw)
			}
			return nil
		}); err != nil {
			m.bad = err // a parser that panics on a mail cannot read it
		}
		if m.bad != nil {
			m.res = outcomeRejected
			continue
		}
		m.id = dedupeKey(m.in, raw)
	}
	return ms
}

// applyParsed is applyBatch after parsing and password checks; start is
// when the mails were taken in hand, for the log and the metrics.
func (a *app) applyParsed(ctx context.Context, ms []parsed, deliver daemon.Deliver, start time.Time) ([]outcome, error) {
	now := a.now()
	// The pictures are forecast and drawn before the first transaction
	// only: a mail applied again alone finds them drawn.
	forecast := a.forecast(ms)
	done := len(ms)
	err := errMailFailed // a lone mail goes straight to commitAlone
	if len(ms) > 1 {
		err = a.commit(ctx, ms, deliver, now, forecast)
		forecast = nil
		if err != nil {
			a.log.LogAttrs(ctx, slog.LevelWarn, "batch not applied: applying its mails one at a time",
				slog.Int("mails", len(ms)), slog.String("error", err.Error()))
		}
	}
	if err != nil {
		err = nil
		for i := range ms {
			err = a.commitAlone(ctx, &ms[i], deliver, now, forecast)
			forecast = nil
			if err != nil {
				done = i
				break
			}
		}
	}
	if err != nil {
		a.log.LogAttrs(ctx, slog.LevelError, "mails not applied", slog.Int("mails", len(ms)-done),
			slog.String("error", err.Error()))
	}
	d := time.Since(start)
	out := make([]outcome, done)
	for i, m := range ms[:done] {
		out[i] = m.res
		a.metrics.mail(m.res, d)
		switch {
		case m.bad != nil:
			a.log.LogAttrs(ctx, slog.LevelWarn, "mail", slog.String("outcome", string(m.res)),
				slog.String("error", m.bad.Error()), slog.Int("size", m.size))
		case m.failed != nil:
			a.log.LogAttrs(ctx, slog.LevelError, "mail", slog.String("outcome", string(m.res)),
				slog.String("message_id", m.messageID()), slog.String("from", m.in.From),
				slog.Int("replies", m.replies), slog.Int("batch", len(ms)), slog.String("error", m.failed.Error()))
		case m.res == outcomeBounce:
			a.log.LogAttrs(ctx, slog.LevelInfo, "mail", append([]slog.Attr{slog.String("outcome", string(m.res)),
				slog.String("message_id", m.messageID()), slog.String("from", m.in.From)}, bounceAttrs(&m)...)...)
		default:
			a.log.LogAttrs(ctx, slog.LevelInfo, "mail", slog.String("outcome", string(m.res)),
				slog.String("message_id", m.messageID()), slog.String("from", m.in.From),
				slog.Int("replies", m.replies), slog.Duration("duration", d), slog.Int("batch", len(ms)))
		}
	}
	return out, err
}

// commit applies ms in one transaction, the daemon's unit of work "mail".
// It returns errMailFailed (wrapped) when one of them failed outside the
// engine, or the store's error.
func (a *app) commit(ctx context.Context, ms []parsed, deliver daemon.Deliver, now time.Time, forecast forecastFunc) error {
	for i := range ms {
		ms[i].res, ms[i].replies, ms[i].failed = "", 0, nil
		if ms[i].bad != nil {
			ms[i].res = outcomeRejected
		}
	}
	return a.daemon().Commit(ctx, daemon.Work{Name: "mail", Now: now, Forecast: forecast, Deliver: deliver,
		Apply: func(tx *daemon.Tx) error {
			for i := range ms {
				m := &ms[i]
				if m.bad != nil {
					continue
				}
				var storeErr error
				if err := guard(func() error { storeErr = a.applyOne(tx, m); return nil }); err != nil {
					m.failed = err
					return fmt.Errorf("%w: %s: %v", errMailFailed, m.id, err)
				}
				if storeErr != nil {
					return storeErr
				}
			}
			return nil
		}})
}

// commitAlone applies one mail in its own transaction. A mail that fails
// there for a reason of its own is set aside: in a new transaction its
// Message-ID is recorded and its sender answered with the internal error;
// if even that answer fails, the Message-ID alone.
func (a *app) commitAlone(ctx context.Context, m *parsed, deliver daemon.Deliver, now time.Time, forecast forecastFunc) error {
	ms := []parsed{*m}
	err := a.commit(ctx, ms, deliver, now, forecast)
	*m = ms[0]
	if !errors.Is(err, errMailFailed) {
		return err
	}
	failed := m.failed
	err = a.daemon().Commit(ctx, daemon.Work{Name: "mail", Now: now, Deliver: deliver,
		Apply: func(tx *daemon.Tx) error {
			if err := tx.MarkSeen(m.id, now); err != nil {
				return err
			}
			var storeErr error
			if err := guard(func() error {
				mails, err := a.eng.InternalError(tx.Tx, a.toEngine(m.in), now)
				if err != nil {
					storeErr = err
					return nil
				}
				storeErr = a.queue(tx, m, mails)
				return nil
			}); err != nil {
				return errMailFailed
			}
			return storeErr
		}})
	if errors.Is(err, errMailFailed) {
		m.replies = 0
		err = a.daemon().Commit(ctx, daemon.Work{Name: "mail", Now: now,
			Apply: func(tx *daemon.Tx) error { return tx.MarkSeen(m.id, now) }})
	}
	m.res, m.failed = outcomeFailed, failed
	return err
}

// applyOne applies one mail inside tx; the error is the store's.
func (a *app) applyOne(tx *daemon.Tx, m *parsed) error {
	seen, err := tx.Seen(m.id)
	if err != nil {
		return err
	}
	if seen {
		m.res = outcomeDuplicate
		return nil
	}
	if err := tx.MarkSeen(m.id, tx.Now); err != nil {
		return err
	}
	if m.bounce != nil {
		return a.applyBounce(tx.Tx, m, tx.Now)
	}
	mails, failed, err := a.eng.Handle(tx.Tx, a.toEngine(m.in), tx.Now)
	if err != nil {
		return err
	}
	m.res, m.failed = outcomeApplied, failed
	switch {
	case failed != nil:
		m.res = outcomeFailed
	case mails == nil:
		m.res = outcomeIgnored
	}
	return a.queue(tx, m, mails)
}

// queue composes the replies to m and delivers them inside tx (a reply
// that cannot be composed is dropped and logged: daemon.Tx.Send).
func (a *app) queue(tx *daemon.Tx, m *parsed, mails []engine.Mail) error {
	m.replies = len(mails)
	_, err := tx.Send(mails)
	return err
}

// guard runs f and turns a panic into an error that carries the stack.
func guard(f func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("lyngk: panic: %v\n%s", v, debug.Stack())
		}
	}()
	return f()
}

// toEngine converts the mailer's view of a mail into the engine's.
func (a *app) toEngine(in mailer.Inbound) engine.Inbound {
	return engine.Inbound{
		AuthFailed: mailer.AuthFailed(in.AuthResults, a.authservID),
		MessageID:  in.MessageID,
		From:       in.From,
		Subject:    in.Subject,
		Body:       in.Body,
		InReplyTo:  in.InReplyTo,
		References: in.References,
		Auto:       in.Auto,
		TooBig:     in.TooBig,
	}
}

// errUsage marks a command-line mistake (exit status 2).
var errUsage = errors.New("usage")
