package daemon

import (
	"errors"
	"time"

	"lyngk.example/lyngk/mailer"
	"lyngk.example/lyngk/store"
)

// Outbox is the store's outbox as the mailer's sender drains it. Its
// writes are the sender's own bookkeeping (an attempt counted, a mail
// sent or given up), not a change of anybody's games: they send no change
// signal, which would only wake the sender again.
type Outbox struct {
	db *store.DB
}

var _ mailer.Queue = Outbox{}

// Outbox is the daemon's outbox, for the sender.
func (d *Daemon) Outbox() Outbox { return Outbox{d.db} }

func (q Outbox) Due(now time.Time, max int) ([]mailer.QueuedMail, error) {
	var out []mailer.QueuedMail
	err := q.db.View(func(tx *store.Tx) error {
		ms, err := tx.Due(now, max)
		for _, m := range ms {
			out = append(out, mailer.QueuedMail{ID: m.ID, From: m.From, To: m.To, Data: m.Data, Attempts: m.Attempts,
				Queued: m.Queued})
		}
		return err
	})
	return out, err
}

// Begin and Finish each write a whole round in one transaction: one fsync
// for all its mails rather than one per mail.
func (q Outbox) Begin(as []mailer.Attempt) error {
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
			ms, err := tx.Due(time.Now(), 1)
			due = len(ms)
			return err
		})
		if err != nil || due == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
