package daemon

import (
	"context"
	"log/slog"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/store"
)

// The robot's review of a game that ended (engine/reviews.go) costs up to
// a second of one core: made before the transaction that ends the game, it
// held up that mail and every mail behind it, other players' included. So
// the transaction that ends a game only records that the review is owed
// (bucket reviews, with the game's end), and its game-over mails go at
// once. RunReviews, a worker of its own beside the mail, makes the owed
// reviews one at a time on one core, outside any transaction, and commits
// each review's mails with the deletion of its record in one Commit of
// their own: a crash before that commit finds the record at the next start
// and makes the review again; one after it finds none and sends nothing
// twice. The worker gives way to players' mail: while the server is busy
// (busy: BusyOutbox mails or more wait in the outbox) it waits, and the
// review's own commit is a short write transaction like any mail's.

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

// RunReviews makes and mails the reviews owed, one at a time, at start,
// after each commit and while any is owed, until ctx ends. A review it
// was making when ctx ended stays owed for the next start.
func (d *Daemon) RunReviews(ctx context.Context) error {
	for {
		// Taken before the reading: a commit after it closes it.
		changed := d.Changed()
		var wait <-chan time.Time
		switch more, err := d.reviewOne(ctx, true, nil); {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			d.log.Error("review not mailed", "error", err)
			wait = time.After(reviewRetry)
		case more:
			continue
		}
		if wait == nil {
			// Nothing owed, or the outbox busy: look again at the next
			// commit, and after busyRecheck for the outbox.
			wait = time.After(busyRecheck)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		case <-wait:
		}
	}
}

// Reviews makes and mails every review owed now, whether the server is
// busy or not, delivering its mails with deliver (nil: the outbox): the
// end of `lyngk process`, which has no worker of its own.
func (d *Daemon) Reviews(ctx context.Context, deliver Deliver) error {
	for {
		more, err := d.reviewOne(ctx, false, deliver)
		if err != nil || !more {
			return err
		}
	}
}

// reviewOne makes the first review owed, unless waitBusy and the server
// is busy, and delivers its mails with deliver (nil: the outbox); more
// reports that it did one (so there may be more).
func (d *Daemon) reviewOne(ctx context.Context, waitBusy bool, deliver Deliver) (more bool, err error) {
	var owed []engine.PendingReview
	isBusy := false
	err = d.db.View(func(tx *store.Tx) error {
		var err error
		owed, err = d.eng.PendingReviews(tx, 1)
		isBusy = waitBusy && busy(tx)
		return err
	})
	if err == nil && len(owed) > 0 && isBusy {
		d.log.Debug("review waits for the outbox", "board", owed[0].Board)
	}
	if err != nil || len(owed) == 0 || isBusy {
		return false, err
	}
	p := owed[0]
	if d.reviewing != nil {
		d.reviewing(ctx, p.Board)
	}
	started := time.Now()
	if err := d.eng.MakeReview(ctx, &p, d.giveWay); err != nil {
		return false, err
	}
	made := time.Since(started)
	sent := 0
	err = d.Commit(ctx, Work{Name: "review", Deliver: deliver, Apply: func(tx *Tx) error {
		mails, err := d.eng.ReviewMails(tx, p, tx.Now)
		if err != nil {
			return err
		}
		sent, err = tx.Send(mails)
		return err
	}})
	if err != nil {
		return false, err
	}
	d.log.LogAttrs(ctx, slog.LevelInfo, "review mailed", slog.Int("board", p.Board), slog.Int("mails", sent),
		slog.Duration("made", made), slog.Duration("since_end", time.Since(p.Ended)))
	return true, nil
}
