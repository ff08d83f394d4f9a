package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	netmail "net/mail"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"lyngk.example/lyngk/engine/daemon"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/store"
)

// reviewGameTo plays a LYNGK game of alice and bob (board 101) through
// `lyngk process` up to the move that ends it, which it returns unsent.
func reviewGameTo(t *testing.T, db string) rawMail {
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
			return m
		}
		process(t, db, m)
	}
}

// TestReviewFollowsGameOver: through `lyngk process`, which has no
// worker, the move that ends a game brings both players the game-over
// mail without a review, then the robot's review in a mail of its own.
func TestReviewFollowsGameOver(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	out := process(t, db, reviewGameTo(t, db))
	if len(out) != 4 {
		t.Fatalf("%d mails after the last move, want 2 game-over mails and 2 reviews", len(out))
	}
	for i, r := range out {
		review := i >= 2
		if got := strings.Contains(r.Body, "chance fell most, as the robot sees it:"); got != review ||
			strings.HasPrefix(r.Subject, "Review of") != review {
			t.Errorf("mail %d to %s (%q), a review: %v, want %v:\n%s", i, r.to, r.Subject, got, review, r.Body)
		}
	}
}

// withoutReviews is rs without the review mails that follow a game's end.
func withoutReviews(rs []reply) []reply {
	return slices.DeleteFunc(rs, func(r reply) bool { return strings.HasPrefix(r.Subject, "Review of ") })
}

// reviewApp is the app of the store at path, its daemon calling hook
// before each review it makes.
func reviewApp(t *testing.T, path string, hook func(ctx context.Context, board int)) *app {
	return reviewAppLog(t, path, hook, io.Discard)
}

