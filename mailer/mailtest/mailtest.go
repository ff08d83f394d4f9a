// Package mailtest is what the tests of package mailer, of its local mail
// service (mailer/localmail) and of the server (cmd/lyngk) share: a small
// test mail, a look at a mailbox as another IMAP client sees it, and a
// wait for a condition.
package mailtest

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

// Deadline is how long a test waits for what it expects.
const Deadline = 10 * time.Second

// Mail is a plain mail from alice to the robot with subject (also its
// Message-ID's left part) and a one-line body.
func Mail(subject string) []byte {
	return []byte("From: alice@example.com\r\nTo: robot@example.com\r\nSubject: " + subject +
		"\r\nMessage-ID: <" + subject + "@example.com>\r\n\r\nbody of " + subject + "\r\n")
}

// Listed is a mail as another IMAP client sees it.
type Listed struct {
	Subject string
	Seen    bool
}

// ReadMailbox lists a mailbox over IMAP, as a mail client would, sorted
// by subject.
func ReadMailbox(t testing.TB, addr, user, pass, mailbox string) []Listed {
	t.Helper()
	var out []Listed
	_, msgs := Fetch(t, addr, user, pass, mailbox, &imap.FetchOptions{Flags: true, Envelope: true})
	for _, m := range msgs {
		if m.Envelope == nil {
			t.Fatalf("%s changed while being read", mailbox)
		}
		out = append(out, Listed{Subject: m.Envelope.Subject, Seen: slices.Contains(m.Flags, imap.FlagSeen)})
	}
	slices.SortFunc(out, func(a, b Listed) int { return strings.Compare(a.Subject, b.Subject) })
	return out
}

// Fetch logs in to the IMAP server at addr as user, selects mailbox read
// only and fetches what opts asks of all its mails; it returns them and
// the mailbox's UIDVALIDITY.
func Fetch(t testing.TB, addr, user, pass, mailbox string, opts *imap.FetchOptions) (uint32, []*imapclient.FetchMessageBuffer) {
	t.Helper()
	validity, msgs, err := fetch(t, addr, user, pass, mailbox, opts)
	if err != nil {
		t.Fatal(err)
	}
	return validity, msgs
}

// FetchIfSelectable is Fetch's mails, none when the mailbox cannot be
// selected (a folder the server has not created yet).
func FetchIfSelectable(t testing.TB, addr, user, pass, mailbox string, opts *imap.FetchOptions) []*imapclient.FetchMessageBuffer {
	t.Helper()
	_, msgs, err := fetch(t, addr, user, pass, mailbox, opts)
	if err != nil {
		return nil
	}
	return msgs
}

// fetch is Fetch, the error of selecting the mailbox returned: every other
// failure fails the test.
func fetch(t testing.TB, addr, user, pass, mailbox string, opts *imap.FetchOptions) (uint32, []*imapclient.FetchMessageBuffer, error) {
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
		return 0, nil, err
	}
	if sel.NumMessages == 0 {
		return sel.UIDValidity, nil, nil
	}
	msgs, err := c.Fetch(imap.SeqSetNum(SeqRange(sel.NumMessages)...), opts).Collect()
	if err != nil {
		t.Fatal(err)
	}
	return sel.UIDValidity, msgs, nil
}

// SeqRange is the sequence numbers 1..n.
func SeqRange(n uint32) []uint32 {
	s := make([]uint32, n)
	for i := range s {
		s[i] = uint32(i) + 1
	}
	return s
}

// WaitFor polls cond (a cheap in-memory or loopback check) until it
// holds, and fails the test after Deadline.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(Deadline)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
