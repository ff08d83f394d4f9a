package daemon_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/daemon"
	"lyngk.example/lyngk/mailer"
	"lyngk.example/lyngk/store"
)

func open(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "lyngk.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// closed reports whether ch is closed.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// TestChangedAtCommit: the change signal is the channel Changed returned,
// closed by a commit and replaced; a work that fails is rolled back and
// signals nothing; the sender's bookkeeping in the outbox (Begin, Finish)
// is no change either, or every round would wake the sender again.
func TestChangedAtCommit(t *testing.T) {
	db := open(t)
	d := daemon.New(daemon.Config{DB: db, Server: "lyngk@example.org"})
	ctx := context.Background()
	ch := d.Changed()
	errNo := errors.New("refused")
	err := d.Commit(ctx, daemon.Work{Name: "test", Apply: func(tx *daemon.Tx) error {
		if err := tx.Put(store.BucketUsers, "alice", []byte("{}")); err != nil {
			return err
		}
		return errNo
	}})
	if !errors.Is(err, errNo) || closed(ch) {
		t.Fatalf("a refused work: %v, signalled %v", err, closed(ch))
	}
	err = d.Commit(ctx, daemon.Work{Name: "test", Apply: func(tx *daemon.Tx) error {
		_, err := daemon.EnqueueID(tx.Tx, daemon.Outgoing{From: "lyngk@example.org", To: []string{"bob@example.com"}, Data: []byte("Subject: x\r\n\r\nx\r\n")}, tx.Now)
		return err
	}})
	if err != nil || !closed(ch) {
		t.Fatalf("a commit: %v, signalled %v", err, closed(ch))
	}
	next := d.Changed()
	if closed(next) {
		t.Fatal("the next change channel is closed already")
	}
	q := d.Outbox(nil)
	due, err := q.Due(time.Now(), 10)
	if err != nil || len(due) != 1 {
		t.Fatalf("due %v, %v", due, err)
	}
	if err := q.Begin([]mailer.Attempt{{ID: due[0].ID, Next: time.Now().Add(time.Hour)}}); err != nil {
		t.Fatal(err)
	}
	if err := q.Finish(time.Now(), []mailer.Result{{ID: due[0].ID, Status: mailer.Accepted}}); err != nil {
		t.Fatal(err)
	}
	if closed(next) {
		t.Error("the sender's bookkeeping sent the change signal")
	}
}

// TestWatch: Watch calls its functions after a commit, until its context
// ends.
func TestWatch(t *testing.T) {
	d := daemon.New(daemon.Config{DB: open(t)})
	ctx, cancel := context.WithCancel(context.Background())
	woken := make(chan struct{}, 1)
	stopped := make(chan struct{})
	go func() {
		d.Watch(ctx, func() { woken <- struct{}{} })
		close(stopped)
	}()
	// Commit until Watch, started meanwhile, is told of one.
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for done := false; !done; {
		if err := d.Update(ctx, "test", func(tx *store.Tx) error { return tx.Put(store.BucketUsers, "alice", []byte("{}")) }); err != nil {
			t.Fatal(err)
		}
		select {
		case <-woken:
			done = true
		case <-tick.C:
		}
	}
	cancel()
	<-stopped
}

// TestViewReadOnly: the web's view cannot write.
func TestViewReadOnly(t *testing.T) {
	d := daemon.New(daemon.Config{DB: open(t)})
	err := d.View(func(tx engine.Tx) error { return tx.Put(store.BucketUsers, "alice", []byte("{}")) })
	if err == nil {
		t.Fatal("a write through the Reader succeeded")
	}
}
