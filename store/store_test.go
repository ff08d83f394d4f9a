package store_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	berrors "go.etcd.io/bbolt/errors"

	"lyngk.example/lyngk/store"
)

func TestOpenCreatesLayout(t *testing.T) {
	db, path := openTemp(t)
	if db.Path() != path {
		t.Errorf("Path() = %q, want %q", db.Path(), path)
	}
	db.Close()
	got := dump(t, path)
	want := map[string]map[string]string{
		"users": {}, "games": {}, "tokens": {}, "rate": {}, "strangers": {}, "robot": {}, "addresses": {}, "confirms": {}, "bounces": {},
		"byplayer": {}, "running": {}, "deadlines": {}, "ended": {}, "counts": {}, "ratings": {}, "gametokens": {}, "expiry": {}, "recipients": {}, "reviews": {}, "summaries": {},
		"tournaments": {}, "tourindex": {},
		"meta": {"schema": "7"},
		"seen": {}, "outbox": {}, "dead": {}, "hourly": {}, "daily": {}, "sent": {}, "sentat": {},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("new file holds %v, want %v", got, want)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
}

func TestGenericRoundTrip(t *testing.T) {
	db, _ := openTemp(t)
	tests := []struct {
		bucket, key string
		val         []byte
	}{
		{store.BucketUsers, "alice", []byte(`{"id":"alice"}`)},
		{store.BucketGames, "00000101", []byte(`{"board":101}`)},
		{store.BucketTokens, "tok", []byte{0, 1, 2, 255}},
		{store.BucketRate, "bob@example.com", []byte(`3`)},
		{store.BucketMeta, "nextboard", []byte(`102`)},
		{store.BucketUsers, "empty", []byte{}},
	}
	update(t, db, func(tx *store.Tx) error {
		for _, tc := range tests {
			if err := tx.Put(tc.bucket, tc.key, tc.val); err != nil {
				return err
			}
		}
		return nil
	})
	view(t, db, func(tx *store.Tx) error {
		for _, tc := range tests {
			got, err := tx.Get(tc.bucket, tc.key)
			if err != nil {
				return err
			}
			if got == nil || !bytes.Equal(got, tc.val) {
				t.Errorf("Get(%s, %s) = %q, want %q", tc.bucket, tc.key, got, tc.val)
			}
		}
		got, err := tx.Get(store.BucketUsers, "nobody")
		if got != nil || err != nil {
			t.Errorf("Get of absent key = %q, %v; want nil, nil", got, err)
		}
		return nil
	})
	update(t, db, func(tx *store.Tx) error {
		if err := tx.Delete(store.BucketUsers, "alice"); err != nil {
			return err
		}
		return tx.Delete(store.BucketUsers, "never-there")
	})
	view(t, db, func(tx *store.Tx) error {
		if got, _ := tx.Get(store.BucketUsers, "alice"); got != nil {
			t.Errorf("after Delete, Get = %q", got)
		}
		return nil
	})
}

func TestGetReturnsCopy(t *testing.T) {
	db, _ := openTemp(t)
	update(t, db, func(tx *store.Tx) error { return tx.Put(store.BucketGames, "g", []byte("abc")) })
	var got []byte
	view(t, db, func(tx *store.Tx) error {
		var err error
		got, err = tx.Get(store.BucketGames, "g")
		got[0] = 'X' // would fault on bbolt's read-only mapping
		return err
	})
	// Written to after other transactions reused the pages.
	for range 50 {
		update(t, db, func(tx *store.Tx) error { return tx.Put(store.BucketGames, "g", bytes.Repeat([]byte("z"), 4000)) })
	}
	if string(got) != "Xbc" {
		t.Errorf("value after its transaction = %q, want %q", got, "Xbc")
	}
	view(t, db, func(tx *store.Tx) error {
		return tx.ForEach(store.BucketGames, func(_ string, v []byte) error {
			v[0] = 'Y'
			return nil
		})
	})
}

func TestUnknownBucket(t *testing.T) {
	db, _ := openTemp(t)
	ops := []struct {
		name string
		op   func(tx *store.Tx, bucket string) error
	}{
		{"Get", func(tx *store.Tx, b string) error { _, err := tx.Get(b, "k"); return err }},
		{"Put", func(tx *store.Tx, b string) error { return tx.Put(b, "k", []byte("v")) }},
		{"Delete", func(tx *store.Tx, b string) error { return tx.Delete(b, "k") }},
		{"ForEach", func(tx *store.Tx, b string) error {
			return tx.ForEach(b, func(string, []byte) error { return nil })
		}},
	}
	// The store's own buckets are as unknown to the generic calls as a typo.
	for _, bucket := range []string{"nope", "", "seen", "outbox", "dead", "mailboxes", "Users"} {
		for _, o := range ops {
			err := db.Update(func(tx *store.Tx) error { return o.op(tx, bucket) })
			if !errors.Is(err, store.ErrNoBucket) {
				t.Errorf("%s(%q) = %v, want ErrNoBucket", o.name, bucket, err)
			}
		}
	}
}

func TestSchemaKeyReserved(t *testing.T) {
	db, _ := openTemp(t)
	for _, op := range []func(*store.Tx) error{
		func(tx *store.Tx) error { return tx.Put(store.BucketMeta, "schema", []byte("7")) },
		func(tx *store.Tx) error { return tx.Delete(store.BucketMeta, "schema") },
	} {
		if err := db.Update(op); !errors.Is(err, store.ErrReserved) {
			t.Errorf("got %v, want ErrReserved", err)
		}
	}
	view(t, db, func(tx *store.Tx) error {
		v, err := tx.Get(store.BucketMeta, "schema")
		if string(v) != "7" {
			t.Errorf("schema = %q, want 7", v)
		}
		return err
	})
}

func TestForEach(t *testing.T) {
	db, _ := openTemp(t)
	update(t, db, func(tx *store.Tx) error {
		for _, k := range []string{"00000103", "00000101", "00000110", "00000102"} {
			if err := tx.Put(store.BucketGames, k, []byte("v"+k)); err != nil {
				return err
			}
		}
		return nil
	})
	var keys []string
	view(t, db, func(tx *store.Tx) error {
		return tx.ForEach(store.BucketGames, func(k string, v []byte) error {
			if string(v) != "v"+k {
				t.Errorf("value of %s = %q", k, v)
			}
			keys = append(keys, k)
			return nil
		})
	})
	if want := []string{"00000101", "00000102", "00000103", "00000110"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("ForEach order %v, want %v", keys, want)
	}

	// fn may modify the bucket: delete the current key, delete a later
	// one, add a later one, rewrite the current one.
	keys = nil
	update(t, db, func(tx *store.Tx) error {
		return tx.ForEach(store.BucketGames, func(k string, _ []byte) error {
			keys = append(keys, k)
			switch k {
			case "00000101":
				return tx.Delete(store.BucketGames, k)
			case "00000102":
				if err := tx.Delete(store.BucketGames, "00000103"); err != nil {
					return err
				}
				return tx.Put(store.BucketGames, "00000105", []byte("v00000105"))
			case "00000105":
				return tx.Put(store.BucketGames, k, []byte("changed"))
			}
			return nil
		})
	})
	if want := []string{"00000101", "00000102", "00000105", "00000110"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("ForEach while modifying visited %v, want %v", keys, want)
	}

	stop := errors.New("stop")
	n := 0
	err := db.View(func(tx *store.Tx) error {
		return tx.ForEach(store.BucketGames, func(string, []byte) error { n++; return stop })
	})
	if err != stop || n != 1 {
		t.Errorf("ForEach with failing fn: err %v after %d calls, want stop after 1", err, n)
	}
}

func TestUpdateRollsBack(t *testing.T) {
	db, path := openTemp(t)
	update(t, db, func(tx *store.Tx) error { return tx.Put(store.BucketUsers, "keep", []byte("1")) })
	boom := errors.New("boom")
	err := db.Update(func(tx *store.Tx) error {
		if err := tx.Put(store.BucketUsers, "alice", []byte("x")); err != nil {
			return err
		}
		if err := tx.Delete(store.BucketUsers, "keep"); err != nil {
			return err
		}
		if err := tx.MarkSeen("m1@example.com", time0); err != nil {
			return err
		}
		if _, err := tx.Enqueue("robot@example.com", []string{"a@example.com"}, []byte("mail"), time0); err != nil {
			return err
		}
		return boom
	})
	if err != boom {
		t.Fatalf("Update returned %v, want the function's own error", err)
	}
	db.Close()
	got := dump(t, path)
	want := map[string]map[string]string{
		"users": {"keep": "1"}, "games": {}, "tokens": {}, "rate": {}, "strangers": {}, "robot": {}, "addresses": {}, "confirms": {}, "bounces": {},
		"byplayer": {}, "running": {}, "deadlines": {}, "ended": {}, "counts": {}, "ratings": {}, "gametokens": {}, "expiry": {}, "recipients": {}, "reviews": {}, "summaries": {},
		"tournaments": {}, "tourindex": {},
		"meta": {"schema": "7"}, "seen": {}, "outbox": {}, "dead": {}, "hourly": {}, "daily": {}, "sent": {}, "sentat": {},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after a failed Update the file holds %v, want %v", got, want)
	}
}

func TestUpdatePanicRollsBack(t *testing.T) {
	db, _ := openTemp(t)
	func() {
		defer func() { recover() }()
		db.Update(func(tx *store.Tx) error {
			tx.Put(store.BucketUsers, "alice", []byte("x"))
			panic("engine bug")
		})
	}()
	view(t, db, func(tx *store.Tx) error {
		if v, _ := tx.Get(store.BucketUsers, "alice"); v != nil {
			t.Errorf("write of a panicking Update kept: %q", v)
		}
		return nil
	})
	update(t, db, func(tx *store.Tx) error { return tx.Put(store.BucketUsers, "bob", []byte("y")) })
}

func TestViewIsReadOnly(t *testing.T) {
	db, _ := openTemp(t)
	err := db.View(func(tx *store.Tx) error { return tx.Put(store.BucketUsers, "alice", []byte("x")) })
	if !errors.Is(err, berrors.ErrTxNotWritable) {
		t.Errorf("Put in View = %v, want ErrTxNotWritable", err)
	}
}

func TestSecondOpenFailsInsteadOfBlocking(t *testing.T) {
	_, path := openTemp(t)
	db2, err := store.Open(path, store.Options{Timeout: 1})
	if err == nil {
		db2.Close()
		t.Fatal("second Open of a file in use succeeded")
	}
	if !errors.Is(err, store.ErrLocked) {
		t.Errorf("second Open = %v, want ErrLocked", err)
	}
}

func TestReopenPersists(t *testing.T) {
	db, path := openTemp(t)
	update(t, db, func(tx *store.Tx) error {
		if err := tx.Put(store.BucketUsers, "alice", []byte("a")); err != nil {
			return err
		}
		if err := tx.MarkSeen("m1@example.com", time0); err != nil {
			return err
		}
		if _, err := tx.Enqueue("robot@example.com", []string{"a@example.com"}, []byte("mail"), time0); err != nil {
			return err
		}
		return nil
	})
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	view(t, db, func(tx *store.Tx) error {
		v, _ := tx.Get(store.BucketUsers, "alice")
		seen, _ := tx.Seen("m1@example.com")
		out, _ := tx.Outbox()
		if string(v) != "a" || !seen || len(out) != 1 || string(out[0].Data) != "mail" {
			t.Errorf("after reopen: user %q, seen %v, outbox %v", v, seen, out)
		}
		return nil
	})
}

func TestSchemaRefused(t *testing.T) {
	tests := []struct {
		name   string
		schema string
	}{
		{"newer", "8"},
		{"older without upgrade", "1"},
		{"none", "0"},
		{"garbage", "one"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "lyngk.db")
			rawPut(t, path, "meta", "schema", tc.schema)
			before := dump(t, path)
			db, err := store.Open(path, store.Options{})
			if err == nil {
				db.Close()
				t.Fatal("Open accepted the file")
			}
			if !errors.Is(err, store.ErrSchema) {
				t.Errorf("Open = %v, want ErrSchema", err)
			}
			if after := dump(t, path); !reflect.DeepEqual(before, after) {
				t.Errorf("refused file changed from %v to %v", before, after)
			}
		})
	}
}

