package localmail

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-smtp"
)

// rawIMAP is a hand-driven IMAP connection, for clients that misbehave.
type rawIMAP struct {
	t    *testing.T
	conn net.Conn
	r    *bufio.Reader
}

func dialRawIMAP(t *testing.T, addr string) *rawIMAP {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	c := &rawIMAP{t: t, conn: conn, r: bufio.NewReaderSize(conn, 4096)}
	c.line() // greeting
	return c
}

// line reads one line (a literal's bytes count as lines too).
func (c *rawIMAP) line() string {
	c.t.Helper()
	s, err := c.r.ReadString('\n')
	if err != nil {
		c.t.Fatalf("IMAP read: %v (after %q)", err, s)
	}
	return s
}

// cmd sends "tag command" and, with wait, reads up to the tagged answer,
// which must be OK.
func (c *rawIMAP) cmd(tag, command string, wait bool) {
	c.t.Helper()
	if _, err := fmt.Fprintf(c.conn, "%s %s\r\n", tag, command); err != nil {
		c.t.Fatal(err)
	}
	for wait {
		l := c.line()
		if strings.HasPrefix(l, tag+" ") {
			if !strings.HasPrefix(l, tag+" OK") {
				c.t.Fatalf("%s %s: %q", tag, command, l)
			}
			return
		}
	}
}

// TestLocalIMAPStalledReaderDelaysNobody: a client that
// asks for every big mail of its INBOX (FETCH 1:* BODY.PEEK[] on 12 mails
// of 1.9 MB) and never reads the answer held the mailboxes' lock and a
// bbolt read transaction while go-imap waited to write, so every delivery
// and every other client waited for its write deadline (297 s measured).
// Now each delivery and another client's whole session end within 1 s
// while the stalled client sits there.
func TestLocalIMAPStalledReaderDelaysNobody(t *testing.T) {
	l := startTestLocal(t)
	const mallory = "mallory@localhost"
	if err := l.boxes.ensureUser(mallory); err != nil {
		t.Fatal(err)
	}
	big := append(subjectMail("big"), bytes.Repeat([]byte(strings.Repeat("x", 76)+"\r\n"), 1900<<10/78)...)
	for range 12 {
		if _, err := l.boxes.appendMail(mallory, "INBOX", big, nil, time.Time{}); err != nil {
			t.Fatal(err)
		}
	}

	c := dialRawIMAP(t, l.IMAPAddr())
	if tc, ok := c.conn.(*net.TCPConn); ok {
		tc.SetReadBuffer(4096) // so that the server's writes block soon
	}
	c.cmd("a", "LOGIN mallory@localhost mallory", true)
	c.cmd("b", "SELECT INBOX", true)
	c.cmd("c", "FETCH 1:* BODY.PEEK[]", false)
	// The answer has begun (the server is inside Fetch); from here on the
	// client reads nothing.
	for !strings.HasPrefix(c.line(), "* 1 FETCH") {
	}

	within := func(what string, f func() error) {
		t.Helper()
		done := make(chan error, 1)
		go func() { done <- f() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
		case <-time.After(time.Second):
			t.Fatalf("%s took over 1 s while a client stalls on a FETCH", what)
		}
	}
	for i := range 5 {
		for _, to := range []string{"bob@localhost", mallory, "lyngk@localhost"} {
			within(fmt.Sprintf("delivery %d to %s", i, to), func() error {
				sc, err := smtp.Dial(l.SMTPAddr())
				if err != nil {
					return err
				}
				defer sc.Close()
				return sc.SendMail("alice@localhost", []string{to}, bytes.NewReader(subjectMail(fmt.Sprintf("m%d", i))))
			})
		}
	}
	// Another reader (and one of the stalled client's own mailbox) reads
	// and changes flags meanwhile.
	for _, user := range []string{"bob@localhost", mallory} {
		within("a session of "+user, func() error {
			cl, err := imapclient.DialInsecure(l.IMAPAddr(), nil)
			if err != nil {
				return err
			}
			defer cl.Close()
			name, _, _ := strings.Cut(user, "@")
			if err := cl.Login(user, name).Wait(); err != nil {
				return err
			}
			if _, err := cl.Select("INBOX", nil).Wait(); err != nil {
				return err
			}
			if _, err := cl.Fetch(imap.SeqSetNum(1), &imap.FetchOptions{BodySection: []*imap.FetchItemBodySection{{}}}).Collect(); err != nil {
				return err
			}
			return cl.Logout().Wait()
		})
	}
	_, mails := listBox(t, imapLogin(t, l, "bob@localhost"), "INBOX")
	if len(mails) != 5 {
		t.Errorf("bob has %d mails, want 5", len(mails))
	}
}
