package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/store"
)

// BenchmarkApplyMove measures the server's work on one move mail: parse,
// one bbolt transaction (dedupe, game change, two composed board mails into
// the outbox) with its fsync. The store holds 100 running games.
func BenchmarkApplyMove(b *testing.B) {
	db, err := store.Open(filepath.Join(b.TempDir(), "lyngk.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	cfg := defaultConfig()
	cfg.SignupsPerHour = 1000000 // the 200 players sign up at once
	eng, err := newEngine(cfg)
	if err != nil {
		b.Fatal(err)
	}
	a := &app{db: db, eng: eng, robot: cfg.Server, log: slog.New(slog.NewTextHandler(io.Discard, nil)), now: time.Now}
	ctx := context.Background()
	n := 0
	send := func(from, subject string) {
		n++
		m := rawMail{from: from, subject: subject, id: fmt.Sprintf("b%d@bench", n)}
		if _, err := a.apply(ctx, m.bytes(), enqueue); err != nil {
			b.Fatal(err)
		}
	}
	const nGames = 100
	for i := range 2 * nGames {
		from := fmt.Sprintf("p%d@example.com", i)
		send(from, fmt.Sprintf("signup p%d pw", i))
		n++
		m := confirmReply(from, queuedConfirm(b, db, from), fmt.Sprintf("b%d@bench", n))
		if _, err := a.apply(ctx, m.bytes(), enqueue); err != nil {
			b.Fatal(err)
		}
	}
	pos := make([]lyngk.Game, nGames)
	for i := range nGames {
		send("p0@example.com", fmt.Sprintf("lyngk challenge p%d p%d", 2*i, 2*i+1))
		pos[i] = lyngk.New(101+i, lyngk.Standard)
	}
	// Empty the outbox as a sender would, so it does not grow without end;
	// count the board mails' bytes on the way (mails, bytes).
	var mails, size int
	drain := func() {
		err := db.Update(func(tx *store.Tx) error {
			out, err := tx.Outbox()
			for _, m := range out {
				mails++
				size += len(m.Data)
				if err := tx.Sent(m.ID, time.Now()); err != nil {
					return err
				}
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	var buf []lyngk.Move
	i := 0
	move := func() {
		g := &pos[i%nGames]
		buf = g.Legal(buf[:0])
		mv := buf[0]
		p := 2*(i%nGames) + g.Turn() - 1
		send(fmt.Sprintf("p%d@example.com", p), fmt.Sprintf("lyngk move %d p%d pw %s", 101+i%nGames, p, mv))
		if err := g.Apply(mv); err != nil {
			b.Fatal(err)
		}
		i++
	}
	// Two moves in each game first: every player's password has then been
	// through bcrypt once, as on a server that has run for a while.
	for range 2 * nGames {
		move()
	}
	drain()
	mails, size = 0, 0
	for b.Loop() {
		g := &pos[i%nGames]
		if g.Status() != games.Playing {
			*g = lyngk.New(101+i%nGames, lyngk.Standard)
			b.StopTimer()
			send("p0@example.com", fmt.Sprintf("lyngk challenge p%d p%d", 2*(i%nGames), 2*(i%nGames)+1))
			b.StartTimer()
		}
		move()
		if i%100 == 0 {
			b.StopTimer()
			drain()
			b.StartTimer()
		}
	}
	b.StopTimer()
	drain()
	// What each board mail costs on the wire (Postfix, the relay, the
	// players' providers): the composed mail with its picture.
	b.ReportMetric(float64(size)/float64(mails), "bytes/mail")
}
