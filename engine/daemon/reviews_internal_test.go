package daemon

import (
	"context"
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

// TestGiveWay: the review worker gives way while a unit of work is under
// way and while a round of the sender is (Begin to Finish), and goes on
// when they are done.
func TestGiveWay(t *testing.T) {
	db, err := store.Open(filepath.Join(t.TempDir(), "lyngk.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	d := New(Config{DB: db, Server: "lyngk@example.org"})
	if d.mailUnderWay() {
		t.Fatal("mail under way before any work")
	}
	inApply, release := make(chan struct{}), make(chan struct{})
	committed := make(chan error, 1)
	go func() {
		committed <- d.Commit(context.Background(), Work{Name: "test", Apply: func(*Tx) error {
			close(inApply)
			<-release
			return nil
		}})
	}()
	<-inApply
	if !d.mailUnderWay() {
		t.Fatal("no mail under way in the middle of a commit")
	}
	gaveWay := make(chan error, 1)
	go func() { gaveWay <- d.giveWay(context.Background()) }()
	close(release)
	if err := <-committed; err != nil {
		t.Fatal(err)
	}
	if err := <-gaveWay; err != nil {
		t.Fatal(err)
	}
	if d.working.Load() != 0 {
		t.Errorf("%d units of work under way after the commit", d.working.Load())
	}
	d.lastCommit.Store(0) // past the grace after the commit
	q := d.Outbox(nil)
	if err := q.Begin(nil); err != nil {
		t.Fatal(err)
	}
	if !d.mailUnderWay() {
		t.Error("no mail under way in a round of the sender")
	}
	if err := q.Finish(time.Now(), nil); err != nil {
		t.Fatal(err)
	}
	if d.mailUnderWay() {
		t.Error("mail under way after the sender's round")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d.working.Add(1)
	if err := d.giveWay(ctx); err != context.Canceled {
		t.Errorf("giveWay with its context ended: %v", err)
	}
}
