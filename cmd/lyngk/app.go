package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
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

// apply parses one raw mail and applies it (see applyBatch).
func (a *app) apply(ctx context.Context, raw []byte, deliver deliverFunc) (outcome, error) {
	res, err := a.applyBatch(ctx, [][]byte{raw}, deliver)
	if err != nil {
		return "", err
	}
	return res[0], nil
}

// parsed is one incoming mail ready for the transaction.
type parsed struct {
	in      mailer.Inbound
	id      string // dedupe key: the Message-ID, else a hash of the mail
	res     outcome
	replies int
	bad     error // unreadable: rejected without a transaction
}

// applyBatch parses mails and applies them in order, all in ONE bbolt
// transaction: each mail's dedupe record, game change and replies commit
// together with the others or not at all, so a crash loses nothing and
// applies nothing twice, and a batch costs one fsync. A returned error
// means the store failed and nothing was committed; the caller retries
// later. The log lines never carry a subject or body, where commands carry
// passwords.
func (a *app) applyBatch(ctx context.Context, raws [][]byte, deliver deliverFunc) ([]outcome, error) {
	start := time.Now()
	now := a.now()
	ms := make([]parsed, len(raws))
	for i, raw := range raws {
		m := &ms[i]
		if m.in, m.bad = mailer.Parse(bytes.NewReader(raw), maxMailSize); m.bad != nil {
			m.res = outcomeRejected
			continue
		}
		m.id = m.in.MessageID
		if m.id == "" {
			// Without a Message-ID the content itself identifies the mail,
			// so the same delivery twice is still applied once.
			sum := sha256.Sum256(raw)
			m.id = "sha256:" + hex.EncodeToString(sum[:])
		}
	}
	var dropped []string
	err := a.db.Update(func(tx *store.Tx) error {
		for i := range ms {
			m := &ms[i]
			if m.bad != nil {
				continue
			}
			seen, err := tx.Seen(m.id)
			if err != nil {
				return err
			}
			if seen {
				m.res = outcomeDuplicate
				continue
			}
			if err := tx.MarkSeen(m.id, now); err != nil {
				return err
			}
			mails, err := a.eng.Handle(tx, toEngine(m.in), now)
			if err != nil {
				return err
			}
			m.res, m.replies = outcomeApplied, len(mails)
			if mails == nil {
				m.res = outcomeIgnored
			}
			for _, r := range mails {
				data, err := a.compose(r, now)
				if err != nil {
					// A reply that cannot be composed (say, to an address a
					// player typed wrongly) must not wedge this mail into an
					// endless retry: the state change stands, the reply is
					// dropped and logged.
					dropped = append(dropped, fmt.Sprintf("%s to %v: %v", m.id, r.To, err))
					continue
				}
				if err := deliver(tx, composed{from: a.robot, to: r.To, data: data}, now); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		a.log.LogAttrs(ctx, slog.LevelError, "mails not applied", slog.Int("mails", len(raws)),
			slog.String("error", err.Error()))
		return nil, err
	}
	for _, d := range dropped {
		a.log.LogAttrs(ctx, slog.LevelWarn, "reply dropped", slog.String("reply", d))
	}
	d := time.Since(start)
	out := make([]outcome, len(ms))
	for i, m := range ms {
		out[i] = m.res
		a.metrics.mail(m.res, d)
		if m.bad != nil {
			a.log.LogAttrs(ctx, slog.LevelWarn, "mail", slog.String("outcome", string(m.res)),
				slog.String("error", m.bad.Error()), slog.Int("size", len(raws[i])))
			continue
		}
		a.log.LogAttrs(ctx, slog.LevelInfo, "mail", slog.String("outcome", string(m.res)),
			slog.String("message_id", m.id), slog.String("from", m.in.From),
			slog.Int("replies", m.replies), slog.Duration("duration", d), slog.Int("batch", len(raws)))
	}
	return out, nil
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
