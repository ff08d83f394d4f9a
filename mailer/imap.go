package mailer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

// Outcome says where a handled mail goes.
type Outcome int

const (
	Processed Outcome = iota // moved to IMAPConfig.Processed
	Rejected                 // moved to IMAPConfig.Rejected
	// Pending: the handler has taken the mail on and commits it later. It
	// stays unseen in the mailbox and is not handed over again until
	// [Poller.Recheck]; then the handler, which has committed it by now or
	// not, says once more what becomes of it. A crash in between loses
	// nothing: the mail is still unseen.
	Pending
)

func (o Outcome) String() string {
	switch o {
	case Rejected:
		return "rejected"
	case Pending:
		return "pending"
	}
	return "processed"
}

// Handler is called with each batch of fetched mails, raw RFC 5322 bytes
// in mailbox order, so that it may apply a whole batch in one durable
// write. It returns one Outcome per mail it handled, in order; fewer
// outcomes than mails, with an error, mean "try the rest again later": they
// stay unseen in the mailbox. The handler must be idempotent (a crash
// between the handler's commit and the \Seen flag hands the same mails
// over again).
type Handler func(ctx context.Context, raws [][]byte) ([]Outcome, error)

// MailTiming is the life of one handled mail in the poller, for latency
// metrics.
type MailTiming struct {
	UID      uint32
	Size     int64 // RFC822.SIZE
	Outcome  Outcome
	Notified time.Time // the server announced new mail (EXISTS), or a poll or Kick began
	Fetched  time.Time // the mail's bytes arrived
	Handled  time.Time // the handler returned
	Marked   time.Time // \Seen set and moved
}

// fetchBatch bounds how many mails are held in memory at once, maxFetch
// how much of each is read, and batchBytes how many bytes a batch holds:
// the sizes are asked first (RFC822.SIZE, a few bytes a mail) and a batch
// ends before the mail that would take it past batchBytes (a batch holds
// at least one mail), so a mailbox of large mails is handled a few at a
// time however large they are: each mail's bytes are parsed and decoded
// into several copies, and 32 mails of 1 MiB in one batch took the daemon
// past 200 MB. maxFetch is above the daemon's 1 MiB refusal limit, so a
// larger mail is still recognised as too big (and answered) from its first
// bytes. A batch of 32 amortises the SEARCH, FETCH, STORE and MOVE round
// trips under load.
const (
	fetchBatch = 32
	maxFetch   = 2 << 20
	batchBytes = 8 << 20
)

// bodySection is BODY.PEEK[]<0.maxFetch>: Peek, since \Seen is set only
// after the handler committed.
var bodySection = &imap.FetchItemBodySection{Peek: true, Partial: &imap.SectionPartial{Offset: 0, Size: maxFetch}}

// Poller reads a mailbox over IMAP and hands each new mail to a Handler.
// Set the hooks before calling Run.
type Poller struct {
	// OnReconnect, if set, is called each time a connection is lost and is
	// about to be re-established.
	OnReconnect func()
	// OnMail, if set, is called for each handled mail once it is marked.
	OnMail func(MailTiming)

	cfg      IMAPConfig
	handler  Handler
	log      *slog.Logger
	schedule []time.Duration
	step     func(string) // CheckIMAPSteps's report of each step done; nil when running

	wake     chan struct{} // one slot: a check is wanted
	notified atomic.Int64  // unix nanoseconds of the first wake since the last check, 0 if none
	recheck  atomic.Bool   // the next check looks at every unseen mail again

	// Owned by Run's goroutine: the place reached in the mailbox.
	uidValidity uint32
	lastUID     imap.UID
}

// NewPoller returns a poller; Run does the work.
func NewPoller(cfg IMAPConfig, h Handler, log *slog.Logger) *Poller {
	return &Poller{
		cfg:      cfg.WithDefaults(),
		handler:  h,
		log:      orDiscard(log),
		schedule: ReconnectSchedule,
		wake:     make(chan struct{}, 1),
	}
}

func orDiscard(log *slog.Logger) *slog.Logger {
	if log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return log
}

