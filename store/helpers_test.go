package store_test

import (
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"

	"lyngk.example/lyngk/store"
)

// openTemp opens a fresh store in t.TempDir and closes it when t ends.
func openTemp(t testing.TB) (*store.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lyngk.db")
	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, path
}

func update(t testing.TB, db *store.DB, fn func(*store.Tx) error) {
	t.Helper()
	if err := db.Update(fn); err != nil {
		t.Fatal(err)
	}
}

func view(t testing.TB, db *store.DB, fn func(*store.Tx) error) {
	t.Helper()
	if err := db.View(fn); err != nil {
		t.Fatal(err)
	}
}

// dump reads every bucket of a closed store file with bbolt itself, so a
// comparison does not depend on the API under test.
func dump(t *testing.T, path string) map[string]map[string]string {
	t.Helper()
	bdb, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	out := map[string]map[string]string{}
	err = bdb.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			m := map[string]string{}
			out[string(name)] = m
			return b.ForEach(func(k, v []byte) error {
				m[string(k)] = string(v)
				return nil
			})
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// rawPut writes one record into a closed store file behind the API's back.
func rawPut(t *testing.T, path, bucket, key, val string) {
	t.Helper()
	bdb, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	err = bdb.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte(bucket))
		if err != nil {
			return err
		}
		return b.Put([]byte(key), []byte(val))
	})
	if err != nil {
		t.Fatal(err)
	}
}
