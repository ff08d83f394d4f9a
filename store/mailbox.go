package store

import (
	"encoding/binary"
	"fmt"
)

// MailboxState returns the IMAP poller's position in a mailbox: the
// UIDVALIDITY it last saw and the highest UID it processed; 0, 0 when the
// mailbox was never polled. A changed UIDVALIDITY means the UIDs were
// renumbered (RFC 9051 §2.3.1.1) and lastUID no longer applies.
func (tx *Tx) MailboxState(name string) (uidValidity uint32, lastUID uint32, err error) {
	b := tx.own(bucketMailboxes)
	v := b.Get([]byte(name))
	if v == nil {
		return 0, 0, nil
	}
	if len(v) != 8 {
		return 0, 0, fmt.Errorf("store: mailbox %q: bad record of %d bytes", name, len(v))
	}
	return binary.BigEndian.Uint32(v), binary.BigEndian.Uint32(v[4:]), nil
}

// SetMailboxState records the poller's position in a mailbox.
func (tx *Tx) SetMailboxState(name string, uidValidity, lastUID uint32) error {
	b := tx.own(bucketMailboxes)
	v := binary.BigEndian.AppendUint32(nil, uidValidity)
	v = binary.BigEndian.AppendUint32(v, lastUID)
	if err := b.Put([]byte(name), v); err != nil {
		return fmt.Errorf("store: mailbox %q: %w", name, err)
	}
	return nil
}
