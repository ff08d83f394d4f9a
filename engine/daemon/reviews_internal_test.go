package daemon

import (
	"path/filepath"
	"testing"
	"time"

	"lyngk.example/lyngk/store"
)

// TestBusy: the server is busy, and the review worker waits, from
// BusyOutbox mails waiting in the outbox, not before.
func TestBusy(t *testing.T) {
	db, err := store.Open(filepath.Join(t.TempDir(), "lyngk.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	isBusy := func() bool {
		var b bool
		if err := db.View(func(tx *store.Tx) error { b = busy(tx); return nil }); err != nil {
			t.Fatal(err)
		}
		return b
	}
	for i := range BusyOutbox {
		if isBusy() {
			t.Fatalf("busy with %d mails waiting, want from %d", i, BusyOutbox)
		}
		if err := db.Update(func(tx *store.Tx) error {
			_, err := tx.Enqueue("lyngk@example.org", []string{"bob@example.com"}, []byte("Subject: x\r\n\r\nx\r\n"), time.Now())
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	if !isBusy() {
		t.Errorf("not busy with %d mails waiting", BusyOutbox)
	}
}
