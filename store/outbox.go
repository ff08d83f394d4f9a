package store

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// OutMail is a composed mail in the outbox, or in the dead letters once
// given up. See doc.go for how it is stored.
type OutMail struct {
	ID          uint64    `json:"-"`    // the key
	From        string    `json:"from"` // envelope sender (SMTP MAIL FROM)
	To          []string  `json:"to"`   // envelope recipients
	Data        []byte    `json:"-"`    // the RFC 5322 message, stored raw after the header
	Queued      time.Time `json:"queued"`
	Attempts    int       `json:"attempts"`
	NextAttempt time.Time `json:"next_attempt"`
	LastError   string    `json:"last_error,omitempty"`
	Died        time.Time `json:"died,omitzero"` // when it moved to the dead letters
	// Size is the size of the message of a dead letter, whose Data holds
	// only the message's header (see [Tx.Dead]); 0 for a queued mail.
	Size int `json:"size,omitempty"`
	// Unasked marks a mail its recipients did not ask for (a board mail of
	// a game they have not moved in): [Tx.Due] serves their other mail
	// first ([Tx.EnqueueUnasked]).
	Unasked bool `json:"unasked,omitempty"`
	// Stranger puts a mail in the strangers' lane: its recipients are no
	// player's confirmed addresses (answers to help, signups,
	// confirmations). [Tx.Due] serves it after every player's mail, and
	// only within [Limits.StrangerShare]; past it the mail is dropped
	// ([Tx.Drop]). A mail of an older release, without the field, is a
	// player's.
	Stranger bool `json:"stranger,omitempty"`
}

func idKey(id uint64) []byte { return binary.BigEndian.AppendUint64(nil, id) }

// encodeOut lays a mail out as a length-prefixed JSON header followed by the
// raw message, so choosing due mail reads a few dozen bytes per mail instead
// of decoding every queued message.
func encodeOut(m OutMail) ([]byte, error) {
	h, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("store: mail %d: %w", m.ID, err)
	}
	v := make([]byte, 0, 4+len(h)+len(m.Data))
	v = binary.BigEndian.AppendUint32(v, uint32(len(h)))
	v = append(v, h...)
	return append(v, m.Data...), nil
}

// decodeOut decodes the header of the mail stored under k and returns the
// message as a slice of v, which the caller copies if it keeps it.
func decodeOut(k, v []byte) (OutMail, []byte, error) {
	var m OutMail
	if len(k) != 8 {
		return m, nil, fmt.Errorf("store: mail key %x: not 8 bytes", k)
	}
	m.ID = binary.BigEndian.Uint64(k)
	if len(v) < 4 || uint64(len(v)-4) < uint64(binary.BigEndian.Uint32(v)) {
		return m, nil, fmt.Errorf("store: mail %d: truncated record", m.ID)
	}
	n := 4 + int(binary.BigEndian.Uint32(v))
	if err := json.Unmarshal(v[4:n], &m); err != nil {
		return m, nil, fmt.Errorf("store: mail %d: %w", m.ID, err)
	}
	return m, v[n:], nil
}

func putOut(b *bolt.Bucket, m OutMail) error {
	v, err := encodeOut(m)
	if err != nil {
		return err
	}
	if err := b.Put(idKey(m.ID), v); err != nil {
		return fmt.Errorf("store: mail %d: %w", m.ID, err)
	}
	return nil
}

// Enqueue adds a mail to the end of the outbox, due at once, and returns its
// ID. It is sent only if the transaction commits.
func (tx *Tx) Enqueue(from string, to []string, data []byte, now time.Time) (uint64, error) {
	return tx.enqueue(OutMail{From: from, To: to, Data: data}, now)
}

// EnqueueUnasked is [Tx.Enqueue] for a mail its recipients did not ask
// for: it waits behind their other mail, whenever that was queued, while
// the hourly cap ([Limits.MailsPerHour]) holds mail back.
func (tx *Tx) EnqueueUnasked(from string, to []string, data []byte, now time.Time) (uint64, error) {
	return tx.enqueue(OutMail{From: from, To: to, Data: data, Unasked: true}, now)
}

