package daemon

import (
	"context"
	"log/slog"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/store"
)

// The robot's review of a game that ended (engine/reviews.go) costs up to
// a second of one core: made in the transaction that ends the game, it
// would hold up every mail behind it, other players' included. So that
// transaction holds the game-over mails of the players who take reviews
// in bucket reviews instead of queueing them, and RunReviews, a worker of
// its own beside the mail, makes the owed reviews one at a time on one
// core, the game that ended first first, outside any transaction, and
// commits each game's held mails with its review, and the deletion of its
// record, in one Commit of their own: a crash before that commit finds the
// record at the next start and makes the review again; one after it finds
// none and sends nothing twice. The worker gives way to players' mail:
// while the server is busy (busy: BusyOutbox mails or more wait in the
// outbox) it makes no review, and the review's own commit is a short
// write transaction like any mail's.
//
// A game-over mail waits at most engine.ReviewWait after the game's end
// (PendingReview.Due, by the daemon's clock, Config.Now): the worker makes
// a review within what is left of that; at the Due, or at once when the
// review fails, it commits the held mails as they were composed, without
// the review, which is then dropped. A record found past its Due at start
// (the server was down) goes the same way, at once.

// While it makes a review, the worker gives way to the mail at every
// position (giveWay): on a machine of two cores a review searched beside
// a mail being applied or sent slowed that mail down, as a review made
// before it had. It waits while a unit of work is under way, for
// giveWayGrace after each commit (until the sender's round that sends
// its mails has begun) and while a round of the sender is under way, for
// at most giveWayMax a position, so that a server that never rests still
// makes its reviews.

// giveWayGrace, giveWayPoll, giveWayMax: see giveWay.
const (
	giveWayGrace = 50 * time.Millisecond
	giveWayPoll  = 5 * time.Millisecond
	giveWayMax   = 5 * time.Second
	// sendingStale: a round begun this long ago and never finished (its
	// bookkeeping failed) is no longer waited for.
	sendingStale = 30 * time.Second
)

// mailUnderWay reports whether the worker should give way now.
func (d *Daemon) mailUnderWay() bool {
	now := time.Now()
	if d.working.Load() > 0 || now.Sub(time.Unix(0, d.lastCommit.Load())) < giveWayGrace {
		return true
	}
	s := d.sending.Load()
	return s != 0 && now.Sub(time.Unix(0, s)) < sendingStale
}

// giveWay waits while mail is under way (mailUnderWay), at most
// giveWayMax, looking again every giveWayPoll.
func (d *Daemon) giveWay(ctx context.Context) error {
	deadline := time.Now().Add(giveWayMax)
	for d.mailUnderWay() && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(giveWayPoll):
		}
	}
	return ctx.Err()
}

// BusyOutbox is the outbox's length from which the server counts as busy.
const BusyOutbox = 10

// busyRecheck is how often a worker waiting for a busy outbox looks again:
// the sender's rounds send no change signal.
const busyRecheck = time.Second

// reviewRetry is how long the worker waits after a review failed (the
// store, a template) before it tries again: a failure never becomes a
// tight loop.
const reviewRetry = time.Minute

// busy reports whether the outbox holds BusyOutbox mails or more (or
// cannot be read).
func busy(tx *store.Tx) bool {
	queued, _, _, err := tx.OutboxStats()
	return err != nil || queued >= BusyOutbox
}

// RunReviews mails the game-over mails held for the reviews owed, each
// with its review made (or without it at its Due), one game at a time, at
// start, after each commit, while any is owed and at the next Due, until
// ctx ends. A review it was making when ctx ended stays owed, its mails
// held, for the next start.
func (d *Daemon) RunReviews(ctx context.Context) error {
	for {
		// Taken before the reading: a commit after it closes it.
		changed := d.Changed()
		wait := busyRecheck
		switch more, due, err := d.reviewOne(ctx, true, nil); {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			d.log.Error("game-over mails not sent with their review", "error", err)
			wait = reviewRetry
		case more:
			continue
		case !due.IsZero():
			// The outbox busy: look again after busyRecheck (the
			// sender's rounds send no change signal), or at the Due.
			wait = max(0, min(wait, due.Sub(d.now())))
		}
		// Nothing owed: look again at the next commit.
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		case <-time.After(wait):
		}
	}
}