// Kick asks for a check of the mailbox now. It never blocks.
func (p *Poller) Kick() {
	p.notified.CompareAndSwap(0, time.Now().UnixNano())
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Recheck asks for a check of every unseen mail, deferred ones included,
// as soon as possible. It never blocks.
func (p *Poller) Recheck() {
	p.recheck.Store(true)
	p.Kick()
}

// onMailbox runs on the IMAP client's reader goroutine: it must not issue
// commands, only note that a check is wanted.
func (p *Poller) onMailbox(data *imapclient.UnilateralDataMailbox) {
	if data.NumMessages != nil {
		p.Kick()
	}
}

// Run reads the mailbox until ctx is cancelled, then logs out and returns
// nil. It uses IDLE when the server offers it and polls otherwise, and
// reconnects with backoff after any connection failure. It returns an error
// only for a configuration it cannot use.
func (p *Poller) Run(ctx context.Context) error {
	if err := p.cfg.Validate(); err != nil {
		return err
	}
	failures := 0
	for {
		established, err := p.session(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if established {
			failures = 0
		}
		delay := backoff(p.schedule, failures)
		failures++
		p.log.Warn("IMAP connection failed", "addr", p.cfg.Addr, "err", err, "retry_in", delay)
		if p.OnReconnect != nil {
			p.OnReconnect()
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
	}
}

// session runs one connection. established tells whether the mailbox was
// selected, so that the reconnect backoff starts over. It returns nil only
// when ctx is cancelled.
func (p *Poller) session(ctx context.Context) (established bool, err error) {
	c, err := p.connect(ctx)
	if err != nil {
		return false, err
	}
	defer c.Close()
	idle, err := p.setup(ctx, c)
	if err != nil {
		return false, err
	}
	p.log.Info("IMAP mailbox selected", "addr", p.cfg.Addr, "mailbox", p.cfg.Mailbox, "idle", idle)

	failures := 0
	var delay time.Duration
	for {
		if delay > 0 {
			if err := p.pause(ctx, c, delay); err != nil {
				return true, err
			}
		}
		if ctx.Err() != nil {
			p.logout(c)
			return true, nil
		}
		more, failed, err := p.check(ctx, c)
		if err != nil {
			return true, err
		}
		delay = 0
		switch {
		case failed:
			delay = backoff(p.schedule, failures)
			failures++
		case more:
			failures = 0
		default:
			failures = 0
			if err := p.wait(ctx, c, idle); err != nil {
				return true, err
			}
		}
	}
}

// do runs one command under the watchdog.
func (p *Poller) do(c *imapclient.Client, what string, fn func() error) error {
	err := guard(p.cfg.CommandTimeout, c.Close, "IMAP "+what, fn)
	if err == nil || errors.Is(err, ErrNoAnswer) {
		return err
	}
	return fmt.Errorf("mailer: IMAP %s: %w", what, err)
}

func (p *Poller) connect(ctx context.Context) (*imapclient.Client, error) {
	tc, err := p.cfg.tlsConfig()
	if err != nil {
		return nil, err
	}
	conn, err := dialTCP(ctx, p.cfg.Addr, p.cfg.TLS)
	if err != nil {
		return nil, fmt.Errorf("mailer: IMAP dial: %w", err)
	}
	report(p.step, "TCP connection to %s", conn.RemoteAddr())
	opts := &imapclient.Options{
		TLSConfig:             tc,
		UnilateralDataHandler: &imapclient.UnilateralDataHandler{Mailbox: p.onMailbox},
	}
	var c *imapclient.Client
	switch p.cfg.TLS {
	case TLSNone:
		c = imapclient.New(conn, opts)
	case TLSStartTLS:
		err := guard(p.cfg.CommandTimeout, conn.Close, "IMAP STARTTLS", func() (err error) {
			c, err = imapclient.NewStartTLS(conn, opts)
			return err
		})
		if err != nil {
			conn.Close()
			return nil, fmt.Errorf("mailer: IMAP STARTTLS: %w", err)
		}
		report(p.step, "STARTTLS, the server's certificate verified")
	default:
		tc, err := handshake(ctx, conn, opts.TLSConfig)
		if err != nil {
			return nil, fmt.Errorf("mailer: IMAP %w", err)
		}
		report(p.step, "TLS handshake, the server's certificate verified")
		c = imapclient.New(tc, opts)
	}
	if err := p.do(c, "greeting", c.WaitGreeting); err != nil {
		c.Close()
		return nil, err
	}
	report(p.step, "greeting")
	return c, nil
}

// setup logs in, creates the destination folders when missing and selects
// the mailbox. It tells whether the server offers IDLE.
func (p *Poller) setup(ctx context.Context, c *imapclient.Client) (idle bool, err error) {
	if err := p.login(ctx, c); err != nil {
		return false, err
	}
	for _, name := range []string{p.cfg.Processed, p.cfg.Rejected} {
		if err := p.ensureMailbox(c, name); err != nil {
			return false, err
		}
	}
	var sel *imap.SelectData
	if err := p.do(c, "SELECT", func() (err error) {
		sel, err = c.Select(p.cfg.Mailbox, nil).Wait()
		return err
	}); err != nil {
		return false, err
	}
	// RFC 3501 §2.3.1.1: UIDs from another UIDVALIDITY mean nothing.
	if sel.UIDValidity != p.uidValidity {
		if p.uidValidity != 0 {
			p.log.Warn("IMAP UIDVALIDITY changed: rescanning the mailbox", "mailbox", p.cfg.Mailbox, "old", p.uidValidity, "new", sel.UIDValidity)
		}
		p.uidValidity, p.lastUID = sel.UIDValidity, 0
	}
	var caps imap.CapSet
	if err := p.do(c, "CAPABILITY", func() error {
		if caps = c.Caps(); caps == nil {
			return errors.New("no capabilities")
		}
		return nil
	}); err != nil {
		return false, err
	}
	return caps.Has(imap.CapIdle), nil
}

// login authenticates by the configured method: LOGIN with the password,
// or AUTHENTICATE with a fresh OAuth2 access token.
func (p *Poller) login(ctx context.Context, c *imapclient.Client) error {
	if p.cfg.Auth == AuthPassword {
		return p.do(c, "LOGIN", func() error { return c.Login(p.cfg.Username, p.cfg.Password).Wait() })
	}
	tctx, cancel := context.WithTimeout(ctx, p.cfg.CommandTimeout)
	token, err := p.cfg.Tokens(tctx)
	cancel()
	if err != nil {
		return fmt.Errorf("mailer: IMAP %s: access token: %w", p.cfg.Auth, err)
	}
	sc := newOAuthClient(p.cfg.Auth, p.cfg.Username, token, p.cfg.Addr)
	err = guard(p.cfg.CommandTimeout, c.Close, "IMAP AUTHENTICATE", func() error { return c.Authenticate(sc) })
	if err != nil && !errors.Is(err, ErrNoAnswer) {
		var ierr *imap.Error
		if errors.As(err, &ierr) {
			return fmt.Errorf("mailer: IMAP %w", sc.refused(err))
		}
		return fmt.Errorf("mailer: IMAP AUTHENTICATE: %w", err)
	}
	return err
}

// CheckIMAP connects as the poller would, logs in and out: what an operator
// runs to see that the settings work. It reports the step that failed.
func CheckIMAP(ctx context.Context, cfg IMAPConfig) error { return CheckIMAPSteps(ctx, cfg, nil) }

// CheckIMAPSteps is CheckIMAP telling step (when not nil) of each step
// done: the connection, TLS, the greeting, the login, the logout.
func CheckIMAPSteps(ctx context.Context, cfg IMAPConfig, step func(string)) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	p := NewPoller(cfg, nil, nil)
	p.step = step
	c, err := p.connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := p.login(ctx, c); err != nil {
		return err
	}
	if cfg := p.cfg.WithDefaults(); cfg.Auth == AuthPassword {
		report(step, "LOGIN as %s", cfg.Username)
	} else {
		report(step, "AUTHENTICATE %s as %s with a fresh access token", cfg.Auth, cfg.Username)
	}
	p.logout(c)
	report(step, "LOGOUT")
	return nil
}

// report tells step, when set, of a step done.
func report(step func(string), format string, args ...any) {
	if step != nil {
		step(fmt.Sprintf(format, args...))
	}
}

func (p *Poller) ensureMailbox(c *imapclient.Client, name string) error {
	var found []*imap.ListData
	if err := p.do(c, "LIST", func() (err error) {
		found, err = c.List("", name, nil).Collect()
		return err
	}); err != nil {
		return err
	}
	if len(found) > 0 {
		return nil
	}
	if err := p.do(c, "CREATE", func() error { return c.Create(name, nil).Wait() }); err != nil {
		return err
	}
	p.log.Info("IMAP mailbox created", "mailbox", name)
	return nil
}

// check handles the unseen mails above lastUID, at most fetchBatch of them.
// more says there are others left; failed says the handler failed (the
// caller backs off). err is a connection problem.
func (p *Poller) check(ctx context.Context, c *imapclient.Client) (more, failed bool, err error) {
	select {
	case <-p.wake:
	default:
	}
	notified := time.Now()
	if n := p.notified.Swap(0); n != 0 {
		notified = time.Unix(0, n)
	}
	if p.recheck.Swap(false) {
		p.lastUID = 0 // deferred mails are unseen below lastUID
	}

	criteria := &imap.SearchCriteria{NotFlag: []imap.Flag{imap.FlagSeen, imap.FlagDeleted}}
	if p.lastUID > 0 {
		criteria.UID = []imap.UIDSet{{{Start: p.lastUID + 1}}} // lastUID+1:*
	}
	var found *imap.SearchData
	if err := p.do(c, "UID SEARCH", func() (err error) {
		found, err = c.UIDSearch(criteria, nil).Wait()
		return err
	}); err != nil {
		return false, false, err
	}
	uids := newUIDs(found.AllUIDs(), p.lastUID)
	if len(uids) == 0 {
		return false, false, nil
	}
	if len(uids) > fetchBatch {
		uids, more = uids[:fetchBatch], true
	}
	var sized []*imapclient.FetchMessageBuffer
	if err := p.do(c, "UID FETCH RFC822.SIZE", func() (err error) {
		sized, err = c.Fetch(imap.UIDSetNum(uids...), &imap.FetchOptions{UID: true, RFC822Size: true}).Collect()
		return err
	}); err != nil {
		return false, false, err
	}
	if n := withinBytes(uids, sized); n < len(uids) {
		uids, more = uids[:n], true
	}

	var msgs []*imapclient.FetchMessageBuffer
	opts := &imap.FetchOptions{
		UID:         true,
		RFC822Size:  true,
		BodySection: []*imap.FetchItemBodySection{bodySection},
	}
	if err := p.do(c, "UID FETCH", func() (err error) {
		msgs, err = c.Fetch(imap.UIDSetNum(uids...), opts).Collect()
		return err
	}); err != nil {
		return false, false, err
	}
	fetched := time.Now()
	byUID := make(map[imap.UID]*imapclient.FetchMessageBuffer, len(msgs))
	for _, m := range msgs {
		byUID[m.UID] = m
	}

	var batch []*imapclient.FetchMessageBuffer
	var raws [][]byte
	last := p.lastUID
	for _, uid := range uids {
		m := byUID[uid]
		if m == nil { // expunged by someone else since the search
			if len(batch) == 0 {
				last = uid
			}
			continue
		}
		batch = append(batch, m)
		raws = append(raws, m.FindBodySection(bodySection))
	}
	var outcomes []Outcome
	var herr error
	if len(batch) > 0 {
		outcomes, herr = p.handler(ctx, raws)
	}
	handled := time.Now()
	if herr != nil || len(outcomes) < len(batch) {
		p.log.Warn("mail handler failed: mail left unseen for a retry", "handled", len(outcomes), "of", len(batch), "err", herr)
		failed, more = true, false
	}
	var seen, processed, rejected imap.UIDSet
	var timings []MailTiming
	for i, outcome := range outcomes[:min(len(outcomes), len(batch))] {
		m := batch[i]
		last = m.UID
		if outcome == Pending {
			continue
		}
		seen.AddNum(m.UID)
		if outcome == Rejected {
			rejected.AddNum(m.UID)
		} else {
			processed.AddNum(m.UID)
		}
		timings = append(timings, MailTiming{UID: uint32(m.UID), Size: m.RFC822Size, Outcome: outcome,
			Notified: notified, Fetched: fetched, Handled: handled})
	}
	if !failed && len(batch) > 0 {
		last = max(last, uids[len(uids)-1]) // expunged ones after the last handled
	}

	if err := p.mark(c, seen, processed, rejected); err != nil {
		return false, false, err
	}
	p.lastUID = last
	// Under load, mail keeps arriving while a batch is handled. Searching
	// again at once finds it without waiting for the server's IDLE
	// notification, which Dovecot delays by half a second; the search that
	// finds nothing sends the poller back to IDLE.
	if len(timings) > 0 && !failed {
		more = true
	}
	marked := time.Now()
	for _, t := range timings {
		t.Marked = marked
		p.log.Debug("mail handled", "uid", t.UID, "size", t.Size, "outcome", t.Outcome,
			"to_handler", t.Fetched.Sub(t.Notified), "handler", t.Handled.Sub(t.Fetched), "total", marked.Sub(t.Notified))
		if p.OnMail != nil {
			p.OnMail(t)
		}
	}
	return more, failed, nil
}

// newUIDs keeps the UIDs above last in ascending order: "UID n:*" always
// matches the highest UID, even one below n (RFC 3501 §6.4.8).
func newUIDs(uids []imap.UID, last imap.UID) []imap.UID {
	uids = slices.DeleteFunc(uids, func(u imap.UID) bool { return u <= last })
	slices.Sort(uids)
	return uids
}

// mark flags handled mail \Seen and moves it out of the mailbox. The
// commands are pipelined (RFC 3501 §5.5: the server runs them in order), so
// a batch costs one round trip however many folders it goes to. The client
// falls back to COPY + STORE \Deleted + EXPUNGE on servers without MOVE.
func (p *Poller) mark(c *imapclient.Client, seen, processed, rejected imap.UIDSet) error {
	if len(seen) == 0 {
		return nil
	}
	return p.do(c, "UID STORE/MOVE", func() error {
		flags := &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagSeen}}
		store := c.Store(seen, flags, nil)
		var moves []*imapclient.MoveCommand
		for _, mv := range []struct {
			uids   imap.UIDSet
			folder string
		}{{processed, p.cfg.Processed}, {rejected, p.cfg.Rejected}} {
			if len(mv.uids) > 0 {
				moves = append(moves, c.Move(mv.uids, mv.folder))
			}
		}
		err := store.Close()
		for _, mv := range moves {
			if _, merr := mv.Wait(); err == nil {
				err = merr
			}
		}
		return err
	})
}

