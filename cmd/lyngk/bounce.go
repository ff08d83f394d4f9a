package main

import (
	"log/slog"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/mailer"
	"lyngk.example/lyngk/store"
)

// outcomeBounce: a bounce (DSN or a common plain-text bounce), recorded
// against the address it was for (engine/bounce.go); it goes to the
// Processed folder.
const outcomeBounce outcome = "bounce"

// applyBounce records m, a bounce, in tx: the mails it names that were
// sent (store.Tx.SentTo) go with it to the engine, which counts only those
// sent to an address the bounce reports failed.
func (a *app) applyBounce(tx *store.Tx, m *parsed, now time.Time) error {
	b := m.bounce
	eb := engine.Bounce{To: b.To, MessageIDs: b.MessageIDs, ID: b.ID, Sent: map[string][]string{}}
	for _, r := range b.Recipients {
		eb.Recipients = append(eb.Recipients, engine.BounceRecipient{Addr: r.Addr, Original: r.Original, Hard: r.Hard})
	}
	for _, id := range b.MessageIDs {
		to, err := tx.SentTo(id, now)
		if err != nil {
			return err
		}
		if len(to) > 0 {
			eb.Sent[id] = to
		}
	}
	out, err := a.eng.Bounce(tx, eb, now)
	m.res, m.bounced = outcomeBounce, out
	return err
}

// bounceAttrs are the log attributes of a bounce.
func bounceAttrs(m *parsed) []slog.Attr {
	kind := "unmatched"
	switch {
	case m.bounced.Address == "":
	case m.bounced.Hard:
		kind = "hard"
	default:
		kind = "soft"
	}
	return []slog.Attr{slog.String("format", m.bounce.Format), slog.String("bounce", kind),
		slog.String("address", m.bounced.Address), slog.Bool("marked_bouncing", m.bounced.Marked)}
}

// parseBounce reads an automatic mail as a bounce, if it is one.
func parseBounce(in mailer.Inbound, raw []byte) *mailer.Bounce {
	if in.Auto == "" {
		return nil
	}
	b, ok := mailer.ParseBounce(raw)
	if !ok {
		return nil
	}
	return &b
}
