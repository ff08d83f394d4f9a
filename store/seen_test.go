package store_test

import (
	"testing"
	"time"

	"lyngk.example/lyngk/store"
)

func TestSeen(t *testing.T) {
	db, _ := openTemp(t)
	ids := []string{"a@example.com", "A@example.com", "b@example.com"}
	view(t, db, func(tx *store.Tx) error {
		for _, id := range ids {
			if seen, err := tx.Seen(id); seen || err != nil {
				t.Errorf("Seen(%q) on an empty store = %v, %v", id, seen, err)
			}
		}
		return nil
	})
	update(t, db, func(tx *store.Tx) error { return tx.MarkSeen(ids[0], time0) })
	view(t, db, func(tx *store.Tx) error {
		// Message-IDs are compared exactly: only the one marked is seen.
		for i, id := range ids {
			if seen, err := tx.Seen(id); seen != (i == 0) || err != nil {
				t.Errorf("Seen(%q) = %v, %v; want %v", id, seen, err, i == 0)
			}
		}
		return nil
	})
}

func TestSeenEmptyID(t *testing.T) {
	db, _ := openTemp(t)
	if err := db.View(func(tx *store.Tx) error { _, err := tx.Seen(""); return err }); err == nil {
		t.Error("Seen(\"\") gave no error")
	}
	if err := db.Update(func(tx *store.Tx) error { return tx.MarkSeen("", time0) }); err == nil {
		t.Error("MarkSeen(\"\") gave no error")
	}
}

func TestPruneSeen(t *testing.T) {
	db, _ := openTemp(t)
	marks := []struct {
		id string
		at time.Time
	}{
		{"old1", time0.Add(-40 * 24 * time.Hour)},
		{"old2", time0.Add(-31 * 24 * time.Hour)},
		{"edge", time0.Add(-30 * 24 * time.Hour)},
		{"new", time0},
	}
	update(t, db, func(tx *store.Tx) error {
		for _, m := range marks {
			if err := tx.MarkSeen(m.id, m.at); err != nil {
				return err
			}
		}
		return nil
	})
	var n int
	update(t, db, func(tx *store.Tx) error {
		var err error
		n, err = tx.PruneSeen(time0.Add(-30 * 24 * time.Hour))
		return err
	})
	if n != 2 {
		t.Errorf("PruneSeen removed %d, want 2", n)
	}
	view(t, db, func(tx *store.Tx) error {
		for _, m := range marks {
			want := m.id == "edge" || m.id == "new"
			if seen, err := tx.Seen(m.id); seen != want || err != nil {
				t.Errorf("after prune Seen(%q) = %v, %v; want %v", m.id, seen, err, want)
			}
		}
		return nil
	})
}