// EnqueueStranger is [Tx.Enqueue] for a mail in the strangers' lane
// ([OutMail.Stranger]).
func (tx *Tx) EnqueueStranger(from string, to []string, data []byte, now time.Time) (uint64, error) {
	return tx.enqueue(OutMail{From: from, To: to, Data: data, Stranger: true}, now)
}

func (tx *Tx) enqueue(m OutMail, now time.Time) (uint64, error) {
	from, to, data := m.From, m.To, m.Data
	if len(to) == 0 {
		return 0, errors.New("store: enqueue: no recipients")
	}
	if len(data) == 0 {
		return 0, errors.New("store: enqueue: empty message")
	}
	b := tx.own(bucketOutbox)
	id, err := b.NextSequence()
	if err != nil {
		return 0, fmt.Errorf("store: enqueue: %w", err)
	}
	now = now.UTC()
	m = OutMail{ID: id, From: from, To: to, Data: data, Queued: now, NextAttempt: now, Unasked: m.Unasked, Stranger: m.Stranger}
	if err := putOut(b, m); err != nil {
		return 0, err
	}
	return id, nil
}

// StrangersPerDue bounds the strangers' mails one [Tx.Due] returns, so
// that a player's mail queued while the sender's round is on the wire waits
// behind a few of them at most, however many strangers wait.
const StrangersPerDue = 8

// lane is one pass of [Tx.Due]: the players' asked mail, their unasked
// mail, the strangers' mail.
type lane struct{ unasked, stranger bool }

// lanes are the passes of Due, in the order they are served.
var lanes = []lane{{}, {unasked: true}, {stranger: true}}

