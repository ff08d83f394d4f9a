package store_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"lyngk.example/lyngk/store"
)

// TestSentTo: a mail sent is found by its Message-ID, with each address it
// was queued for (lower-cased), for SentKeep; ids and addresses that are
// none of ours are not kept.
func TestSentTo(t *testing.T) {
	db, _ := openTemp(t)
	update(t, db, func(tx *store.Tx) error {
		for _, r := range [][2]string{{"m1@x", "Alice@Example.org"}, {"m1@x", "alice@other.org"}, {"m2@x", "bob@example.org"},
			{"", "a@b"}, {"bad id@x", "a@b"}, {"m3@x", "a b@c"}, {"m4@x", string(make([]byte, 300))}} {
			if err := tx.RecordSent(r[0], r[1], time0); err != nil {
				return err
			}
		}
		return nil
	})
	view(t, db, func(tx *store.Tx) error {
		for _, tc := range []struct {
			id   string
			at   time.Time
			want []string
		}{
			{"m1@x", time0, []string{"alice@example.org", "alice@other.org"}},
			{"m1@x", time0.Add(store.SentKeep - 1), []string{"alice@example.org", "alice@other.org"}},
			{"m1@x", time0.Add(store.SentKeep), nil},
			{"m2@x", time0, []string{"bob@example.org"}},
			{"m1", time0, nil}, // a prefix of an id is not the id
			{"m3@x", time0, nil},
			{"m4@x", time0, nil},
			{"", time0, nil},
		} {
			got, err := tx.SentTo(tc.id, tc.at)
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("SentTo(%q, %v) = %q, %v; want %q", tc.id, tc.at, got, err, tc.want)
			}
		}
		return nil
	})
}

// TestExpireSent: Expire deletes the records of mails sent SentKeep ago or
// more, oldest first and at most a batch a run (2000), and keeps the newer
// ones; a record sent again counts from the new time.
func TestExpireSent(t *testing.T) {
	db, _ := openTemp(t)
	const old = 2500
	update(t, db, func(tx *store.Tx) error {
		for i := range old {
			if err := tx.RecordSent(fmt.Sprintf("old%d@x", i), "a@example.org", time0.Add(time.Duration(i))); err != nil {
				return err
			}
		}
		if err := tx.RecordSent("again@x", "a@example.org", time0); err != nil {
			return err
		}
		if err := tx.RecordSent("again@x", "a@example.org", time0.Add(time.Hour)); err != nil {
			return err
		}
		return tx.RecordSent("new@x", "a@example.org", time0.Add(2*time.Hour))
	})
	expire := func(at time.Time) int {
		var e store.Expired
		update(t, db, func(tx *store.Tx) (err error) { e, err = tx.Expire(at); return err })
		return e.Sent
	}
	at := time0.Add(store.SentKeep + time.Minute)
	if n := expire(at); n != 2000 {
		t.Errorf("first Expire deleted %d sent records, want a batch of 2000", n)
	}
	if n := expire(at); n != old-2000 {
		t.Errorf("second Expire deleted %d sent records, want the %d left", n, old-2000)
	}
	if n := expire(at); n != 0 {
		t.Errorf("third Expire deleted %d sent records, want 0", n)
	}
	view(t, db, func(tx *store.Tx) error {
		for _, id := range []string{"again@x", "new@x"} {
			if got, err := tx.SentTo(id, at); err != nil || len(got) != 1 {
				t.Errorf("SentTo(%q) after Expire = %q, %v; want kept", id, got, err)
			}
		}
		if got, _ := tx.SentTo("old0@x", time0); got != nil {
			t.Errorf("SentTo(old0@x) after Expire = %q, want deleted", got)
		}
		return nil
	})
	if n := expire(time0.Add(store.SentKeep + 3*time.Hour)); n != 2 {
		t.Errorf("last Expire deleted %d sent records, want 2", n)
	}
}
