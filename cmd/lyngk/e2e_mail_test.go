package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-message"
	_ "github.com/emersion/go-message/charset" // decode any charset the robot might use
	"github.com/emersion/go-message/mail"
	"github.com/emersion/go-smtp"
)

// e2eOut is a mail a scripted player writes.
type e2eOut struct {
	From, To, Subject, Body string
	MessageID               string // without <>; set by bytes when empty
	InReplyTo               string
	References              []string
}

// bytes renders the mail as a plain mail client would: 8bit UTF-8 text,
// CRLF line ends.
func (m *e2eOut) bytes() []byte {
	if m.MessageID == "" {
		var b [12]byte
		_, _ = rand.Read(b[:])
		m.MessageID = hex.EncodeToString(b[:]) + "@player.e2e.test"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: %s\r\n", m.From, m.To, m.Subject)
	fmt.Fprintf(&b, "Date: %s\r\nMessage-ID: <%s>\r\n", time.Now().Format(time.RFC1123Z), m.MessageID)
	if m.InReplyTo != "" {
		fmt.Fprintf(&b, "In-Reply-To: <%s>\r\n", m.InReplyTo)
	}
	if len(m.References) > 0 {
		fmt.Fprintf(&b, "References: <%s>\r\n", strings.Join(m.References, "> <"))
	}
	b.WriteString("MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n")
	body := strings.ReplaceAll(strings.TrimSuffix(m.Body, "\n"), "\n", "\r\n")
	b.WriteString(body + "\r\n")
	return []byte(b.String())
}

// reply writes the answer a mail client makes when a player hits Reply and
// types text above the quoted original.
func e2eReply(from string, orig *e2eMail, text string) *e2eOut {
	var quoted strings.Builder
	fmt.Fprintf(&quoted, "%s\n\nOn %s, %s wrote:\n", text, orig.Date, orig.From)
	for _, l := range strings.Split(strings.TrimRight(orig.Body, "\n"), "\n") {
		if l == "" {
			quoted.WriteString(">\n")
		} else {
			quoted.WriteString("> " + l + "\n")
		}
	}
	subject := orig.Subject
	if !strings.HasPrefix(strings.ToLower(subject), "re:") {
		subject = "Re: " + subject
	}
	refs := append(append([]string(nil), orig.References...), orig.MessageID)
	return &e2eOut{From: from, To: orig.From, Subject: subject, Body: quoted.String(),
		InReplyTo: orig.MessageID, References: refs}
}

// e2eSubmitSlots bounds the SMTP sessions open at once: hundreds of
// players do not all connect in the same millisecond, and Postfix serves at
// most default_process_limit sessions at a time.
var e2eSubmitSlots = make(chan struct{}, 32)

// submit sends m through Postfix, as a player's mail client would.
func (e *e2eEnv) submit(m *e2eOut) error {
	e2eSubmitSlots <- struct{}{}
	defer func() { <-e2eSubmitSlots }()
	c, err := smtp.Dial(e.smtpAddr)
	if err != nil {
		return fmt.Errorf("e2e: smtp dial: %w", err)
	}
	return e2eSend(c, m)
}

// deliverLMTP hands m to Dovecot directly, the way another MTA would while
// Postfix is down.
func (e *e2eEnv) deliverLMTP(m *e2eOut) error {
	conn, err := net.DialTimeout("tcp", e.lmtpAddr, 5*time.Second)
	if err != nil {
		return fmt.Errorf("e2e: lmtp dial: %w", err)
	}
	return e2eSend(smtp.NewClientLMTP(conn), m)
}

func e2eSend(c *smtp.Client, m *e2eOut) error {
	defer c.Close()
	c.CommandTimeout = 30 * time.Second
	c.SubmissionTimeout = 30 * time.Second
	if err := c.Hello("player.e2e.test"); err != nil {
		return err
	}
	if err := c.SendMail(m.From, []string{m.To}, bytes.NewReader(m.bytes())); err != nil {
		return fmt.Errorf("e2e: send %q to %s: %w", m.Subject, m.To, err)
	}
	return c.Quit()
}

// e2eMail is a mail as a player's IMAP client sees it.
type e2eMail struct {
	UID        imap.UID
	Fetched    time.Time // when the watcher first saw it
	MessageID  string
	InReplyTo  []string
	References []string
	From, To   string // bare addresses
	Date       string // as in the header
	Subject    string
	Auto       string // Auto-Submitted
	Body       string // decoded text, LF line ends
	Raw        []byte
	board      e2eBoardMail // parsed when the subject names a board
	boardErr   error
}

func e2eParse(raw []byte) (*e2eMail, error) {
	r, err := mail.CreateReader(bytes.NewReader(raw))
	if err != nil && !message.IsUnknownCharset(err) {
		return nil, fmt.Errorf("e2e: parse mail: %w", err)
	}
	m := &e2eMail{Raw: raw}
	h := r.Header
	if m.Subject, err = h.Subject(); err != nil {
		return nil, err
	}
	if m.MessageID, err = h.MessageID(); err != nil {
		return nil, err
	}
	if m.InReplyTo, err = h.MsgIDList("In-Reply-To"); err != nil {
		return nil, err
	}
	if m.References, err = h.MsgIDList("References"); err != nil {
		return nil, err
	}
	if from, err := h.AddressList("From"); err == nil && len(from) > 0 {
		m.From = from[0].Address
	}
	if to, err := h.AddressList("To"); err == nil && len(to) > 0 {
		m.To = strings.ToLower(to[0].Address)
	}
	m.Date = h.Get("Date")
	m.Auto = h.Get("Auto-Submitted")
	for {
		p, err := r.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil && !message.IsUnknownCharset(err) {
			return nil, fmt.Errorf("e2e: parse mail %s: %w", m.MessageID, err)
		}
		if _, ok := p.Header.(*mail.InlineHeader); ok {
			b, err := io.ReadAll(p.Body)
			if err != nil {
				return nil, err
			}
			m.Body = strings.ReplaceAll(string(b), "\r\n", "\n")
			break
		}
	}
	m.board, m.boardErr = e2eParseBoardMail(m.Subject, m.Body)
	return m, nil
}

// isError tells the robot's error mails (SPEC §4 subjects).
func (m *e2eMail) isError() bool {
	return strings.HasSuffix(m.Subject, " Error") || strings.EqualFold(m.Subject, "PBeM Server error")
}

// e2eMailbox keeps every mail that arrives in a mailbox. A watched one
// (watch, watchShared) reads an IMAP folder from the start of the watch on:
// it polls (NOOP, then FETCH of the new UIDs) at a short interval or waits in
// IDLE, and reconnects when the server goes away. Others are filled by add.
type e2eMailbox struct {
	tb       testing.TB
	addr     string
	user     string
	password string
	folder   string
	interval time.Duration
	// route, if set, marks a mailbox that many players share: each new
	// mail is also handed to the box of its recipient, so that it wakes only
	// the player it is for, and deleted from the server once fetched, as a
	// player who reads and files his mail (the shared mailboxes would
	// otherwise grow by thousands of mails, and Dovecot's cost per delivery
	// grows with the size of the mailbox).
	route func(*e2eMail)
	// feed is the watcher that fills this box through its route, whose
	// errors are this box's.
	feed *e2eMailbox

	mu         sync.Mutex
	mails      []*e2eMail
	changed    chan struct{} // closed and replaced whenever mails grows
	lastUID    imap.UID
	started    bool
	reconnects int
	lastErr    error

	ready  chan struct{} // closed after the first SELECT: the baseline is set
	cancel context.CancelFunc
	done   chan struct{}
}

// watch starts a watcher on folder of user's mailbox; it stops when the test
// ends. It polls with NOOP every interval, or waits in IDLE when interval is 0
// (Dovecot then tells of new mail within about half a second).
func (e *e2eEnv) watch(tb testing.TB, local, folder string, interval time.Duration) *e2eMailbox {
	tb.Helper()
	return e.startWatch(tb, local, folder, interval, nil)
}

// newE2EMailbox returns an empty box for user's mail, filled by add.
func newE2EMailbox(tb testing.TB, user, folder string) *e2eMailbox {
	return &e2eMailbox{tb: tb, user: user, folder: folder, changed: make(chan struct{})}
}

// add files a mail and wakes whoever waits for one.
func (m *e2eMailbox) add(mail *e2eMail) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.mails = append(m.mails, mail)
	close(m.changed)
	m.changed = make(chan struct{})
}

