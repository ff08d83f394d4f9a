package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"lyngk.example/lyngk/engine/daemon"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/store"
)

// pictureGame applies, mail by mail, the signups of alice and bob, their
// confirmations and "lyngk challenge alice bob" (board 101) to a new store,
// and returns the app, its engine's game and send, which applies one more
// mail. verp sets bounce_verp.
func pictureGame(t *testing.T, verp bool) (a *app, g lyngk.Game, send func(from, subject string) []byte) {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "lyngk.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	cfg := defaultConfig()
	eng, err := newEngine(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a = &app{db: db, eng: eng, robot: cfg.Server, verp: verp, log: slog.New(slog.NewTextHandler(io.Discard, nil)), now: time.Now}
	n := 0
	apply := func(m rawMail) []byte {
		t.Helper()
		if _, err := a.apply(context.Background(), m.bytes(), daemon.Enqueue); err != nil {
			t.Fatal(err)
		}
		return m.bytes()
	}
	send = func(from, subject string) []byte {
		t.Helper()
		n++
		return apply(rawMail{from: from, subject: subject, id: fmt.Sprintf("t%d@test", n)})
	}
	for _, p := range []string{"alice", "bob"} {
		from := p + "@example.com"
		send(from, "signup "+p+" pw")
		n++
		apply(confirmReply(from, queuedConfirm(t, db, from), fmt.Sprintf("t%d@test", n)))
	}
	send("alice@example.com", "lyngk challenge alice bob")
	return a, lyngk.New(101, lyngk.Standard), send
}

// moveMail is the mail of the next player of g playing mv in board 101.
func moveMail(g *lyngk.Game, mv lyngk.Move) (from, subject string) {
	p := [2]string{"alice", "bob"}[g.Turn()-1]
	return p + "@example.com", fmt.Sprintf("lyngk move 101 %s pw %s", p, mv)
}

// TestPicturesBeforeTransaction: applying mails (applyBatch, as the
// daemon and `lyngk apply` do) draws every board picture before the write
// transaction: a new game and four moves, five positions, five pictures
// drawn before, none inside; the old main drew all five inside.
func TestPicturesBeforeTransaction(t *testing.T) {
	a, g, send := pictureGame(t, false)
	db, eng := a.db, a.eng
	for range 4 {
		mv := g.Legal(nil)[0]
		send(moveMail(&g, mv))
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
	err := db.View(func(tx *store.Tx) error {
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

// TestPicturesAfterDuplicate: in a batch whose first mail is a duplicate
// (a mail applied before, fetched again), the later mails' pictures are
// still forecast and drawn before the transaction. The forecast stopped
// at the first duplicate before, and the move's two board mails had their
// picture drawn inside (inside 1, not 0).
func TestPicturesAfterDuplicate(t *testing.T) {
	a, g, send := pictureGame(t, false)
	again := send(moveMail(&g, g.Legal(nil)[0])) // the first move, applied
	if err := g.Apply(g.Legal(nil)[0]); err != nil {
		t.Fatal(err)
	}
	from, subject := moveMail(&g, g.Legal(nil)[0])
	next := rawMail{from: from, subject: subject, id: "next@test"}.bytes()
	before0, _, _ := a.eng.PicturesDrawn()
	res, err := a.applyBatch(context.Background(), [][]byte{again, next}, daemon.Enqueue)
	if err != nil {
		t.Fatal(err)
	}
	if want := []outcome{outcomeDuplicate, outcomeApplied}; !slices.Equal(res, want) {
		t.Fatalf("outcomes %v, want %v", res, want)
	}
	before, inside, _ := a.eng.PicturesDrawn()
	if before != before0+1 || inside != 0 {
		t.Errorf("the second move's picture: drawn before the transaction %d, inside %d; want 1 and 0", before-before0, inside)
	}
}

// TestTimerPicturesBeforeTransaction: the minute timer's mails have their
// pictures drawn before its write transaction, as a move's: a reminder and
// then a forfeit of the same game, each picture drawn before, none inside,
// each mail in the outbox with its picture; the daemon reports the hold of
// the write lock (daemon.Config.Held) of each tick's two transactions, the
// prune's and the timers'. The old daemon forecast nothing for the timer:
// both pictures were drawn inside; and it pruned in the timers'
// transaction.
func TestTimerPicturesBeforeTransaction(t *testing.T) {
	a, g, send := pictureGame(t, false)
	send(moveMail(&g, g.Legal(nil)[0])) // bob to move
	held := map[string]int{}
	cfg := defaultConfig()
	// A restarted server: the move's picture, which the reminder shows
	// too, is no longer in memory.
	eng, err := newEngine(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a.eng = eng
	a.d = daemon.New(daemon.Config{DB: a.db, Engine: a.eng, Server: a.robot, Log: a.log,
		Held: func(work string, _ time.Duration) { held[work]++ }})
	before0, inside0, _ := a.eng.PicturesDrawn()
	pictures := func() int {
		t.Helper()
		n := 0
		err := a.db.View(func(tx *store.Tx) error {
			out, err := tx.Outbox()
			for _, m := range out {
				if bytes.Contains(m.Data, []byte("Content-Type: image/png")) {
					n++
				}
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	queued := pictures()
	for i, at := range []time.Duration{cfg.NagAfter + time.Hour, cfg.ForfeitAfter + time.Hour} {
		if failed, err := a.daemon().Tick(context.Background(), time.Now().Add(at)); failed != nil || err != nil {
			t.Fatalf("tick: %v, %v", failed, err)
		}
		before, inside, _ := a.eng.PicturesDrawn()
		if before != before0+int64(i+1) || inside != inside0 {
			t.Errorf("tick %d: pictures drawn before the transaction %d, inside %d; want %d and 0", i+1, before-before0, inside-inside0, i+1)
		}
	}
	// The reminder to bob, the forfeit's game-over mails to both.
	if n := pictures() - queued; n != 3 {
		t.Errorf("%d timer mails in the outbox with a picture, want 3", n)
	}
	if held["timers"] != 2 || held["prune"] != 2 {
		t.Errorf("the daemon reported %d timer and %d prune transactions, want 2 of each (%v)", held["timers"], held["prune"], held)
	}
}
