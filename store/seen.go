package store

import (
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
