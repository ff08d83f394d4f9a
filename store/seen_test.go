package store_test

import (
	"path/filepath"
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

// Expire deletes the dedupe records older than SeenKeep, the dead letters
// older than DeadLetterKeep and the hourly counts whose hour is over, and
// keeps everything else.
func TestExpire(t *testing.T) {
	db, err := store.Open(filepath.Join(t.TempDir(), "lyngk.db"), store.Options{Limits: store.Limits{
		SeenKeep: 30 * 24 * time.Hour, DeadLetterKeep: 7 * 24 * time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
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
	id := enqueue(t, db, time0, []string{"a@example.com"}, []string{"b@example.com"}, []string{"c@example.com"})
	update(t, db, func(tx *store.Tx) error {
		if err := tx.Dead(id[0], "550", time0.Add(-8*24*time.Hour)); err != nil {
			return err
		}
		if err := tx.Dead(id[1], "550", time0.Add(-7*24*time.Hour)); err != nil {
			return err
		}
		return tx.Sent(id[2], time0.Add(-time.Hour))
	})
	var got store.Expired
	update(t, db, func(tx *store.Tx) error {
		var err error
		got, err = tx.Expire(time0)
		return err
	})
	if want := (store.Expired{Seen: 2, Dead: 1, Hourly: 1}); got != want {
		t.Errorf("Expire = %+v, want %+v", got, want)
	}
	view(t, db, func(tx *store.Tx) error {
		for _, m := range marks {
			want := m.id == "edge" || m.id == "new"
			if seen, err := tx.Seen(m.id); seen != want || err != nil {
				t.Errorf("after Expire Seen(%q) = %v, %v; want %v", m.id, seen, err, want)
			}
		}
		dead, err := tx.DeadLetters()
		if len(dead) != 1 || dead[0].ID != id[1] {
			t.Errorf("dead letters after Expire: %+v, want only mail %d", dead, id[1])
		}
		return err
	})
}
