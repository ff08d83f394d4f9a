package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Limits bound what the store lets out and how long it keeps records that
// are only needed for a while. A zero field takes its default.
type Limits struct {
	// MailsPerHour is how many mails one recipient address may be sent in
	// an hour (counted from the first of them); [Tx.Due] holds the rest in
	// the outbox until the hour is over. It bounds what any flood of
	// commands, forged or not, can make the server send to one address.
	MailsPerHour int
	// DeadLetterKeep is how long a dead letter is kept after it died.
	DeadLetterKeep time.Duration
	// SeenKeep is how long the dedupe record of a processed mail is kept:
	// well past any redelivery (mail servers give up on a message after
	// about five days, RFC 5321 §4.5.4.1).
	SeenKeep time.Duration
}

// Defaults of Limits.
const (
	DefaultMailsPerHour   = 200
	DefaultDeadLetterKeep = 30 * 24 * time.Hour
	DefaultSeenKeep       = 90 * 24 * time.Hour
	// MinSeenKeep is the shortest SeenKeep accepted: a week, past the five
	// days a mail server may go on redelivering.
	MinSeenKeep = 7 * 24 * time.Hour
)

// Validate reports a setting [Open] would refuse.
func (l Limits) Validate() error {
	switch {
	case l.MailsPerHour < 0:
		return fmt.Errorf("%w: mails per address and hour %d: want at least 1", ErrBadLimits, l.MailsPerHour)
	case l.DeadLetterKeep < 0:
		return fmt.Errorf("%w: dead letter keep %v: want a positive duration", ErrBadLimits, l.DeadLetterKeep)
	case l.SeenKeep < 0 || (l.SeenKeep > 0 && l.SeenKeep < MinSeenKeep):
		return fmt.Errorf("%w: dedupe keep %v: want at least %v", ErrBadLimits, l.SeenKeep, MinSeenKeep)
	}
	return nil
}

// WithDefaults returns l with its zero fields set to their defaults.
func (l Limits) WithDefaults() Limits {
	if l.MailsPerHour == 0 {
		l.MailsPerHour = DefaultMailsPerHour
	}
	if l.DeadLetterKeep == 0 {
		l.DeadLetterKeep = DefaultDeadLetterKeep
	}
	if l.SeenKeep == 0 {
		l.SeenKeep = DefaultSeenKeep
	}
	return l
}

// An hourly record (bucket hourly, key the lower-cased address) is the start
// of the address's current hour, 8-byte big-endian Unix nanoseconds, then the
// mails sent to it since, a 4-byte big-endian count.
func decodeHour(addr string, v []byte) (start time.Time, n int, err error) {
	if len(v) != 12 {
		return time.Time{}, 0, fmt.Errorf("store: hourly %q: bad record of %d bytes", addr, len(v))
	}
	return time.Unix(0, int64(binary.BigEndian.Uint64(v))), int(binary.BigEndian.Uint32(v[8:])), nil
}

// hourFull reports whether addr (lower-cased) had its allowance of mails
// within the hour before now.
func (tx *Tx) hourFull(addr string, now time.Time) (bool, error) {
	v := tx.own(bucketHourly).Get([]byte(addr))
	if v == nil {
		return false, nil
	}
	start, n, err := decodeHour(addr, v)
	if err != nil {
		return false, err
	}
	return n >= tx.lim.MailsPerHour && now.Before(start.Add(time.Hour)), nil
}

// countSent counts one mail sent to addr (lower-cased) at now.
func (tx *Tx) countSent(addr string, now time.Time) error {
	b := tx.own(bucketHourly)
	start, n := now, 0
	if v := b.Get([]byte(addr)); v != nil {
		s, c, err := decodeHour(addr, v)
		if err != nil {
			return err
		}
		if now.Before(s.Add(time.Hour)) {
			start, n = s, c
		}
	}
	v := binary.BigEndian.AppendUint64(nil, uint64(start.UnixNano()))
	v = binary.BigEndian.AppendUint32(v, uint32(n+1))
	if err := b.Put([]byte(addr), v); err != nil {
		return fmt.Errorf("store: hourly %q: %w", addr, err)
	}
	return nil
}

// Expired counts the records one [Tx.Expire] deleted.
type Expired struct {
	Seen, Dead, Hourly int
}

// Expire deletes what the store no longer needs at now: dedupe records
// older than [Limits.SeenKeep], dead letters that died more than
// [Limits.DeadLetterKeep] ago, and hourly counts whose hour is over. The
// daemon runs it with its timers, so the file stops growing with the mail
// it has seen.
func (tx *Tx) Expire(now time.Time) (Expired, error) {
	var e Expired
	var err error
	seenCut := now.Add(-tx.lim.SeenKeep).UnixNano()
	e.Seen, err = deleteIf(tx.own(bucketSeen), func(k, v []byte) (bool, error) {
		if len(v) != 8 {
			return false, fmt.Errorf("store: seen %q: bad record of %d bytes", k, len(v))
		}
		return int64(binary.BigEndian.Uint64(v)) < seenCut, nil
	})
	if err != nil {
		return e, err
	}
	deadCut := now.Add(-tx.lim.DeadLetterKeep)
	e.Dead, err = deleteIf(tx.own(bucketDead), func(k, v []byte) (bool, error) {
		m, _, err := decodeOut(k, v)
		return m.Died.Before(deadCut), err
	})
	if err != nil {
		return e, err
	}
	e.Hourly, err = deleteIf(tx.own(bucketHourly), func(k, v []byte) (bool, error) {
		start, _, err := decodeHour(string(k), v)
		return !now.Before(start.Add(time.Hour)), err
	})
	return e, err
}

// deleteIf deletes the records of b for which old says so, after the walk:
// bbolt's ForEach must not modify its bucket.
func deleteIf(b *bolt.Bucket, old func(k, v []byte) (bool, error)) (int, error) {
	var keys [][]byte
	err := b.ForEach(func(k, v []byte) error {
		o, err := old(k, v)
		if o {
			keys = append(keys, bytes.Clone(k))
		}
		return err
	})
	if err != nil {
		return 0, err
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return 0, fmt.Errorf("store: expire %q: %w", k, err)
		}
	}
	return len(keys), nil
}
