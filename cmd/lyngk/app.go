package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/mailer"
	"lyngk.example/lyngk/store"
)

// maxMailSize is the size above which a mail is refused unread (SPEC §3).
const maxMailSize = 1 << 20

// app applies incoming mail to the store: the one place where mailer,
// engine and store meet. Every mail is applied in ONE bbolt transaction:
// the dedupe record, the game change and the outgoing mails commit
// together or not at all, so a crash at any point loses nothing and
// applies nothing twice.
type app struct {
	db      *store.DB
	eng     *engine.Engine
	robot   string
	log     *slog.Logger
	metrics *metrics // nil when metrics are off
	now     func() time.Time
}

// outcome says what became of one incoming mail.
type outcome string

const (
	outcomeApplied   outcome = "applied"   // commands run, replies queued
	outcomeDuplicate outcome = "duplicate" // Message-ID seen before: nothing done
	outcomeIgnored   outcome = "ignored"   // auto-reply, bounce or our own mail: deliberate silence
	outcomeRejected  outcome = "rejected"  // unreadable mail
)

// composed is one reply ready for the wire.
type composed struct {
	from string
	to   []string
	data []byte
}

// deliverFunc puts composed replies somewhere inside the transaction: the
// outbox for the daemon, a list for `process -mbox`.
type deliverFunc func(tx *store.Tx, m composed, now time.Time) error

func enqueue(tx *store.Tx, m composed, now time.Time) error {
	_, err := tx.Enqueue(m.from, m.to, m.data, now)
	return err
}

// apply parses one raw mail and applies it. Its log line never carries the
// subject or body, where commands carry passwords. A returned error means the
// store failed and nothing was committed; the caller should retry later.
func (a *app) apply(ctx context.Context, raw []byte, deliver deliverFunc) (outcome, error) {
	start := time.Now()
	now := a.now()
	in, err := mailer.Parse(bytes.NewReader(raw), maxMailSize)
	if err != nil {
		a.log.LogAttrs(ctx, slog.LevelWarn, "mail rejected", slog.String("outcome", string(outcomeRejected)),
			slog.String("error", err.Error()), slog.Int("size", len(raw)))
		a.metrics.mail(outcomeRejected, time.Since(start))
		return outcomeRejected, nil
	}
	id := in.MessageID
	if id == "" {
		// Without a Message-ID the content itself identifies the mail, so
		// the same delivery twice is still applied once.
		sum := sha256.Sum256(raw)
		id = "sha256:" + hex.EncodeToString(sum[:])
	}
	res := outcomeApplied
	replies := 0
	err = a.db.Update(func(tx *store.Tx) error {
		seen, err := tx.Seen(id)
		if err != nil {
			return err
		}
		if seen {
			res = outcomeDuplicate
			return nil
		}
		if err := tx.MarkSeen(id, now); err != nil {
			return err
		}
		mails, err := a.eng.Handle(tx, toEngine(in), now)
		if err != nil {
			return err
		}
		if mails == nil {
			res = outcomeIgnored
		}
		replies = len(mails)
		for _, m := range mails {
			data, err := a.compose(m, now)
			if err != nil {
				// A reply that cannot be composed (say, to an address a
				// player typed wrongly) must not wedge this mail into an
				// endless retry: the state change stands, the reply is
				// dropped and logged.
				a.log.LogAttrs(ctx, slog.LevelWarn, "reply dropped", slog.String("message_id", id),
					slog.Any("to", m.To), slog.String("error", err.Error()))
				continue
			}
			if err := deliver(tx, composed{from: a.robot, to: m.To, data: data}, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		a.log.LogAttrs(ctx, slog.LevelError, "mail not applied", slog.String("message_id", id),
			slog.String("error", err.Error()))
		return "", err
	}
	d := time.Since(start)
	a.metrics.mail(res, d)
	a.log.LogAttrs(ctx, slog.LevelInfo, "mail", slog.String("outcome", string(res)),
		slog.String("message_id", id), slog.String("from", in.From),
		slog.Int("replies", replies), slog.Duration("duration", d))
	return res, nil
}

// robotName is the display name of our mails, as gamerz's.
const robotName = "PBeM Server"

// compose turns one of the engine's mails into RFC 5322 bytes from us.
func (a *app) compose(m engine.Mail, now time.Time) ([]byte, error) {
	return mailer.Compose(mailer.Outgoing{
		From:          robotName + " <" + a.robot + ">",
		To:            m.To,
		Subject:       m.Subject,
		Body:          m.Body,
		MessageID:     m.MessageID,
		InReplyTo:     m.InReplyTo,
		References:    m.References,
		AutoSubmitted: m.AutoSubmitted,
		Date:          now,
	})
}

// toEngine converts the mailer's view of a mail into the engine's.
func toEngine(in mailer.Inbound) engine.Inbound {
	return engine.Inbound{
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
