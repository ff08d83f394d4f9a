package store_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"lyngk.example/lyngk/store"
)

// fill writes a little of everything.
func fill(t *testing.T, db *store.DB) {
	t.Helper()
	update(t, db, func(tx *store.Tx) error {
		for i := range 200 {
			if err := tx.Put(store.BucketGames, fmt.Sprintf("%08d", 101+i), bytes.Repeat([]byte{'g'}, 500+i)); err != nil {
				return err
			}
		}
		if err := tx.Put(store.BucketUsers, "alice", []byte(`{"id":"alice"}`)); err != nil {
			return err
		}
		if err := tx.MarkSeen("m1@example.com", time0); err != nil {
			return err
		}
		id, err := tx.Enqueue(robot, []string{"a@example.com"}, []byte("mail 1"), time0)
		if err != nil {
			return err
		}
		if _, err := tx.Enqueue(robot, []string{"b@example.com"}, []byte("mail 2"), time0); err != nil {
			return err
		}
		return tx.Dead(id, "550 no", time0)
	})
}

func TestBackupFile(t *testing.T) {
	db, path := openTemp(t)
	fill(t, db)
	dir := t.TempDir()
	out := filepath.Join(dir, "backup.db")
	// An old backup in the way is replaced whole.
	if err := os.WriteFile(out, []byte("old backup"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := db.BackupFile(out); err != nil {
		t.Fatal(err)
	}
	// Writes after the backup must not show up in it.
	update(t, db, func(tx *store.Tx) error { return tx.Put(store.BucketUsers, "late", []byte("x")) })
	update(t, db, func(tx *store.Tx) error { return tx.Delete(store.BucketUsers, "late") })

	// The copy opens as a store and reads back through the API.
	bdb, err := store.Open(out, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	view(t, bdb, func(tx *store.Tx) error {
		out, _ := tx.Outbox()
		dead, _ := tx.DeadLetters()
		seen, _ := tx.Seen("m1@example.com")
		if len(out) != 1 || string(out[0].Data) != "mail 2" || len(dead) != 1 || !seen {
			t.Errorf("backup holds outbox %+v, dead %+v, seen %v", out, dead, seen)
		}
		return nil
	})
	bdb.Close()
	db.Close()
	if a, b := dump(t, path), dump(t, out); !reflect.DeepEqual(a, b) {
		t.Errorf("backup differs from the store:\n%v\n%v", a, b)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("backup directory holds %v, want only backup.db", entries)
	}
}

func TestBackupWriter(t *testing.T) {
	db, _ := openTemp(t)
	fill(t, db)
	var buf bytes.Buffer
	n, err := db.Backup(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(buf.Len()) || n == 0 {
		t.Errorf("Backup reported %d bytes, wrote %d", n, buf.Len())
	}
	path := filepath.Join(t.TempDir(), "copy.db")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if a, b := dump(t, db.Path()), dump(t, path); !reflect.DeepEqual(a, b) {
		t.Errorf("backup differs from the store:\n%v\n%v", a, b)
	}
}

func TestBackupFileRefusesItself(t *testing.T) {
	db, path := openTemp(t)
	fill(t, db)
	for _, p := range []string{path, filepath.Join(filepath.Dir(path), ".", filepath.Base(path))} {
		if err := db.BackupFile(p); err == nil {
			t.Errorf("BackupFile(%q) over the live store succeeded", p)
		}
	}
	update(t, db, func(tx *store.Tx) error { return tx.Put(store.BucketUsers, "bob", []byte("b")) })
}

func TestBackupFileBadDir(t *testing.T) {
	db, _ := openTemp(t)
	if err := db.BackupFile(filepath.Join(t.TempDir(), "missing", "b.db")); err == nil {
		t.Error("BackupFile into a missing directory succeeded")
	}
}
