package localmail

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"

	"lyngk.example/lyngk/mailer"
)

// The helpers here drive the local service with mailer's own clients, as
// the daemon does in local mode.

const testDeadline = 10 * time.Second

func testMail(subject string) []byte {
	return []byte("From: alice@example.com\r\nTo: robot@example.com\r\nSubject: " + subject +
		"\r\nMessage-ID: <" + subject + "@example.com>\r\n\r\nbody of " + subject + "\r\n")
}

// listedMail is a mail as another IMAP client sees it.
type listedMail struct {
	Subject string
	Seen    bool
}

// readMailbox lists a mailbox over IMAP, as a mail client would.
func readMailbox(t *testing.T, addr, user, pass, mailbox string) []listedMail {
	t.Helper()
	c, err := imapclient.DialInsecure(addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Login(user, pass).Wait(); err != nil {
		t.Fatal(err)
	}
	sel, err := c.Select(mailbox, &imap.SelectOptions{ReadOnly: true}).Wait()
	if err != nil {
		t.Fatal(err)
	}
	if sel.NumMessages == 0 {
		return nil
	}
	msgs, err := c.Fetch(imap.SeqSetNum(seqRange(sel.NumMessages)...), &imap.FetchOptions{
		Flags: true, Envelope: true,
	}).Collect()
	if err != nil {
		t.Fatal(err)
	}
	var out []listedMail
	for _, m := range msgs {
		if m.Envelope == nil {
			t.Fatalf("%s changed while being read", mailbox)
		}
		out = append(out, listedMail{Subject: m.Envelope.Subject, Seen: slices.Contains(m.Flags, imap.FlagSeen)})
	}
	slices.SortFunc(out, func(a, b listedMail) int { return strings.Compare(a.Subject, b.Subject) })
	return out
}

func seqRange(n uint32) []uint32 {
	s := make([]uint32, n)
	for i := range s {
		s[i] = uint32(i) + 1
	}
	return s
}

// waitFor polls cond (a cheap in-memory or loopback check) until it holds.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testDeadline)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

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
