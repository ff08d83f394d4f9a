package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/store"
)

// TestBoardMailBytes is the bound on a board mail as it leaves the
// server: two whole games of random legal moves (seeded), every mail the
// outbox gets from the challenge to the game over composed with its
// picture, each at most maxMail bytes and on average at most avgMail.
// The target was 20 KB in all; at the picture's size and look the
// server reaches these (deploy/BENCHMARKS.md). The 130
// mails are now 33,041 bytes on average, 37,159 at most; on 743453c,
// before the 14-colour palette and the deflate at level 6, they were
// 38,132 and 42,405.
func TestBoardMailBytes(t *testing.T) {
	const maxMail, avgMail = 38 << 10, 34 << 10
	a := testApp(t, filepath.Join(t.TempDir(), "lyngk.db"))
	ctx := context.Background()
	n := 0
	apply := func(m rawMail) {
		t.Helper()
		if _, err := a.apply(ctx, m.bytes(), enqueue); err != nil {
			t.Fatal(err)
		}
	}
	send := func(from, subject string) {
		t.Helper()
		n++
		apply(rawMail{from: from, subject: subject, id: fmt.Sprintf("m%d@test", n)})
	}
	// drain empties the outbox and returns its mails.
	drain := func() [][]byte {
		t.Helper()
		var out [][]byte
		err := a.db.Update(func(tx *store.Tx) error {
			ms, err := tx.Outbox()
			for _, m := range ms {
				out = append(out, m.Data)
				if err := tx.Sent(m.ID, time.Now()); err != nil {
					return err
				}
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for i := range 2 {
		from := fmt.Sprintf("p%d@example.com", i)
		send(from, fmt.Sprintf("signup p%d pw", i))
		n++
		apply(confirmReply(from, queuedConfirm(t, a.db, from), fmt.Sprintf("m%d@test", n)))
	}
	drain()
	var sizes []int
	most, pngMost := 0, 0
	var buf []lyngk.Move
	for board, seed := range []uint64{1, 2} {
		board += 101
		rng := rand.New(rand.NewPCG(seed, 2))
		send("p0@example.com", "lyngk challenge p0 p1")
		g := lyngk.New(board, lyngk.Standard)
		mails := drain()
		for g.Status() == games.Playing {
			buf = g.Legal(buf[:0])
			mv := buf[rng.IntN(len(buf))]
			p := g.Turn() - 1
			send(fmt.Sprintf("p%d@example.com", p), fmt.Sprintf("lyngk move %d p%d pw %s", board, p, mv))
			if err := g.Apply(mv); err != nil {
				t.Fatal(err)
			}
			mails = append(mails, drain()...)
		}
		for _, m := range mails {
			if !strings.Contains(string(m), "Content-Type: image/png") {
				t.Fatalf("board %d: a mail without the picture:\n%s", board, m)
			}
			sizes = append(sizes, len(m))
			if len(m) > most {
				most = len(m)
				for _, p := range leaves(t, m) {
					if strings.HasSuffix(p.path, "image/png") {
						pngMost = len(p.body)
					}
				}
			}
		}
	}
	sum := 0
	for _, s := range sizes {
		sum += s
	}
	avg := sum / len(sizes)
	t.Logf("%d board mails: %d bytes on average, the largest %d (its PNG %d)", len(sizes), avg, most, pngMost)
	if most > maxMail || avg > avgMail {
		t.Errorf("%d board mails: %d bytes on average, the largest %d (its PNG %d); want at most %d and %d", len(sizes), avg, most, pngMost, avgMail, maxMail)
	}
}