// TestSchemaUpgrade opens a version 1 file with an upgrade: the upgrade
// sees version 1 and the new buckets, and the file is at the current
// version after it; an upgrade that fails leaves the file as it was.
func TestSchemaUpgrade(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lyngk.db")
	rawPut(t, path, "meta", "schema", "1")
	rawPut(t, path, "users", "alice", "A")
	before := dump(t, path)
	boom := errors.New("boom")
	failing := func(tx *store.Tx, from int) (bool, error) {
		if err := tx.Put(store.BucketAddresses, "x", []byte("y")); err != nil {
			return false, err
		}
		return false, boom
	}
	if db, err := store.Open(path, store.Options{Upgrade: failing}); !errors.Is(err, boom) {
		if err == nil {
			db.Close()
		}
		t.Fatalf("Open with a failing upgrade = %v, want boom", err)
	}
	if after := dump(t, path); !reflect.DeepEqual(before, after) {
		t.Fatalf("failed upgrade changed the file from %v to %v", before, after)
	}
	var got []int
	db, err := store.Open(path, store.Options{Upgrade: func(tx *store.Tx, from int) (bool, error) {
		got = append(got, from)
		v, err := tx.Get(store.BucketUsers, "alice")
		if err != nil {
			return false, err
		}
		return true, tx.Put(store.BucketAddresses, "alice@example.com", v)
	}})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if !slices.Equal(got, []int{1}) {
		t.Errorf("upgrade called with %v, want [1]", got)
	}
	after := dump(t, path)
	if after["meta"]["schema"] != "7" || after["addresses"]["alice@example.com"] != "A" {
		t.Errorf("after upgrade: meta %v, addresses %v", after["meta"], after["addresses"])
	}
	// A current file never runs the upgrade again.
	db, err = store.Open(path, store.Options{Upgrade: func(*store.Tx, int) (bool, error) { return false, boom }})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
}

