package store_test

import (
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"lyngk.example/lyngk/store"
)

// TestLayout pins the bytes of the store-owned records that doc.go
// describes: changing them needs a new schema version.
func TestLayout(t *testing.T) {
	db, path := openTemp(t)
	update(t, db, func(tx *store.Tx) error {
		if err := tx.MarkSeen("m1@example.com", time.Unix(0, 0x0102030405060708)); err != nil {
			return err
		}
		a, err := tx.Enqueue(robot, []string{"a@example.com"}, []byte("Subject: a\r\n\r\nA\r\n"), time0)
		if err != nil {
			return err
		}
		b, err := tx.Enqueue(robot, []string{"b@example.com", "c@example.com"}, []byte("B"), time0)
		if err != nil {
			return err
		}
		if err := tx.RecordAttempt(b, time0.Add(time.Minute)); err != nil {
			return err
		}
		if err := tx.Failed(b, "421 busy"); err != nil {
			return err
		}
		c, err := tx.Enqueue(robot, []string{"Carol@example.com", "carol@example.com"}, []byte("C"), time0)
		if err != nil {
			return err
		}
		if err := tx.Sent(c, time0); err != nil {
			return err
		}
		return tx.Dead(a, "550 no", time0.Add(time.Hour))
	})
	db.Close()
	head := func(json string) string { return string([]byte{0, 0, 0, byte(len(json))}) + json }
	want := map[string]map[string]string{
		"seen": {"m1@example.com": "\x01\x02\x03\x04\x05\x06\x07\x08"},
		"outbox": {"\x00\x00\x00\x00\x00\x00\x00\x02": head(`{"from":"lyngk@example.com","to":["b@example.com","c@example.com"],`+
			`"queued":"2026-11-21T12:00:00Z","attempts":1,"next_attempt":"2026-11-21T12:01:00Z","last_error":"421 busy"}`) + "B"},
		"dead": {"\x00\x00\x00\x00\x00\x00\x00\x01": head(`{"from":"lyngk@example.com","to":["a@example.com"],`+
			`"queued":"2026-11-21T12:00:00Z","attempts":0,"next_attempt":"2026-11-21T12:00:00Z","last_error":"550 no",`+
			`"died":"2026-11-21T13:00:00Z","size":17}`) + "Subject: a\r\n\r\n"},
		// Both addresses are one mailbox: the mail counts once.
		"hourly": {"carol@example.com": "\x18\xea\x0d\xa4\x1e\x9d\x80\x00\x00\x00\x00\x01"},
		// Sent at time0, mail 3, one recipient.
		"daily": {"\x18\xea\x0d\xa4\x1e\x9d\x80\x00\x00\x00\x00\x00\x00\x00\x00\x03": "\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00"},
		"meta":  {"schema": "7"},
	}
	got := dump(t, path)
	for bucket, records := range want {
		if !reflect.DeepEqual(got[bucket], records) {
			t.Errorf("bucket %s holds\n%q\nwant\n%q", bucket, got[bucket], records)
		}
	}
}

// A damaged record gives an error, never a panic or a wrong value.
func TestDamagedRecords(t *testing.T) {
	tests := []struct {
		name        string
		bucket, key string
		val         string
		read        func(tx *store.Tx) error
	}{
		{"length beyond record", "outbox", "\x00\x00\x00\x00\x00\x00\x00\x01", "\x00\x00\x01\x00{}",
			func(tx *store.Tx) error { _, err := tx.Outbox(); return err }},
		{"no length", "outbox", "\x00\x00\x00\x00\x00\x00\x00\x01", "\x00\x00",
			func(tx *store.Tx) error { _, _, err := tx.Due(time0, 0); return err }},
		{"bad JSON", "dead", "\x00\x00\x00\x00\x00\x00\x00\x01", "\x00\x00\x00\x02{x",
			func(tx *store.Tx) error { _, err := tx.DeadLetters(); return err }},
		{"short key", "outbox", "\x01", "\x00\x00\x00\x02{}",
			func(tx *store.Tx) error { _, err := tx.Outbox(); return err }},
		{"short seen", "seen", "m", "\x01\x02",
			func(tx *store.Tx) error { _, err := tx.Expire(time0); return err }},
		{"short hourly", "hourly", "a@example.com", "\x01\x02",
			func(tx *store.Tx) error { _, err := tx.Expire(time0); return err }},
		{"bad dead letter", "dead", "\x00\x00\x00\x00\x00\x00\x00\x01", "\x00\x00\x00\x02{x",
			func(tx *store.Tx) error { _, err := tx.Expire(time0); return err }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "damaged.db")
			db, err := store.Open(p, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			db.Close()
			rawPut(t, p, tc.bucket, tc.key, tc.val)
			db, err = store.Open(p, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if err := db.Update(tc.read); err == nil {
				t.Error("damaged record read without error")
			}
		})
	}
}

// TestOpenRemovesObsoleteBuckets opens a file as earlier releases left it,
// with the never-used "mailboxes" bucket: Open removes it and keeps the rest.
func TestOpenRemovesObsoleteBuckets(t *testing.T) {
	db, path := openTemp(t)
	update(t, db, func(tx *store.Tx) error { return tx.Put(store.BucketUsers, "alice", []byte("a")) })
	db.Close()
	rawPut(t, path, "mailboxes", "INBOX", "\x00\x00\x00\x01\x00\x00\x00\x02")
	if _, ok := dump(t, path)["mailboxes"]; !ok {
		t.Fatal("rawPut made no mailboxes bucket")
	}
	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	got := dump(t, path)
	if _, ok := got["mailboxes"]; ok {
		t.Error("the obsolete mailboxes bucket is still there")
	}
	if got["users"]["alice"] != "a" || got["meta"]["schema"] != "7" {
		t.Errorf("other records changed: %q", got)
	}
}