// Reviews makes every review owed now, whether the server is busy or not,
// and delivers the game-over mails held for them with deliver (nil: the
// outbox): the end of `lyngk process`, which has no worker of its own.
func (d *Daemon) Reviews(ctx context.Context, deliver Deliver) error {
	for {
		more, _, err := d.reviewOne(ctx, false, deliver)
		if err != nil || !more {
			return err
		}
	}
}

// reviewOne mails the game-over mails held for the first review owed
// (the game that ended first) and delivers them with deliver (nil: the
// outbox): without the review when its Due has passed, else with the
// review made, unless waitBusy and the server is busy, when it does
// nothing and returns the review's Due. more reports that it mailed one
// (so there may be more).
func (d *Daemon) reviewOne(ctx context.Context, waitBusy bool, deliver Deliver) (more bool, due time.Time, err error) {
	var owed []engine.PendingReview
	isBusy := false
	err = d.db.View(func(tx *store.Tx) error {
		var err error
		owed, err = d.eng.PendingReviews(tx, 1)
		isBusy = waitBusy && busy(tx)
		return err
	})
	if err != nil || len(owed) == 0 {
		return false, time.Time{}, err
	}
	p := owed[0]
	left := p.Due.Sub(d.now())
	if left <= 0 {
		return true, time.Time{}, d.mailHeld(ctx, p, deliver, "due")
	}
	if isBusy {
		d.log.Debug("review waits for the outbox", "board", p.Board)
		return false, p.Due, nil
	}
	// The review has what is left until the Due; its mails go then,
	// without it, if it is not made.
	rctx, cancel := context.WithTimeout(ctx, left)
	defer cancel()
	if d.reviewing != nil {
		d.reviewing(rctx, p.Board)
	}
	started := time.Now()
	err = d.eng.MakeReview(rctx, &p, d.giveWay)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return false, time.Time{}, ctx.Err()
	case rctx.Err() != nil:
		return true, time.Time{}, d.mailHeld(ctx, p, deliver, "due")
	case err != nil:
		d.log.Error("review failed: its game-over mails go without it", "board", p.Board, "error", err)
		return true, time.Time{}, d.mailHeld(ctx, p, deliver, "failed")
	}
	if !p.Made() {
		return true, time.Time{}, d.mailHeld(ctx, p, deliver, "none")
	}
	d.log.Debug("review made", "board", p.Board, "made", time.Since(started))
	return true, time.Time{}, d.mailHeld(ctx, p, deliver, "")
}

// mailHeld commits the game-over mails held for p, with its review if it
// is made; without says why not for the log: "due", "failed", or "none"
// (the game changed or was deleted since it ended).
func (d *Daemon) mailHeld(ctx context.Context, p engine.PendingReview, deliver Deliver, without string) error {
	sent := 0
	err := d.Commit(ctx, Work{Name: "review", Deliver: deliver, Apply: func(tx *Tx) error {
		mails, err := d.eng.ReviewMails(tx, p, tx.Now)
		if err != nil {
			return err
		}
		sent, err = tx.Send(mails)
		return err
	}})
	if err != nil {
		return err
	}
	attrs := []slog.Attr{slog.Int("board", p.Board), slog.Int("mails", sent), slog.Duration("since_end", d.now().Sub(p.Ended))}
	if without != "" {
		attrs = append(attrs, slog.String("without_review", without))
	}
	d.log.LogAttrs(ctx, slog.LevelInfo, "game-over mails sent", attrs...)
	return nil
}
