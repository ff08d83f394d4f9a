package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
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
	m := OutMail{ID: id, From: from, To: to, Data: data, Queued: now, NextAttempt: now}
	if err := putOut(b, m); err != nil {
		return 0, err
	}
	return id, nil
}

// Due returns, in queue order, up to max (all when max <= 0) mails whose
// NextAttempt is not after now. A mail is held back while an earlier mail
// to one of its recipients is still queued and not due, so each recipient
// gets its mail in the order it was queued; a sender that fails on one mail
// should likewise skip that recipient's later mails in the same batch.
func (tx *Tx) Due(now time.Time, max int) ([]OutMail, error) {
	b := tx.own(bucketOutbox)
	var due []OutMail
	held := map[string]bool{}
	c := b.Cursor()
	for k, v := c.First(); k != nil && (max <= 0 || len(due) < max); k, v = c.Next() {
		m, data, err := decodeOut(k, v)
		if err != nil {
			return nil, err
		}
		wait := m.NextAttempt.After(now)
		for _, r := range m.To {
			wait = wait || held[strings.ToLower(r)]
		}
		if wait {
			for _, r := range m.To {
				held[strings.ToLower(r)] = true
			}
			continue
		}
		m.Data = bytes.Clone(data)
		due = append(due, m)
	}
	return due, nil
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
// start. The sender calls it, and commits, before dialing: a crash during
// the attempt then still pushes NextAttempt back instead of retrying in a
// tight loop (the mox queue does the same).
func (tx *Tx) RecordAttempt(id uint64, next time.Time, errText string) error {
	b, m, err := tx.queued(id)
	if err != nil {
		return err
	}
	m.Attempts++
	m.NextAttempt = next.UTC()
	m.LastError = errText
	return putOut(b, m)
}

// Sent removes a delivered mail from the outbox.
func (tx *Tx) Sent(id uint64) error {
	b, _, err := tx.queued(id)
	if err != nil {
		return err
	}
	if err := b.Delete(idKey(id)); err != nil {
		return fmt.Errorf("store: sent %d: %w", id, err)
	}
	return nil
}

// Dead moves a mail that failed for good from the outbox to the dead
// letters, keeping its ID, with the final error and the time.
func (tx *Tx) Dead(id uint64, errText string, now time.Time) error {
	b, m, err := tx.queued(id)
	if err != nil {
		return err
	}
	dead := tx.own(bucketDead)
	m.LastError = errText
	m.Died = now.UTC()
	if err := putOut(dead, m); err != nil {
		return err
	}
	if err := b.Delete(idKey(id)); err != nil {
		return fmt.Errorf("store: dead %d: %w", id, err)
	}
	return nil
}
