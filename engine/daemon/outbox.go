package daemon

import (
	"errors"
	"log/slog"
	"time"

	"lyngk.example/lyngk/mailer"
	"lyngk.example/lyngk/store"
)

// Outbox is the store's outbox as the mailer's sender drains it. Its
// writes are the sender's own bookkeeping (an attempt counted, a mail
// sent, given up or dropped), not a change of anybody's games: they send
// no change signal, which would only wake the sender again.
type Outbox struct {
	d   *Daemon
	db  *store.DB
	log *slog.Logger
	// dropped is told how many strangers' mails a round dropped (a
	// metric); nil: nobody.
	dropped func(n int)
}

var _ mailer.Queue = Outbox{}

// Outbox is the daemon's outbox, for the sender; dropped (nil: none) is
// told of the strangers' mails dropped past their share.
func (d *Daemon) Outbox(dropped func(n int)) Outbox { return Outbox{d, d.db, d.log, dropped} }

// Due reads the due mails; the strangers' mails past their share, which
// the store names with them, are dropped in a transaction of their own
// (rare: a flood of strangers), so a round that drops nothing writes
// nothing.
func (q Outbox) Due(now time.Time, max int) ([]mailer.QueuedMail, error) {
	var out []mailer.QueuedMail
	var drop []uint64
	err := q.db.View(func(tx *store.Tx) error {
		ms, d, err := tx.Due(now, max)
		for _, m := range ms {
			out = append(out, mailer.QueuedMail{ID: m.ID, From: m.From, To: m.To, Data: m.Data, Attempts: m.Attempts,
				Queued: m.Queued})
		}
		drop = d
		return err
	})
	if err != nil || len(drop) == 0 {
		return out, err
	}
	dropped := 0
	err = q.db.Update(func(tx *store.Tx) error {
		dropped = 0
		for _, id := range drop {
			// Gone already (an operator's hand, say) is as good as done.
			switch err := tx.Drop(id, now); {
			case err == nil:
				dropped++
			case !errors.Is(err, store.ErrNotFound):
				return err
			}
		}
		return nil
	})
	if err == nil {
		if q.dropped != nil {
			q.dropped(dropped)
		}
		q.log.Info("strangers' mails dropped past their share of mails_per_day", "mails", dropped)
	}
	return out, err
}

// Begin and Finish each write a whole round in one transaction: one fsync
// for all its mails rather than one per mail.
// The round's start is noted for the review worker, which gives way to
// the sending (giveWay).
func (q Outbox) Begin(as []mailer.Attempt) error {
	q.d.sending.Store(time.Now().UnixNano())
	return q.db.Update(func(tx *store.Tx) error {
		for _, a := range as {
			if err := tx.RecordAttempt(a.ID, a.Next); err != nil {
				return err
			}
		}
		return nil
	})
}

func (q Outbox) Finish(now time.Time, rs []mailer.Result) error {
	defer q.d.sending.Store(0)
	return q.db.Update(func(tx *store.Tx) error {
		for _, r := range rs {
			var err error
			switch r.Status {
			case mailer.Accepted:
				err = tx.Sent(r.ID, now)
			case mailer.Deferred:
				err = tx.Failed(r.ID, r.Err)
			case mailer.Refused:
				err = tx.Dead(r.ID, r.Err, now)
			case mailer.RelayDown:
				err = tx.RelayFailed(r.ID, r.Err, now)
			}
			// Gone already (an operator's hand, say) is as good as done.
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
		return nil
	})
}

// Flush waits until nothing in the outbox is due any more, or grace has
// passed: the sender's last round at shutdown. Mail left over stays queued
// for the next start.
func (q Outbox) Flush(grace time.Duration) {
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		var due int
		err := q.db.View(func(tx *store.Tx) error {
			ms, _, err := tx.Due(time.Now(), 1)
			due = len(ms)
			return err
		})
		if err != nil || due == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
