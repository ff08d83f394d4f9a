package store_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"lyngk.example/lyngk/store"
)

// BenchmarkApplyMail is the store's share of one processed move mail: one
// committed transaction that checks and marks the Message-ID, rewrites a
// game record and queues a reply, as cmd/lyngk does per mail.
func BenchmarkApplyMail(b *testing.B) {
	db, _ := openTemp(b)
	game := bytes.Repeat([]byte("g"), 1200) // a game record with ~60 moves
	mail := bytes.Repeat([]byte("m"), 3000) // a board mail
	to := []string{"bob@example.com"}
	i := 0
	for b.Loop() {
		err := db.Update(func(tx *store.Tx) error {
			id := fmt.Sprintf("%d.bench@example.com", i)
			if seen, err := tx.Seen(id); seen || err != nil {
				return fmt.Errorf("seen %v, %v", seen, err)
			}
			if err := tx.MarkSeen(id, time0); err != nil {
				return err
			}
			if err := tx.Put(store.BucketGames, fmt.Sprintf("%08d", 101+i%50), game); err != nil {
				return err
			}
			_, err := tx.Enqueue(robot, to, mail, time0)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkDue is the sender's look at an outbox backed up behind a down
// SMTP server: 1000 queued mails, 10 of them due.
func BenchmarkDue(b *testing.B) {
	db, _ := openTemp(b)
	mail := bytes.Repeat([]byte("m"), 3000)
	update(b, db, func(tx *store.Tx) error {
		for i := range 1000 {
			id, err := tx.Enqueue(robot, []string{fmt.Sprintf("p%d@example.com", i)}, mail, time0)
			if err != nil {
				return err
			}
			if i%100 != 0 {
				if err := tx.RecordAttempt(id, time0.Add(time.Hour)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	for b.Loop() {
		err := db.View(func(tx *store.Tx) error {
			ms, _, err := tx.Due(time0, 100)
			if len(ms) != 10 {
				return fmt.Errorf("%d due, want 10", len(ms))
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
