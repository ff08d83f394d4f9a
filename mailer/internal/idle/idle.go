// Package idle is IMAP IDLE for go-imap's imapserver sessions that lets no
// change slip by: the local mail service (mailer/localmail) serves it, and
// mailer's tests wrap the in-memory server with it.
package idle

import (
	"sync"

	"github.com/emersion/go-imap/v2/imapserver"
)

// Changes broadcasts "some mailbox changed" to idling sessions.
type Changes struct {
	mu sync.Mutex
	ch chan struct{}
}

// NewChanges returns a Changes that no Notify has closed yet.
func NewChanges() *Changes { return &Changes{ch: make(chan struct{})} }

// Next returns a channel closed at the next Notify.
func (c *Changes) Next() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ch
}

// Notify wakes every session idling now.
func (c *Changes) Notify() {
	c.mu.Lock()
	close(c.ch)
	c.ch = make(chan struct{})
	c.mu.Unlock()
}

// ByPolling is IDLE for a session. imapserver's tracker (v2.0.0-beta.8)
// writes only the updates queued after IDLE began, so a mail delivered
// between the previous command's answer and IDLE would wait for the next
// change. Polling at once, and after every change, leaves no such gap: a
// change either is queued before the poll or closes the channel taken
// before it.
func ByPolling(sess imapserver.Session, ch *Changes, w *imapserver.UpdateWriter, stop <-chan struct{}) error {
	for {
		next := ch.Next()
		if err := sess.Poll(w, true); err != nil {
			return err
		}
		select {
		case <-stop:
			return nil
		case <-next:
		}
	}
}
