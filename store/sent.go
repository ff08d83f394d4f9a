package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"time"
)

// Mails sent, for the bounces: a bounce counts only when it names a mail
// this server sent to that very address (engine/bounce.go). [Tx.RecordSent]
// keeps the Message-ID and recipient of each copy queued, in the
// transaction that queues it; [Tx.SentTo] answers a bounce; [Tx.Expire]
// deletes them after [SentKeep], oldest first, at most [sentBatch] a run,
// through an index by time (no walk over the records still kept).

// SentKeep is how long the record of a mail sent is kept: the window in
// which bounces of different mails count (engine.BounceWindow), well past
// the five days a mail server goes on retrying before it bounces.
const SentKeep = 14 * 24 * time.Hour

const (
	// maxSentID and maxSentAddr bound a record: a longer Message-ID or
	// address is none of ours (the composer writes short ones).
	maxSentID   = 250
	maxSentAddr = 254
	// maxSentCopies bounds the recipients read back for one Message-ID
	// (a mail goes to the addresses of one account).
	maxSentCopies = 16
	// sentBatch bounds the records one Expire deletes, so that a day's
	// backlog never makes one long write transaction; the rest go at the
	// next run (the daemon runs Expire every minute).
	sentBatch = 2000
)

// A sent record (bucket sent) is keyed by the Message-ID, a space, and the
// lower-cased recipient address; its value is the time queued, 8-byte
// big-endian Unix nanoseconds. Its index entry (bucket sentat) is keyed by
// that time, then the same key; the value is empty.
func sentKey(id, addr string) []byte { return []byte(id + " " + strings.ToLower(addr)) }

func sentAtKey(at time.Time, key []byte) []byte {
	return append(binary.BigEndian.AppendUint64(nil, uint64(at.UnixNano())), key...)
}

// RecordSent keeps that the mail with Message-ID id (without <>) was queued
// for addr at now. An id or address that is empty, too long or holds a
// space or control character is none of ours and is not kept.
func (tx *Tx) RecordSent(id, addr string, now time.Time) error {
	if !sentPart(id, maxSentID) || !sentPart(addr, maxSentAddr) {
		return nil
	}
	k := sentKey(id, addr)
	b := tx.own(bucketSent)
	if old := b.Get(k); len(old) == 8 {
		at := time.Unix(0, int64(binary.BigEndian.Uint64(old)))
		if err := tx.own(bucketSentAt).Delete(sentAtKey(at, k)); err != nil {
			return fmt.Errorf("store: sent %q: %w", k, err)
		}
	}
	if err := b.Put(k, binary.BigEndian.AppendUint64(nil, uint64(now.UnixNano()))); err != nil {
		return fmt.Errorf("store: sent %q: %w", k, err)
	}
	if err := tx.own(bucketSentAt).Put(sentAtKey(now, k), nil); err != nil {
		return fmt.Errorf("store: sent %q: %w", k, err)
	}
	return nil
}

func sentPart(s string, max int) bool {
	if s == "" || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] == 0x7f {
			return false
		}
	}
	return true
}

// SentTo returns the addresses (lower-cased) the mail with Message-ID id
// was queued for within [SentKeep] before now, at most maxSentCopies.
func (tx *Tx) SentTo(id string, now time.Time) ([]string, error) {
	if !sentPart(id, maxSentID) {
		return nil, nil
	}
	var out []string
	prefix := []byte(id + " ")
	c := tx.own(bucketSent).Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) && len(out) < maxSentCopies; k, v = c.Next() {
		if len(v) != 8 {
			return nil, fmt.Errorf("store: sent %q: bad record of %d bytes", k, len(v))
		}
		if now.Sub(time.Unix(0, int64(binary.BigEndian.Uint64(v)))) < SentKeep {
			out = append(out, string(k[len(prefix):]))
		}
	}
	return out, nil
}

// expireSent deletes the sent records queued SentKeep or more before now,
// oldest first, at most sentBatch of them.
func (tx *Tx) expireSent(now time.Time) (int, error) {
	cut := binary.BigEndian.AppendUint64(nil, uint64(now.Add(-SentKeep).UnixNano()))
	idx := tx.own(bucketSentAt)
	var keys [][]byte
	c := idx.Cursor()
	for k, _ := c.First(); k != nil && len(keys) < sentBatch; k, _ = c.Next() {
		if len(k) < 8 {
			return 0, fmt.Errorf("store: sentat %x: bad key", k)
		}
		if bytes.Compare(k[:8], cut) > 0 {
			break
		}
		keys = append(keys, bytes.Clone(k))
	}
	sent := tx.own(bucketSent)
	for _, k := range keys {
		if err := idx.Delete(k); err != nil {
			return 0, fmt.Errorf("store: expire sentat %x: %w", k, err)
		}
		if err := sent.Delete(k[8:]); err != nil {
			return 0, fmt.Errorf("store: expire sent %q: %w", k[8:], err)
		}
	}
	return len(keys), nil
}