// reviewAppLog is reviewApp logging to logs, debug lines included.
func reviewAppLog(t *testing.T, path string, hook func(ctx context.Context, board int), logs io.Writer) *app {
	t.Helper()
	db, err := store.Open(path, store.Options{Upgrade: upgrade})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	cfg := defaultConfig()
	eng, err := newEngine(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a := &app{db: db, eng: eng, robot: cfg.Server, log: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		now: time.Now}
	a.d = daemon.New(daemon.Config{DB: db, Engine: eng, Server: cfg.Server, Log: a.log, Reviewing: hook})
	return a
}

// queuedSubjects lists the outbox's mails as "RECIPIENTS: SUBJECT".
func queuedSubjects(t *testing.T, db *store.DB) []string {
	t.Helper()
	var out []string
	err := db.View(func(tx *store.Tx) error {
		ms, err := tx.Outbox()
		for _, m := range ms {
			h, err := netmail.ReadMessage(bytes.NewReader(m.Data))
			if err != nil {
				return err
			}
			out = append(out, strings.Join(m.To, ",")+": "+h.Header.Get("Subject"))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// reviewsQueued counts the review mails in the outbox.
func reviewsQueued(t *testing.T, db *store.DB) int {
	return len(slices.DeleteFunc(queuedSubjects(t, db), func(s string) bool { return !strings.Contains(s, ": Review of ") }))
}

// TestReviewHoldsNoMail: the move that ends a game is committed with its
// game-over mails before any review is made (on the old code the review
// was made before that commit: ReviewsMade was 1), and while the review
// worker is held in a slow review (the hook), another game's move mail is
// answered at once; released, the worker mails the review to both
// players, once.
func TestReviewHoldsNoMail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lyngk.db")
	last := reviewGameTo(t, path)
	for i, u := range []string{"carol", "dave"} {
		signupConfirmed(t, path, u+"@example.net", u, "pw-"+u, fmt.Sprintf("c%d@test.example", i))
	}
	process(t, path, rawMail{from: "carol@example.net", subject: "lyngk challenge carol dave", id: "c3@test.example"})

	reviewing := make(chan int, 1)
	release := make(chan struct{})
	a := reviewApp(t, path, func(ctx context.Context, board int) {
		reviewing <- board
		select {
		case <-release:
		case <-ctx.Done():
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	if _, err := a.apply(ctx, last.bytes(), daemon.Enqueue); err != nil {
		t.Fatal(err)
	}
	if n := a.eng.ReviewsMade(); n != 0 {
		t.Fatalf("%d reviews made before the game-over mails were committed, want 0", n)
	}
	go func() { stopped <- a.d.RunReviews(ctx) }()
	defer func() {
		cancel()
		<-stopped
	}()
	if b := <-reviewing; b != 101 {
		t.Fatalf("reviewing board %d, want 101", b)
	}
	// The worker is in board 101's review, held: carol's move is answered.
	if _, err := a.apply(ctx, rawMail{from: "carol@example.net", subject: "lyngk move 102 carol pw-carol G,f5-f4", id: "c4@test.example"}.bytes(), daemon.Enqueue); err != nil {
		t.Fatal(err)
	}
	q := queuedSubjects(t, a.db)
	for _, want := range []string{"carol@example.net: Lyngk Board 102 dave", "dave@example.net: Lyngk Board 102 dave"} {
		if !slices.Contains(q, want) {
			t.Errorf("board 102's move mail to %s not queued while the review runs: %q", want, q)
		}
	}
	if n := reviewsQueued(t, a.db); n != 0 {
		t.Errorf("%d review mails before the review was made", n)
	}
	close(release)
	for reviewsQueued(t, a.db) < 2 {
		<-a.d.Changed()
	}
	if n := reviewsQueued(t, a.db); n != 2 {
		t.Errorf("%d review mails, want 2:\n%q", n, queuedSubjects(t, a.db))
	}
}

// reviewsOwed is the lyngk_reviews_owed gauge of /metrics for db.
func reviewsOwed(t *testing.T, db *store.DB) float64 {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(&storeCollector{db: db})
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == "lyngk_reviews_owed" {
			return mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatal("no lyngk_reviews_owed in /metrics")
	return 0
}

// TestReviewAfterCrash (crash safety): the daemon stopped between the
// commit that ends a game and the review's mails (the worker's context
// ends in the middle of the review, as a kill would end it: nothing of it
// is written) leaves the review owed in the store (lyngk_reviews_owed 1);
// after the restart the review is made and mailed to both players once
// (the gauge 0), and a second run of the worker mails nothing more.
func TestReviewAfterCrash(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lyngk.db")
	last := reviewGameTo(t, path)
	ctx, kill := context.WithCancel(context.Background())
	a := reviewApp(t, path, func(context.Context, int) { kill() })
	if _, err := a.apply(context.Background(), last.bytes(), daemon.Enqueue); err != nil {
		t.Fatal(err)
	}
	if err := a.d.RunReviews(ctx); err != context.Canceled {
		t.Fatalf("the worker killed in the review: %v", err)
	}
	if n := reviewsQueued(t, a.db); n != 0 {
		t.Fatalf("%d review mails from the killed worker", n)
	}
	if n := reviewsOwed(t, a.db); n != 1 {
		t.Fatalf("lyngk_reviews_owed %v after the kill, want 1", n)
	}
	a.db.Close()

	b := reviewApp(t, path, nil)
	for range 2 {
		if err := b.d.Reviews(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		if n := reviewsQueued(t, b.db); n != 2 {
			t.Fatalf("%d review mails after the restart, want 2:\n%q", n, queuedSubjects(t, b.db))
		}
	}
	if n := reviewsOwed(t, b.db); n != 0 {
		t.Errorf("lyngk_reviews_owed %v once mailed, want 0", n)
	}
}

// TestReviewWaitsWhenBusy: with daemon.BusyOutbox mails waiting in the
// outbox, the worker makes no review (the players' mail goes first); once
// the sender has drained the outbox below that, it does, without a commit
// to wake it.
func TestReviewWaitsWhenBusy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lyngk.db")
	last := reviewGameTo(t, path)
	started := make(chan int, 1)
	logs := &lockedBuffer{}
	a := reviewAppLog(t, path, func(_ context.Context, board int) { started <- board }, logs)
	var ids []uint64
	if err := a.db.Update(func(tx *store.Tx) error {
		for range daemon.BusyOutbox {
			id, err := tx.Enqueue("lyngk@localhost", []string{"carol@example.net"}, []byte("Subject: x\r\n\r\nx\r\n"), time.Now())
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.apply(context.Background(), last.bytes(), daemon.Enqueue); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- a.d.RunReviews(ctx) }()
	defer func() {
		cancel()
		<-stopped
	}()
	// The worker looks at the store, finds the outbox busy and starts no
	// review: it says so in its log.
	waitText(t, logs, `msg="review waits for the outbox" board=101`)
	select {
	case b := <-started:
		t.Fatalf("board %d reviewed with the outbox busy", b)
	default:
	}
	// The sender delivers the waiting mails (its bookkeeping sends no
	// change signal: the worker looks again by itself).
	if err := a.db.Update(func(tx *store.Tx) error {
		for _, id := range ids {
			if err := tx.Sent(id, time.Now()); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if b := <-started; b != 101 {
		t.Fatalf("reviewed board %d, want 101", b)
	}
	for reviewsQueued(t, a.db) < 2 {
		<-a.d.Changed()
	}
}
