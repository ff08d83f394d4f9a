package store_test

import (
	"testing"

	"lyngk.example/lyngk/store"
)

func TestMailboxState(t *testing.T) {
	db, _ := openTemp(t)
	tests := []struct {
		name          string
		validity, uid uint32
	}{
		{"INBOX", 1700000000, 42},
		{"Processed", 1, 0},
		{"INBOX", 1700000001, 1}, // UIDVALIDITY changed: overwritten
		{"Archiv/Größe", ^uint32(0), ^uint32(0)},
	}
	view(t, db, func(tx *store.Tx) error {
		if v, u, err := tx.MailboxState("INBOX"); v != 0 || u != 0 || err != nil {
			t.Errorf("MailboxState of a never polled mailbox = %d, %d, %v", v, u, err)
		}
		return nil
	})
	for _, tc := range tests {
		update(t, db, func(tx *store.Tx) error { return tx.SetMailboxState(tc.name, tc.validity, tc.uid) })
		view(t, db, func(tx *store.Tx) error {
			v, u, err := tx.MailboxState(tc.name)
			if v != tc.validity || u != tc.uid || err != nil {
				t.Errorf("MailboxState(%q) = %d, %d, %v; want %d, %d", tc.name, v, u, err, tc.validity, tc.uid)
			}
			return nil
		})
	}
}
