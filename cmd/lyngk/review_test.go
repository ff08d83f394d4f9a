package main

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine/daemon"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/store"
)

// reviewGame plays a LYNGK game of alice and bob to its end through
// `lyngk process`, calling beforeLast before the move that ends it, and
// returns the game-over mails.
func reviewGame(t *testing.T, db string, beforeLast func()) []reply {
	t.Helper()
	addr := map[string]string{"alice": "alice@example.com", "bob": "bob@example.org"}
	n := 0
	nextID := func() string { n++; return fmt.Sprintf("m%d@test.example", n) }
	for _, u := range []string{"alice", "bob"} {
		signupConfirmed(t, db, addr[u], u, "pw-"+u, nextID())
	}
	process(t, db, rawMail{from: addr["alice"], subject: "lyngk challenge alice bob", id: nextID()})
	g := lyngk.New(101, lyngk.Standard)
	rng := rand.New(rand.NewPCG(1, 2))
	var buf []lyngk.Move
	for {
		buf = g.Legal(buf[:0])
		slices.SortFunc(buf, func(a, b lyngk.Move) int { return strings.Compare(a.String(), b.String()) })
		mv := buf[rng.IntN(len(buf))]
		who := [2]string{"alice", "bob"}[g.Turn()-1]
		if err := g.Apply(mv); err != nil {
			t.Fatal(err)
		}
		m := rawMail{from: addr[who], subject: fmt.Sprintf("lyngk move 101 %s pw-%s %s", who, who, mv), id: nextID()}
		if g.Status() != games.Playing {
			if g.Status() != games.Won {
				t.Fatal("the game is a tie: no loser to review")
			}
			beforeLast()
			return process(t, db, m)
		}
		process(t, db, m)
	}
}

// TestReviewInGameOverMail: through the daemon (`lyngk process`), the move
// that ends a game brings both players the robot's review in the
// game-over mail, made before the write transaction (the engine makes
// none inside: TestGameOverReviewNotInside).
func TestReviewInGameOverMail(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	out := reviewGame(t, db, func() {})
	if len(out) != 2 {
		t.Fatalf("%d game-over mails, want 2", len(out))
	}
	for _, r := range out {
		if !strings.Contains(r.Body, "chance fell most, as the robot sees it:") {
			t.Errorf("the game-over mail to %s has no review:\n%s", r.to, r.Body)
		}
	}
}

// TestReviewLeftOutWhenBusy: with daemon.BusyOutbox mails waiting in the
// outbox as the move that ends the game comes, the game-over mails go
// without the review, rather than wait for its search.
func TestReviewLeftOutWhenBusy(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	out := reviewGame(t, db, func() {
		s, err := store.Open(db, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := s.Update(func(tx *store.Tx) error {
			for range daemon.BusyOutbox {
				if _, err := tx.Enqueue("lyngk@localhost", []string{"carol@example.net"}, []byte("Subject: x\r\n\r\nx\r\n"), time.Now()); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	})
	if len(out) != 2 {
		t.Fatalf("%d game-over mails, want 2", len(out))
	}
	for _, r := range out {
		if strings.Contains(r.Body, "chance fell most") || !strings.Contains(r.Body, "Game won by") {
			t.Errorf("the game-over mail to %s, the server busy:\n%s", r.to, r.Body)
		}
	}
}