var errConnClosed = errors.New("mailer: IMAP connection closed")

// pause waits before retrying a failed handler.
func (p *Poller) pause(ctx context.Context, c *imapclient.Client, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	case <-c.Closed():
		return errConnClosed
	}
	return nil
}

// wait returns when a check is due: new mail announced, Kick, the poll
// interval, or ctx cancelled. Mail that arrived since the last search has
// already queued a wake-up.
func (p *Poller) wait(ctx context.Context, c *imapclient.Client, idle bool) error {
	select {
	case <-p.wake:
		return nil
	default:
	}
	poll := time.NewTimer(p.cfg.PollInterval)
	defer poll.Stop()
	var cmd *imapclient.IdleCommand
	if idle {
		if err := p.do(c, "IDLE", func() (err error) {
			cmd, err = c.Idle()
			return err
		}); err != nil {
			return err
		}
	}
	select {
	case <-ctx.Done():
	case <-p.wake:
	case <-poll.C:
	case <-c.Closed():
		return errConnClosed
	}
	if cmd == nil {
		return nil
	}
	return p.do(c, "DONE", func() error {
		if err := cmd.Close(); err != nil {
			return err
		}
		return cmd.Wait()
	})
}

// logout ends the session politely; the connection is closed either way.
func (p *Poller) logout(c *imapclient.Client) {
	if err := guard(5*time.Second, c.Close, "IMAP LOGOUT", func() error { return c.Logout().Wait() }); err != nil {
		p.log.Debug("IMAP logout", "err", err)
	}
}

// withinBytes is how many of uids, in order, one batch takes: as many as
// fit in batchBytes (each counted at most maxFetch, what is read of it),
// and at least one. A mail expunged since the search has no size and
// counts nothing.
func withinBytes(uids []imap.UID, sized []*imapclient.FetchMessageBuffer) int {
	size := make(map[imap.UID]int64, len(sized))
	for _, m := range sized {
		size[m.UID] = min(m.RFC822Size, maxFetch)
	}
	var total int64
	for i, uid := range uids {
		total += size[uid]
		if i > 0 && total > batchBytes {
			return i
		}
	}
	return len(uids)
}