// fail records an error for find to report.
func (m *e2eMailbox) fail(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lastErr = err
}

// watchShared watches, in IDLE, the INBOX of a mailbox that many players
// share: each mail is handed to route and deleted once fetched.
func (e *e2eEnv) watchShared(tb testing.TB, local string, route func(*e2eMail)) *e2eMailbox {
	tb.Helper()
	return e.startWatch(tb, local, "INBOX", 0, route)
}

func (e *e2eEnv) startWatch(tb testing.TB, local, folder string, interval time.Duration, route func(*e2eMail)) *e2eMailbox {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	m := newE2EMailbox(tb, e.addr(local), folder)
	m.addr, m.password, m.interval = e.imapAddr, e.password[local], interval
	m.route = route
	m.ready, m.cancel, m.done = make(chan struct{}), cancel, make(chan struct{})
	go m.run(ctx)
	tb.Cleanup(func() { cancel(); <-m.done })
	select {
	case <-m.ready:
	case <-time.After(30 * time.Second):
		tb.Fatalf("imap %s/%s: no connection within 30s: %v", m.user, folder, m.err())
	}
	return m
}

func (m *e2eMailbox) err() error {
	if m.feed != nil {
		return m.feed.err()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lastErr
}

func (m *e2eMailbox) run(ctx context.Context) {
	defer close(m.done)
	for ctx.Err() == nil {
		err := m.session(ctx)
		if ctx.Err() != nil {
			return
		}
		m.mu.Lock()
		m.lastErr = err
		m.reconnects++
		m.mu.Unlock()
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// session is one IMAP connection: select the folder, then poll until an
// error (such as Dovecot being restarted) or the end of the test.
func (m *e2eMailbox) session(ctx context.Context) error {
	exists := make(chan struct{}, 1)
	c, err := e2eDialIMAPNotify(m.addr, m.user, m.password, func() {
		select {
		case exists <- struct{}{}:
		default:
		}
	})
	if err != nil {
		return err
	}
	defer c.Close()
	stopOnCancel := context.AfterFunc(ctx, func() { c.Close() })
	defer stopOnCancel()
	watchdog := time.AfterFunc(10*time.Second, func() { c.Close() })
	defer watchdog.Stop()
	sel, err := c.Select(m.folder, nil).Wait()
	if err != nil {
		return fmt.Errorf("select %s: %w", m.folder, err)
	}
	m.mu.Lock()
	if !m.started {
		// Only mail that arrives from now on belongs to this test.
		m.started = true
		m.lastUID = sel.UIDNext - 1
		close(m.ready)
	}
	m.mu.Unlock()
	known := uint32(0) // fetch once after every (re)connect
	for {
		// A shared folder holds only mail not fetched yet, whatever its
		// count was before.
		shared := m.route != nil
		mbox := c.Mailbox()
		if mbox == nil { // the connection closed under us (a restart, the watchdog)
			return errors.New("e2e: IMAP connection closed")
		}
		if n := mbox.NumMessages; n != known || (shared && n > 0) {
			uids, err := m.fetchNew(c)
			if err != nil {
				return err
			}
			known = n
			if shared && len(uids) > 0 {
				if err := e2eExpunge(c, uids); err != nil {
					return err
				}
			}
		}
		watchdog.Reset(10 * time.Second)
		if m.interval == 0 {
			if err := e2eIdle(ctx, c, exists); err != nil {
				return err
			}
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(m.interval):
		}
		if err := c.Noop().Wait(); err != nil {
			return err
		}
	}
}

// e2eIdle waits in IDLE until the server announces new mail, for at most
// 5 s (within the session's watchdog).
func e2eIdle(ctx context.Context, c *imapclient.Client, exists <-chan struct{}) error {
	idle, err := c.Idle()
	if err != nil {
		return fmt.Errorf("idle: %w", err)
	}
	select {
	case <-ctx.Done():
	case <-exists:
	case <-time.After(5 * time.Second):
	}
	if err := idle.Close(); err != nil {
		return fmt.Errorf("idle done: %w", err)
	}
	if err := idle.Wait(); err != nil {
		return fmt.Errorf("idle: %w", err)
	}
	return ctx.Err()
}

// fetchNew fetches the mails above the last UID seen and returns their UIDs.
func (m *e2eMailbox) fetchNew(c *imapclient.Client) ([]imap.UID, error) {
	m.mu.Lock()
	from := m.lastUID + 1
	m.mu.Unlock()
	set := imap.UIDSet{imap.UIDRange{Start: from, Stop: 0}}
	opts := &imap.FetchOptions{UID: true, BodySection: []*imap.FetchItemBodySection{{Peek: true}}}
	bufs, err := c.Fetch(set, opts).Collect()
	if err != nil {
		return nil, fmt.Errorf("fetch: %w", err)
	}
	now := time.Now()
	var uids []imap.UID
	for _, buf := range bufs {
		// UID n:* matches the highest UID even when it is below n.
		if buf.UID < from {
			continue
		}
		uids = append(uids, buf.UID)
		raw := buf.FindBodySection(&imap.FetchItemBodySection{Peek: true})
		mail, err := e2eParse(raw)
		if err != nil {
			return nil, err
		}
		mail.UID, mail.Fetched = buf.UID, now
		m.mu.Lock()
		isNew := buf.UID > m.lastUID
		m.lastUID = max(m.lastUID, buf.UID)
		m.mu.Unlock()
		if isNew {
			m.add(mail)
			if m.route != nil {
				m.route(mail)
			}
		}
	}
	return uids, nil
}

// e2eExpunge deletes the mails with the given UIDs from the selected folder.
func e2eExpunge(c *imapclient.Client, uids []imap.UID) error {
	set := imap.UIDSetNum(uids...)
	store := &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagDeleted}}
	if err := c.Store(set, store, nil).Close(); err != nil {
		return fmt.Errorf("store \\Deleted: %w", err)
	}
	if err := c.UIDExpunge(set).Close(); err != nil {
		return fmt.Errorf("uid expunge: %w", err)
	}
	return nil
}

// all returns the mails seen so far, in UID order.
func (m *e2eMailbox) all() []*e2eMail {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*e2eMail(nil), m.mails...)
}

// errE2ETimeout says that no matching mail came within the wait.
var errE2ETimeout = errors.New("e2e: timed out waiting for mail")

// find waits up to d for the first mail (in arrival order) for which match
// returns true. match returning an error (for example on an error mail from
// the robot) ends the wait with that error.
func (m *e2eMailbox) find(d time.Duration, match func(*e2eMail) (bool, error)) (*e2eMail, error) {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	scanned := 0
	for {
		m.mu.Lock()
		mails, changed := m.mails[scanned:], m.changed
		m.mu.Unlock()
		for _, mail := range mails {
			ok, err := match(mail)
			if err != nil {
				return mail, err
			}
			if ok {
				return mail, nil
			}
		}
		scanned += len(mails)
		select {
		case <-changed:
		case <-deadline.C:
			return nil, fmt.Errorf("%w: %s/%s after %v (last mail error: %v)", errE2ETimeout, m.user, m.folder, d, m.err())
		}
	}
}
