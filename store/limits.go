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
	// MailsPerDay, when above 0, is how many recipients the server may send
	// to in any 24 hours, all mails together: a provider's daily sending
	// cap (Gmail about 500), past which it refuses mail or locks the
	// account. [Tx.Due] holds the rest in the outbox, in order, until the
	// oldest sending of the window is 24 hours old. 0 (the default) sets
	// no cap.
	MailsPerDay int
	// StrangerShare is the percentage of MailsPerDay that mail to
	// strangers (addresses no account has confirmed) may take: in any 24
	// hours at most StrangerShare % of MailsPerDay recipients, and in any
	// hour at most StrangerShare % of a 24th of it, each at least one
	// ([Limits.StrangersPerDay], [Limits.StrangersPerHour]). A stranger's
	// mail past it is dropped, not held ([Tx.Due]): a flood of forged
	// mail must never spend the cap the players' mail needs, nor fill the
	// outbox for the days after. It counts only with MailsPerDay; 0 takes
	// the default, 10.
	StrangerShare int
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
	DefaultStrangerShare  = 10
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
	case l.MailsPerDay < 0:
		return fmt.Errorf("%w: mails per day %d: want 0 (no cap) or more", ErrBadLimits, l.MailsPerDay)
	case l.StrangerShare < 0 || l.StrangerShare > 100:
		return fmt.Errorf("%w: stranger share %d%%: want 1 to 100", ErrBadLimits, l.StrangerShare)
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
	if l.StrangerShare == 0 {
		l.StrangerShare = DefaultStrangerShare
	}
	if l.DeadLetterKeep == 0 {
		l.DeadLetterKeep = DefaultDeadLetterKeep
	}
	if l.SeenKeep == 0 {
		l.SeenKeep = DefaultSeenKeep
	}
	return l
}

// StrangersPerDay is how many stranger recipients may be sent to in any 24
// hours: StrangerShare % of MailsPerDay, at least one; 0 (no bound) without
// MailsPerDay.
func (l Limits) StrangersPerDay() int {
	if l.MailsPerDay <= 0 {
		return 0
	}
	return max(1, l.MailsPerDay*l.share()/100)
}

// StrangersPerHour is how many stranger recipients may be sent to in any
// hour: StrangerShare % of the hour's even part of MailsPerDay (a 24th),
// rounded up, at least one; 0 (no bound) without MailsPerDay. It spreads
// the day's share over the day: a burst of forged mail in the morning
// leaves some for the newcomers of the evening.
func (l Limits) StrangersPerHour() int {
	if l.MailsPerDay <= 0 {
		return 0
	}
	return max(1, (l.MailsPerDay*l.share()+2399)/2400)
}

// share is StrangerShare, or its default when unset.
func (l Limits) share() int {
	if l.StrangerShare == 0 {
		return DefaultStrangerShare
	}
	return l.StrangerShare
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

// day is the window of [Limits.MailsPerDay].
const day = 24 * time.Hour

// A daily record (bucket daily) is one mail sent or dropped: the key is
// the time, 8-byte big-endian Unix nanoseconds, then its mail ID, 8-byte
// big-endian (so two mails of the same nanosecond stay apart); the value
// three 4-byte big-endian counts: its distinct recipients sent to, how many
// of them were strangers ([OutMail.Stranger]), and the stranger recipients
// dropped past the share ([Tx.Drop]). A record of an older release is the
// first count alone. Key order is time order, so the last 24 hours are one
// cursor walk.
func dailyKey(at time.Time, id uint64) []byte {
	return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, uint64(at.UnixNano())), id)
}

// dailyValue is the value of a daily record.
func dailyValue(sent, strangers, dropped int) []byte {
	v := binary.BigEndian.AppendUint32(nil, uint32(sent))
	v = binary.BigEndian.AppendUint32(v, uint32(strangers))
	return binary.BigEndian.AppendUint32(v, uint32(dropped))
}

// DailySent is what the daily window holds at a time.
type DailySent struct {
	// Recipients sent to in the 24 hours before the time asked.
	Recipients int
	// Cap is [Limits.MailsPerDay] (0: none).
	Cap int
	// Oldest is when the oldest sending of the window was made (zero when
	// none): 24 hours after it, its recipients count no more.
	Oldest time.Time
	// Strangers are the stranger recipients among Recipients, and
	// StrangersHour those of the last hour; StrangerCap and
	// StrangerHourCap their bounds ([Limits.StrangersPerDay],
	// [Limits.StrangersPerHour]; 0: none).
	Strangers, StrangersHour     int
	StrangerCap, StrangerHourCap int
	// Dropped counts the stranger recipients whose mail was dropped past
	// the share in the 24 hours.
	Dropped int
}

// Held reports whether the cap holds all mail now.
func (d DailySent) Held() bool { return d.Cap > 0 && d.Recipients >= d.Cap }

// strangersLeft is how many more stranger recipients the shares let out
// now; -1: no bound.
func (d DailySent) strangersLeft() int {
	if d.StrangerCap <= 0 {
		return -1
	}
	return max(0, min(d.StrangerCap-d.Strangers, d.StrangerHourCap-d.StrangersHour))
}

// DailySent counts the recipients sent to in the 24 hours up to now (a
// sending made exactly 24 hours ago no longer counts).
func (tx *Tx) DailySent(now time.Time) (DailySent, error) {
	d := DailySent{Cap: tx.lim.MailsPerDay, StrangerCap: tx.lim.StrangersPerDay(), StrangerHourCap: tx.lim.StrangersPerHour()}
	hour := now.Add(-time.Hour + 1).UnixNano()
	c := tx.own(bucketDaily).Cursor()
	for k, v := c.Seek(dailyKey(now.Add(-day+1), 0)); k != nil; k, v = c.Next() {
		if len(k) != 16 || (len(v) != 4 && len(v) != 12) {
			return d, fmt.Errorf("store: daily %x: bad record", k)
		}
		at := int64(binary.BigEndian.Uint64(k))
		sent := int(binary.BigEndian.Uint32(v))
		if d.Oldest.IsZero() && sent > 0 {
			d.Oldest = time.Unix(0, at)
		}
		d.Recipients += sent
		if len(v) == 12 {
			strangers := int(binary.BigEndian.Uint32(v[4:]))
			d.Strangers += strangers
			if at >= hour {
				d.StrangersHour += strangers
			}
			d.Dropped += int(binary.BigEndian.Uint32(v[8:]))
		}
	}
	return d, nil
}

// Expired counts the records one [Tx.Expire] deleted.
type Expired struct {
	Seen, Dead, Hourly, Daily int
	// Sent counts the records of mails sent (sent.go), at most a batch.
	Sent int
}

// Expire deletes what the store no longer needs at now: dedupe records
// older than [Limits.SeenKeep], dead letters that died more than
// [Limits.DeadLetterKeep] ago, hourly counts whose hour is over, and daily
// records older than 24 hours, and the oldest records of mails sent
// [SentKeep] ago (a bounded batch of them, sent.go). The
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
	if err != nil {
		return e, err
	}
	cut := dailyKey(now.Add(-day+1), 0) // a sending counts for 24 hours, not one nanosecond more
	e.Daily, err = deleteIf(tx.own(bucketDaily), func(k, v []byte) (bool, error) {
		return bytes.Compare(k, cut) < 0, nil
	})
	if err != nil {
		return e, err
	}
	e.Sent, err = tx.expireSent(now)
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
