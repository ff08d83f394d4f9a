package localmail

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"lyngk.example/lyngk/mailer"
)

// The helpers here drive the local service with mailer's own clients, as
// the daemon does in local mode.

// countMarked counts the mails p has handled and marked.
func countMarked(p *mailer.Poller) func() int {
	var n atomic.Int64
	p.OnMail = func(mailer.MailTiming) { n.Add(1) }
	return func() int { return int(n.Load()) }
}

// eachMail makes a Handler of a function that handles one mail at a time.
func eachMail(f func(ctx context.Context, raw []byte) (mailer.Outcome, error)) mailer.Handler {
	return func(ctx context.Context, raws [][]byte) ([]mailer.Outcome, error) {
		out := make([]mailer.Outcome, 0, len(raws))
		for _, raw := range raws {
			o, err := f(ctx, raw)
			if err != nil {
				return out, err
			}
			out = append(out, o)
		}
		return out, nil
	}
}

// memQueue is an in-memory mailer.Queue: every mail is due at once, and
// leaves it when the relay takes it or refuses it for good.
type memQueue struct {
	mu     sync.Mutex
	mails  []mailer.QueuedMail
	lastID uint64
}

// add queues a mail whose subject and body name it.
func (q *memQueue) add(name string, to ...string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.lastID++
	data := "From: lyngk@localhost\r\nSubject: " + name + "\r\n\r\n" + name + "\r\n"
	q.mails = append(q.mails, mailer.QueuedMail{ID: q.lastID, From: "lyngk@localhost", To: to, Data: []byte(data)})
}

func (q *memQueue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.mails)
}

func (q *memQueue) Due(_ time.Time, max int) ([]mailer.QueuedMail, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.Clone(q.mails[:min(max, len(q.mails))]), nil
}

func (q *memQueue) Begin([]mailer.Attempt) error { return nil }

func (q *memQueue) Finish(_ time.Time, rs []mailer.Result) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, r := range rs {
		if r.Status == mailer.Accepted || r.Status == mailer.Refused {
			q.mails = slices.DeleteFunc(q.mails, func(m mailer.QueuedMail) bool { return m.ID == r.ID })
		}
	}
	return nil
}