// TestSchemaUpgradeSteps: an upgrade of three steps, each in its own
// transaction, that fails in its second step the first time: the first
// step's write is kept, the file keeps its old version, and the next Open
// goes on from the second step and writes the new version with the
// third. The old Open ran the upgrade in one transaction, whatever the
// file held.
func TestSchemaUpgradeSteps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lyngk.db")
	rawPut(t, path, "meta", "schema", "4")
	boom := errors.New("boom")
	var calls []string
	step := func(failAt string) func(tx *store.Tx, from int) (bool, error) {
		return func(tx *store.Tx, from int) (bool, error) {
			v, err := tx.Get(store.BucketMeta, "step")
			if err != nil {
				return false, err
			}
			next := map[string]string{"": "1", "1": "2", "2": "3"}[string(v)]
			calls = append(calls, fmt.Sprintf("%d:%s", from, next))
			if next == failAt {
				return false, boom
			}
			return next == "3", tx.Put(store.BucketMeta, "step", []byte(next))
		}
	}
	if db, err := store.Open(path, store.Options{Upgrade: step("2")}); !errors.Is(err, boom) {
		if err == nil {
			db.Close()
		}
		t.Fatalf("Open failing in the second step = %v, want boom", err)
	}
	if got := dump(t, path)["meta"]; got["step"] != "1" || got["schema"] != "4" {
		t.Fatalf("after a failed second step: meta %v, want step 1 kept at version 4", got)
	}
	db, err := store.Open(path, store.Options{Upgrade: step("")})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if want := []string{"4:1", "4:2", "4:2", "4:3"}; !slices.Equal(calls, want) {
		t.Errorf("steps %v, want %v", calls, want)
	}
	if got := dump(t, path)["meta"]; got["step"] != "3" || got["schema"] != "7" {
		t.Errorf("after the upgrade: meta %v", got)
	}
}

func TestOpenNotAStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "junk.db")
	if err := os.WriteFile(path, bytes.Repeat([]byte("not bbolt "), 1000), 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(path, store.Options{})
	if err == nil {
		db.Close()
		t.Fatal("Open accepted a file that is not bbolt")
	}
}

func TestClosedDB(t *testing.T) {
	db, _ := openTemp(t)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	nop := func(*store.Tx) error { return nil }
	if err := db.Update(nop); !errors.Is(err, berrors.ErrDatabaseNotOpen) {
		t.Errorf("Update after Close = %v, want ErrDatabaseNotOpen", err)
	}
	if err := db.View(nop); !errors.Is(err, berrors.ErrDatabaseNotOpen) {
		t.Errorf("View after Close = %v, want ErrDatabaseNotOpen", err)
	}
	if _, err := db.Backup(io.Discard); err == nil {
		t.Error("Backup after Close succeeded")
	}
}