// Due returns, in queue order (the players' mail first), up to max (all
// when max <= 0) mails that may be tried now, and the IDs of the strangers'
// mails to drop now. This is the one place where per-recipient order is decided: a mail waits while
// an earlier mail to one of its recipients is still queued, due or not, so
// each recipient gets its mail in the order it was queued and a round of
// the sender carries at most one mail per recipient. A mail also waits
// until its NextAttempt, and while one of its recipients has had
// [Limits.MailsPerHour] mails within the hour (see [Tx.Sent]); a player's
// held mail is never dropped. With [Limits.MailsPerDay], no more mails are
// due than the recipients left of the last 24 hours' cap: in queue order,
// the first that would pass it waits, and all after it.
//
// The mails are served in lanes, each in queue order among itself: the
// players' mail first, then their unasked mail (so a recipient's own
// games' mail never waits behind a heap of it), then the strangers' mail
// ([OutMail.Stranger]), at most [StrangersPerDue] of it. A stranger's mail
// that could go but for the strangers' share of the hour or the day
// ([Limits.StrangerShare]) is returned in drop: the caller drops it
// ([Tx.Drop]), for a share is spent for hours and the mail would only wait
// to spend the next one.
func (tx *Tx) Due(now time.Time, max int) (due []OutMail, drop []uint64, err error) {
	b := tx.own(bucketOutbox)
	p := duePass{now: now, max: max, held: map[string]bool{}, left: -1, strangers: -1}
	if tx.lim.MailsPerDay > 0 { // the window is read only when a cap needs it
		d, err := tx.DailySent(now)
		if err != nil {
			return nil, nil, err
		}
		if p.left = d.Cap - d.Recipients; p.left <= 0 {
			return nil, nil, nil
		}
		p.strangers = d.strangersLeft()
	}
	for _, l := range lanes {
		capped, err := tx.due(b, l, &p)
		if err != nil {
			return nil, nil, err
		}
		if capped {
			break
		}
	}
	// Queue order, the players' mail first: the sender submits a round in
	// this order.
	slices.SortFunc(p.due, func(a, b OutMail) int {
		if a.Stranger != b.Stranger {
			return cmp.Compare(b2i(a.Stranger), b2i(b.Stranger))
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return p.due, p.drop, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// duePass is the state of one Due across its lanes.
type duePass struct {
	now       time.Time
	max       int
	held      map[string]bool // recipients of an earlier mail: their later mails wait
	left      int             // recipients the daily cap leaves; -1: no cap
	strangers int             // stranger recipients the shares leave; -1: no bound
	picked    int             // strangers' mails in due
	due       []OutMail
	drop      []uint64
}

// due is one pass of Due over the mails of lane l; capped says the daily
// cap stopped it.
func (tx *Tx) due(b *bolt.Bucket, l lane, p *duePass) (capped bool, err error) {
	c := b.Cursor()
	for k, v := c.First(); k != nil && (p.max <= 0 || len(p.due) < p.max); k, v = c.Next() {
		m, data, err := decodeOut(k, v)
		if err != nil {
			return false, err
		}
		if m.Stranger != l.stranger || !m.Stranger && m.Unasked != l.unasked {
			continue
		}
		// Each address once: a mail naming one twice (in two spellings)
		// must not wait for itself.
		rcpts := distinct(m.To)
		ok := !m.NextAttempt.After(p.now)
		for _, r := range rcpts {
			if ok && p.held[r] {
				ok = false
			}
			if ok {
				full, err := tx.hourFull(r, p.now)
				if err != nil {
					return false, err
				}
				ok = !full
			}
			p.held[r] = true
		}
		if !ok {
			continue
		}
		if l.stranger {
			if p.strangers >= 0 && len(rcpts) > p.strangers {
				p.drop = append(p.drop, m.ID)
				continue
			}
			if p.picked >= StrangersPerDue {
				return false, nil
			}
		}
		if p.left >= 0 {
			if len(rcpts) > p.left {
				return true, nil // the cap holds it, and the queue order holds the rest
			}
			p.left -= len(rcpts)
		}
		if l.stranger {
			p.picked++
			if p.strangers >= 0 {
				p.strangers -= len(rcpts)
			}
		}
		m.Data = bytes.Clone(data)
		p.due = append(p.due, m)
	}
	return false, nil
}

// Drop removes a stranger's mail that [Tx.Due] found past the strangers'
// share and counts its recipients, at now, as dropped ([DailySent]). It
// refuses a player's mail: that is never dropped.
func (tx *Tx) Drop(id uint64, now time.Time) error {
	b, m, err := tx.queued(id)
	if err != nil {
		return err
	}
	if !m.Stranger {
		return fmt.Errorf("store: drop %d: a player's mail is never dropped", id)
	}
	if err := b.Delete(idKey(id)); err != nil {
		return fmt.Errorf("store: drop %d: %w", id, err)
	}
	if err := tx.own(bucketDaily).Put(dailyKey(now, id), dailyValue(0, 0, len(distinct(m.To)))); err != nil {
		return fmt.Errorf("store: daily %d: %w", id, err)
	}
	return nil
}

// OutboxStats counts the queued mails and the dead letters and gives the
// time the oldest queued mail was queued (zero when none is), without
// reading any message: the daemon's metrics ask for it on every scrape,
// however many mails the hourly cap holds back.
func (tx *Tx) OutboxStats() (queued, dead int, oldest time.Time, err error) {
	b := tx.own(bucketOutbox)
	if k, v := b.Cursor().First(); k != nil {
		m, _, err := decodeOut(k, v)
		if err != nil {
			return 0, 0, time.Time{}, err
		}
		oldest = m.Queued
	}
	return b.Stats().KeyN, tx.own(bucketDead).Stats().KeyN, oldest, nil
}

// Outbox returns every queued mail in queue order.
func (tx *Tx) Outbox() ([]OutMail, error) { return tx.list(bucketOutbox) }

// DeadLetters returns every mail given up on, in the order they were queued.
func (tx *Tx) DeadLetters() ([]OutMail, error) { return tx.list(bucketDead) }

func (tx *Tx) list(bucket string) ([]OutMail, error) {
	b := tx.own(bucket)
	var ms []OutMail
	err := b.ForEach(func(k, v []byte) error {
		m, data, err := decodeOut(k, v)
		m.Data = bytes.Clone(data)
		ms = append(ms, m)
		return err
	})
	if err != nil {
		return nil, err
	}
	return ms, nil
}

// queued reads one mail of the outbox.
func (tx *Tx) queued(id uint64) (*bolt.Bucket, OutMail, error) {
	b := tx.own(bucketOutbox)
	v := b.Get(idKey(id))
	if v == nil {
		return nil, OutMail{}, fmt.Errorf("%w: mail %d is not in the outbox", ErrNotFound, id)
	}
	m, data, err := decodeOut(idKey(id), v)
	m.Data = bytes.Clone(data)
	return b, m, err
}

// RecordAttempt counts a delivery attempt and sets when the next one may
// start if it fails. The sender calls it, and commits, before it sends the
// mail: a crash during the attempt then still pushes NextAttempt back instead
// of retrying in a tight loop (the mox queue does the same). What became of
// the attempt is recorded by [Tx.Sent], [Tx.Failed], [Tx.Dead] or
// [Tx.RelayFailed].
func (tx *Tx) RecordAttempt(id uint64, next time.Time) error {
	b, m, err := tx.queued(id)
	if err != nil {
		return err
	}
	m.Attempts++
	m.NextAttempt = next.UTC()
	return putOut(b, m)
}

// Failed records the error of a failed attempt (a temporary refusal of the
// mail); the mail waits for the NextAttempt its attempt set.
func (tx *Tx) Failed(id uint64, errText string) error {
	b, m, err := tx.queued(id)
	if err != nil {
		return err
	}
	m.LastError = errText
	return putOut(b, m)
}

// RelayFailed records that the relay, not the mail, failed (no connection,
// TLS, authentication, 421): the attempt the mail was charged is taken back
// and the mail is due again at now, so however long the relay is down, the
// mail is sent as soon as the relay takes mail again. The sender's own
// backoff keeps it from hammering a relay that is down.
func (tx *Tx) RelayFailed(id uint64, errText string, now time.Time) error {
	b, m, err := tx.queued(id)
	if err != nil {
		return err
	}
	m.Attempts = max(m.Attempts-1, 0)
	m.NextAttempt = now.UTC()
	m.LastError = errText
	return putOut(b, m)
}

// Sent removes a delivered mail from the outbox and counts it, at now,
// against the hourly allowance of each of its recipients.
func (tx *Tx) Sent(id uint64, now time.Time) error {
	b, m, err := tx.queued(id)
	if err != nil {
		return err
	}
	if err := b.Delete(idKey(id)); err != nil {
		return fmt.Errorf("store: sent %d: %w", id, err)
	}
	rcpts := distinct(m.To)
	for _, r := range rcpts {
		if err := tx.countSent(r, now); err != nil {
			return err
		}
	}
	strangers := 0
	if m.Stranger {
		strangers = len(rcpts)
	}
	if err := tx.own(bucketDaily).Put(dailyKey(now, id), dailyValue(len(rcpts), strangers, 0)); err != nil {
		return fmt.Errorf("store: daily %d: %w", id, err)
	}
	return nil
}

// distinct returns the lower-cased addresses of to, each once.
func distinct(to []string) []string {
	var out []string
	for _, r := range to {
		r = strings.ToLower(r)
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// maxDeadHeader bounds the header a dead letter keeps.
const maxDeadHeader = 16 << 10

// Dead moves a mail that failed for good from the outbox to the dead
// letters, keeping its ID, with the final error and the time. It keeps the
// message's header (at most 16 KiB of it) and its size, not its body: a dead
// letter is there to say what was lost and why, and a body can be megabytes.
func (tx *Tx) Dead(id uint64, errText string, now time.Time) error {
	b, m, err := tx.queued(id)
	if err != nil {
		return err
	}
	dead := tx.own(bucketDead)
	m.LastError = errText
	m.Died = now.UTC()
	m.Size = len(m.Data)
	m.Data = header(m.Data, maxDeadHeader)
	if err := putOut(dead, m); err != nil {
		return err
	}
	if err := b.Delete(idKey(id)); err != nil {
		return fmt.Errorf("store: dead %d: %w", id, err)
	}
	return nil
}

// header returns the header of an RFC 5322 message, up to and including the
// empty line that ends it, cut at a line end to at most limit bytes.
func header(msg []byte, limit int) []byte {
	end := len(msg)
	for _, sep := range []string{"\r\n\r\n", "\n\n"} {
		if i := bytes.Index(msg, []byte(sep)); i >= 0 && i+len(sep) < end {
			end = i + len(sep)
		}
	}
	if end > limit {
		end = bytes.LastIndexByte(msg[:limit], '\n') + 1
	}
	return bytes.Clone(msg[:end])
}
