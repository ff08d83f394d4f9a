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

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/daemon"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/mailer"
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

// TestReviewInGameOver: through `lyngk process`, which has no worker,
// the move that ends a game brings both players the game-over mail with
// the robot's review in it, and no other mail.
func TestReviewInGameOver(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	out := process(t, db, reviewGameTo(t, db))
	if len(out) != 2 {
		t.Fatalf("%d mails after the last move, want the 2 game-over mails", len(out))
	}
	for i, r := range out {
		if !strings.Contains(r.Body, "Game won by") || !strings.Contains(r.Body, "chance fell most, as the robot sees it:") {
			t.Errorf("mail %d to %s (%q), want the game-over mail with its review:\n%s", i, r.to, r.Subject, r.Body)
		}
	}
}

// reviewApp is the app of the store at path, its daemon calling hook
// before each review it makes.
func reviewApp(t *testing.T, path string, hook func(ctx context.Context, board int)) *app {
	return reviewAppLog(t, path, hook, io.Discard)
}

// reviewAppLog is reviewApp logging to logs, debug lines included.
func reviewAppLog(t *testing.T, path string, hook func(ctx context.Context, board int), logs io.Writer) *app {
	return reviewAppClock(t, path, hook, logs, time.Now)
}

// reviewAppClock is reviewAppLog with now the daemon's clock, which the
// review worker's Due is read by (the mail's clock stays time.Now).
func reviewAppClock(t *testing.T, path string, hook func(ctx context.Context, board int), logs io.Writer, now func() time.Time) *app {
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
	a.d = daemon.New(daemon.Config{DB: db, Engine: eng, Server: cfg.Server, Log: a.log, Reviewing: hook, Now: now})
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

// gameOverQueued counts board 101's game-over mails in the outbox, and
// those with the robot's review in their text.
func gameOverQueued(t *testing.T, db *store.DB) (n, reviewed int) {
	t.Helper()
	err := db.View(func(tx *store.Tx) error {
		ms, err := tx.Outbox()
		for _, m := range ms {
			in, err := mailer.Parse(bytes.NewReader(m.Data), maxMailSize)
			if err != nil {
				return err
			}
			if in.Subject == "Lyngk Board 101" && strings.Contains(in.Body, "Game won by") {
				n++
				if strings.Contains(in.Body, "chance fell most, as the robot sees it:") {
					reviewed++
				}
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n, reviewed
}

// waitGameOver waits until a's outbox holds board 101's two game-over
// mails and returns how many carry the review.
func waitGameOver(t *testing.T, a *app) int {
	t.Helper()
	for {
		changed := a.d.Changed()
		if n, reviewed := gameOverQueued(t, a.db); n >= 2 {
			if n != 2 {
				t.Errorf("%d game-over mails, want 2:\n%q", n, queuedSubjects(t, a.db))
			}
			return reviewed
		}
		select {
		case <-changed:
		case <-time.After(patience):
			t.Fatalf("no game-over mails:\n%q", queuedSubjects(t, a.db))
		}
	}
}

// TestReviewHoldsNoMail: the move that ends a game is committed before
// any review is made (on the old code before this worker the review was
// made before that commit: ReviewsMade was 1), its game-over mails held
// in the store, none queued; while the review worker is held in a slow
// review (the hook), another game's move mail is answered at once;
// released, the worker queues the game-over mails to both players, once,
// with the review.
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
		t.Fatalf("%d reviews made before the game's end was committed, want 0", n)
	}
	if n, _ := gameOverQueued(t, a.db); n != 0 {
		t.Fatalf("%d game-over mails queued before their review", n)
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
	if n, _ := gameOverQueued(t, a.db); n != 0 {
		t.Errorf("%d game-over mails before the review was made", n)
	}
	close(release)
	if n := waitGameOver(t, a); n != 2 {
		t.Errorf("%d game-over mails with the review, want 2", n)
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
// commit that ends a game and the review's commit (the worker's context
// ends in the middle of the review, as a kill would end it: nothing of it
// is written) leaves the review owed in the store (lyngk_reviews_owed 1)
// and the game-over mails held, none queued; after the restart the review
// is made and the game-over mails go to both players once, with it (the
// gauge 0), and a second run of the worker mails nothing more.
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
	if n, _ := gameOverQueued(t, a.db); n != 0 {
		t.Fatalf("%d game-over mails from the killed worker", n)
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
		if n, reviewed := gameOverQueued(t, b.db); n != 2 || reviewed != 2 {
			t.Fatalf("%d game-over mails after the restart, %d with the review, want 2 and 2:\n%q", n, reviewed, queuedSubjects(t, b.db))
		}
	}
	if n := reviewsOwed(t, b.db); n != 0 {
		t.Errorf("lyngk_reviews_owed %v once mailed, want 0", n)
	}
}

// TestReviewWaitsWhenBusy: with daemon.BusyOutbox mails waiting in the
// outbox, the worker makes no review (the players' mail goes first); once
// the sender has drained the outbox below that, it does, without a commit
// to wake it, and the game-over mails go with it.
func TestReviewWaitsWhenBusy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lyngk.db")
	last := reviewGameTo(t, path)
	started := make(chan int, 1)
	logs := &lockedBuffer{}
	a := reviewAppLog(t, path, func(_ context.Context, board int) { started <- board }, logs)
	ids := fillOutbox(t, a.db)
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
	if n := waitGameOver(t, a); n != 2 {
		t.Errorf("%d game-over mails with the review, want 2", n)
	}
}

// fillOutbox queues daemon.BusyOutbox mails to carol: the server is busy.
func fillOutbox(t *testing.T, db *store.DB) []uint64 {
	t.Helper()
	var ids []uint64
	if err := db.Update(func(tx *store.Tx) error {
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
	return ids
}

// TestReviewBound: a game-over mail waits for its review at most
// engine.ReviewWait after the game's end. The worker is kept from making
// the review (the hook holds it until its context ends), the daemon's
// clock set so that the Due is dueIn away: at the Due the review is given
// up (the hook's context ends) and the game-over mails go to both players
// without it, the record deleted; the log says why. On the old code the
// game-over mails went at once without the review, and the review
// followed in a mail of its own, however late.
func TestReviewBound(t *testing.T) {
	const dueIn = 300 * time.Millisecond
	path := filepath.Join(t.TempDir(), "lyngk.db")
	last := reviewGameTo(t, path)
	logs := &lockedBuffer{}
	held := make(chan context.Context, 1)
	skew := func() time.Time { return time.Now().Add(engine.ReviewWait - dueIn) }
	a := reviewAppClock(t, path, func(ctx context.Context, _ int) {
		held <- ctx
		<-ctx.Done()
	}, logs, skew)
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
	rctx := <-held
	if n, _ := gameOverQueued(t, a.db); n != 0 {
		t.Fatalf("%d game-over mails queued while their review is under way, before its Due", n)
	}
	if n := waitGameOver(t, a); n != 0 {
		t.Errorf("%d game-over mails with a review never made", n)
	}
	if rctx.Err() == nil {
		t.Error("the review still under way after its mails went")
	}
	waitText(t, logs, `msg="game-over mails sent" board=101 mails=2 since_end=\S+ without_review=due`)
	if n := reviewsOwed(t, a.db); n != 0 {
		t.Errorf("lyngk_reviews_owed %v once the mails went, want 0", n)
	}
	if n := a.eng.ReviewsMade(); n != 0 {
		t.Errorf("%d reviews made", n)
	}
}

// TestReviewDueAtStart: game-over mails held past their Due when the
// server starts (it was down, or the outbox busy all along) go at once,
// without the review, which is never made; a busy outbox does not hold
// them back, it only holds back reviews.
func TestReviewDueAtStart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lyngk.db")
	last := reviewGameTo(t, path)
	a := reviewApp(t, path, func(context.Context, int) { t.Error("a review made past its Due") })
	fillOutbox(t, a.db)
	if _, err := a.apply(context.Background(), last.bytes(), daemon.Enqueue); err != nil {
		t.Fatal(err)
	}
	a.db.Close()
	later := func() time.Time { return time.Now().Add(engine.ReviewWait + time.Second) }
	b := reviewAppClock(t, path, func(context.Context, int) { t.Error("a review made past its Due") }, io.Discard, later)
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- b.d.RunReviews(ctx) }()
	defer func() {
		cancel()
		<-stopped
	}()
	if n := waitGameOver(t, b); n != 0 {
		t.Errorf("%d game-over mails with a review", n)
	}
	if n := b.eng.ReviewsMade(); n != 0 {
		t.Errorf("%d reviews made past their Due", n)
	}
}
