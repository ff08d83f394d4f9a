package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"log/slog"
	"net/textproto"
	"strings"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/mailer"
	"lyngk.example/lyngk/store"
)

// outcomeBounce: a bounce (DSN or a common plain-text bounce), recorded
// against the address it was for (engine/bounce.go); it goes to the
// Processed folder.
const outcomeBounce outcome = "bounce"

// envelope is the SMTP envelope of a mail: sender and recipients.
type envelope struct {
	from string
	to   []string
}

// envelopes says how a mail to `to` leaves: with bounce_verp, one envelope
// per address, its sender robot+b-TAG@domain carrying the address's
// VERP tag (an HMAC of it, engine/bounce.go; a stranger's address has none
// and gets the robot's plain address); without, one envelope from the
// robot to all.
func (a *app) envelopes(tx *store.Tx, to []string) ([]envelope, error) {
	if !a.verp {
		return []envelope{{a.robot, to}}, nil
	}
	out := make([]envelope, 0, len(to))
	for _, addr := range to {
		tok, err := a.eng.BounceToken(tx, addr)
		if err != nil {
			return nil, err
		}
		from := a.robot
		if tok != "" {
			from = engine.VERP(a.robot, tok)
		}
		out = append(out, envelope{from, []string{addr}})
	}
	return out, nil
}

// enqueue puts a composed mail to `to` into the outbox, under envelopes,
// in its lane: the confirmed addresses in the players' lane, the others in
// the strangers' lane (split): a stranger named with a player never rides
// in the players' lane. unasked is engine.Mail.Unasked. In the same
// transaction it records, for each confirmed address of `to`, that the
// mail's Message-ID was sent to it: only a bounce naming such a record
// counts (recordSent).
func (a *app) enqueue(tx *store.Tx, to []string, data []byte, unasked bool, deliver deliverFunc, now time.Time) error {
	players, strangers, err := byLane(tx, to)
	if err != nil {
		return err
	}
	for _, l := range []struct {
		to       []string
		stranger bool
	}{{players, false}, {strangers, true}} {
		if len(l.to) == 0 {
			continue
		}
		envs, err := a.envelopes(tx, l.to)
		if err != nil {
			return err
		}
		for _, e := range envs {
			if err := deliver(tx, composed{from: e.from, to: e.to, data: data, unasked: unasked, stranger: l.stranger}, now); err != nil {
				return err
			}
		}
	}
	return a.recordSent(tx, to, data, now)
}

// recordSent keeps the Message-ID of the composed mail data with each of
// its recipients that is some account's confirmed address, for
// store.SentKeep. Mail to strangers is not kept: no bounce of theirs
// counts, and a flood of them must not fill the records.
func (a *app) recordSent(tx *store.Tx, to []string, data []byte, now time.Time) error {
	id := composedID(data)
	if id == "" {
		return nil
	}
	for _, addr := range to {
		ok, err := a.eng.Tracked(tx, addr)
		if err != nil {
			return err
		}
		if ok {
			if err := tx.RecordSent(id, addr, now); err != nil {
				return err
			}
		}
	}
	return nil
}

// byLane splits to into the confirmed addresses of players and the others
// (engine.ConfirmedAddress), each in the order given.
func byLane(tx *store.Tx, to []string) (players, strangers []string, err error) {
	for _, addr := range to {
		ok, err := engine.ConfirmedAddress(tx, addr)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			players = append(players, addr)
		} else {
			strangers = append(strangers, addr)
		}
	}
	return players, strangers, nil
}

// composedID reads the Message-ID (without <>) of a mail we composed
// (mailer.Compose writes it in the header).
func composedID(data []byte) string {
	h, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(data))).ReadMIMEHeader()
	if err != nil && len(h) == 0 {
		return ""
	}
	return strings.Trim(strings.TrimSpace(h.Get("Message-Id")), "<>")
}

// copyID is the Message-ID a mail with id (set by the engine, or "" for
// one the composer draws) leaves with: a board mail's gets a random mark
// its "move on the web" link does not show (engine.CopyMessageID), so
// that its reply token is no proof in a forged bounce.
func copyID(id string) (string, error) {
	return engine.CopyMessageID(id, rand.Reader)
}

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
