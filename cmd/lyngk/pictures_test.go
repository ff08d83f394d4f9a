package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/store"
)

// TestPicturesBeforeTransaction: applying mails (applyBatch, as the
// daemon and `lyngk apply` do) draws every board picture before the write
// transaction: a new game and four moves, five positions, five pictures
// drawn before, none inside; the old main drew all five inside.
func TestPicturesBeforeTransaction(t *testing.T) {
	db, err := store.Open(filepath.Join(t.TempDir(), "lyngk.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cfg := defaultConfig()
	eng, err := newEngine(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a := &app{db: db, eng: eng, robot: cfg.Server, log: slog.New(slog.NewTextHandler(io.Discard, nil)), now: time.Now}
	n := 0
	send := func(from, subject string) {
		t.Helper()
		n++
		m := rawMail{from: from, subject: subject, id: fmt.Sprintf("t%d@test", n)}
		if _, err := a.apply(context.Background(), m.bytes(), enqueue); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"alice", "bob"} {
		from := p + "@example.com"
		send(from, "signup "+p+" pw")
		n++
		m := confirmReply(from, queuedConfirm(t, db, from), fmt.Sprintf("t%d@test", n))
		if _, err := a.apply(context.Background(), m.bytes(), enqueue); err != nil {
			t.Fatal(err)
		}
	}
	send("alice@example.com", "lyngk challenge alice bob")
	g := lyngk.New(101, lyngk.Standard)
	for range 4 {
		mv := g.Legal(nil)[0]
		p := [2]string{"alice", "bob"}[g.Turn()-1]
		send(p+"@example.com", fmt.Sprintf("lyngk move 101 %s pw %s", p, mv))
		if err := g.Apply(mv); err != nil {
			t.Fatal(err)
		}
	}
	before, inside, _ := eng.PicturesDrawn()
	if before != 5 || inside != 0 {
		t.Errorf("pictures drawn before the transaction %d, inside %d; want 5 and 0", before, inside)
	}
	// The board mails carry them: 2 a move, 2 for the new game.
	var withPicture int
	err = db.View(func(tx *store.Tx) error {
		out, err := tx.Outbox()
		for _, m := range out {
			if bytes.Contains(m.Data, []byte("Content-Type: image/png")) {
				withPicture++
			}
		}
		return err
	})
	if err != nil || withPicture != 10 {
		t.Errorf("%d mails in the outbox with a picture, want 10 (%v)", withPicture, err)
	}
}
