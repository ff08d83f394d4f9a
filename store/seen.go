package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// Seen reports whether a mail with this Message-ID was already processed.
func (tx *Tx) Seen(msgID string) (bool, error) {
	if msgID == "" {
		return false, errors.New("store: seen: empty message id")
	}
	b := tx.own(bucketSeen)
	return b.Get([]byte(msgID)) != nil, nil
}

// MarkSeen records that the mail with this Message-ID was processed at at.
// Done in the transaction that applies the mail, it makes a redelivery a
// no-op.
func (tx *Tx) MarkSeen(msgID string, at time.Time) error {
	if msgID == "" {
		return errors.New("store: mark seen: empty message id")
	}
	b := tx.own(bucketSeen)
	if err := b.Put([]byte(msgID), binary.BigEndian.AppendUint64(nil, uint64(at.UnixNano()))); err != nil {
		return fmt.Errorf("store: mark seen %q: %w", msgID, err)
	}
	return nil
}

// PruneSeen deletes the dedupe records of mail processed before before and
// returns how many went. Keep them well past any redelivery a mail server
// may do (at least 30 days); the caller picks the cut-off.
func (tx *Tx) PruneSeen(before time.Time) (int, error) {
	b := tx.own(bucketSeen)
	cut := before.UnixNano()
	var old [][]byte
	err := b.ForEach(func(k, v []byte) error {
		if len(v) != 8 {
			return fmt.Errorf("store: seen %q: bad record of %d bytes", k, len(v))
		}
		if int64(binary.BigEndian.Uint64(v)) < cut {
			old = append(old, bytes.Clone(k))
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	// Deleting after the walk: bbolt's ForEach must not modify its bucket.
	for _, k := range old {
		if err := b.Delete(k); err != nil {
			return 0, fmt.Errorf("store: prune seen %q: %w", k, err)
		}
	}
	return len(old), nil
}
