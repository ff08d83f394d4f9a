// Package daemon is the one place that writes the store. Every change of
// the server's state is a unit of work (Work: a batch of mails, a move
// made on the web, a robot move, a run of the game timers, an operator's
// change) given to Commit, which runs it in the same steps whoever asks:
//
//  1. forecast, in a read transaction, the board pictures the work's mails
//     will show (engine.Forecast and its kin; draw.go);
//  2. draw them outside the store's write lock, on every core (draw.go);
//  3. one write transaction: the work applies its change, composes its
//     mails (mailer.Compose) and queues each under its SMTP envelope, one
//     per recipient with a VERP sender when bounce_verp is on, in its
//     outbox lane, players' or strangers' (Tx.Send);
//  4. after the commit, one change signal: the channel Changed returned is
//     closed and replaced, as mox's BroadcastChanges, so the outbox sender,
//     the robot player and the web's live pages each look again (Watch).
//
// A crash at any step loses nothing and repeats nothing: before the commit
// nothing was written, after it the mails are in the outbox with the
// change that caused them.
//
// The robot's review of a game that ended is made by a worker of its own
// (RunReviews, reviews.go), outside this sequence: the transaction that
// ends the game holds its game-over mails in the store, and the worker
// commits them with the review later, as a unit of work of its own, so
// that no other mail waits for a review, and the game-over mail at most a
// minute (engine.ReviewWait).
//
// The sender's own bookkeeping in the outbox (an attempt counted, a mail
// sent, given up or dropped) is written here too (Outbox), without the
// change signal.
//
// It sits under engine/ beside the web part, as the engine's driver: it
// imports the engine, the store (its DB and transactions) and the mailer
// (its composer, and the queue its sender drains); the engine and the web
// import none of it (the web is given the Daemon as its web.Store: its
// reads and its change signal), and cmd/lyngk wires it to the poller, the sender, the web
// listener and the control socket. It opens no socket and reads no
// configuration file.
package daemon

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"log/slog"
	"net/mail"
	"net/textproto"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/mailer"
	"lyngk.example/lyngk/store"
)

// Config configures a Daemon.
type Config struct {
	DB *store.DB
	// Engine applies the work; nil for a daemon that only makes an
	// operator's changes (lyngk admin), which need no forecast or mail.
	Engine *engine.Engine
	// Server is the server's address (server_address): the From of its
	// mails, under the engine's ServerName, and their envelope sender.
	Server string
	// VERP (bounce_verp) sends each mail once per recipient under
	// robot+b-TAG@domain, the recipient's VERP tag, so that a bounce
	// names the address it was for.
	VERP bool
	Log  *slog.Logger
	// Now is the clock of the work that brings no time of its own, and
	// the one the review worker reads a game-over mail's Due by
	// (reviews.go); nil: time.Now.
	Now func() time.Time
	// Held, when set, is told after each write transaction how long it
	// held the store's write lock (from its start to its commit, fsync
	// included; the wait for the lock not counted), by work name: the
	// figure WriteBound states.
	Held func(work string, held time.Duration)
	// Reviewing, when set, is called by the review worker before it makes
	// the review of board (reviews.go): a test holds a review there to
	// make it as slow as it likes.
	Reviewing func(ctx context.Context, board int)
}

// WriteBound is the longest a unit of work should hold the store's write
// lock on a 2-core machine, whatever the store holds: every other writer
// (a mail, a web move, the robot) waits meanwhile. The work keeps it by
// doing its slow parts before the transaction (pictures and reviews:
// draw.go; bcrypt: the password pool) and by working in bounded batches
// (engine.TickBatch, engine.PruneBatch). Nothing enforces it: the store
// benchmark measures it (deploy/BENCHMARKS.md), Held reports it.
const WriteBound = 20 * time.Millisecond

// Daemon writes the store. It is safe for concurrent use: bbolt runs one
// write transaction at a time, and the pictures are drawn before it.
type Daemon struct {
	db     *store.DB
	eng    *engine.Engine
	server string
	verp   bool
	log    *slog.Logger
	now    func() time.Time
	held   func(string, time.Duration)
	// reviewing is Config.Reviewing.
	reviewing func(ctx context.Context, board int)

	mu      sync.Mutex
	changed chan struct{} // closed at the next commit (Changed)

	// What the review worker gives way to (giveWay): the units of work
	// under way, the last commit's time and the start of the sender's
	// round under way (Unix nanoseconds; 0: none).
	working    atomic.Int32
	lastCommit atomic.Int64
	sending    atomic.Int64
}

// New makes the daemon of cfg.DB.
func New(cfg Config) *Daemon {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Daemon{db: cfg.DB, eng: cfg.Engine, server: cfg.Server, verp: cfg.VERP, log: cfg.Log, now: cfg.Now,
		held: cfg.Held, reviewing: cfg.Reviewing, changed: make(chan struct{})}
}

// View runs fn in one read transaction: the read side the web part is
// given (web.Store). It sees the store as the engine's Tx, and cannot
// write: bbolt refuses a write in a read transaction.
func (d *Daemon) View(fn func(tx engine.Tx) error) error {
	return d.db.View(func(tx *store.Tx) error { return fn(tx) })
}

// Changed returns a channel that is closed at the next commit. Take it
// before reading, then wait on it: a change committed after the reading
// closes it.
func (d *Daemon) Changed() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.changed
}

// signal closes the change channel and makes the next one.
func (d *Daemon) signal() {
	d.mu.Lock()
	close(d.changed)
	d.changed = make(chan struct{})
	d.mu.Unlock()
}

// Watch calls each of fs after every commit until ctx is done: the wiring
// of a part with a wake-up of its own (the outbox sender's one-slot kick)
// to the change signal; the robot and the web's live pages wait on
// Changed themselves. Commits close together may be told once.
func (d *Daemon) Watch(ctx context.Context, fs ...func()) {
	for {
		ch := d.Changed()
		select {
		case <-ctx.Done():
			return
		case <-ch:
		}
		for _, f := range fs {
			f()
		}
	}
}

// Outgoing is one composed mail under one SMTP envelope.
type Outgoing struct {
	From    string // the envelope sender
	To      []string
	Data    []byte
	Unasked bool // engine.Mail.Unasked: the outbox serves it after the recipient's other mail
	// Stranger puts it in the outbox's strangers' lane
	// (store.OutMail.Stranger): no recipient is a confirmed address.
	Stranger bool
}

// Deliver puts composed mails somewhere inside the transaction: the outbox
// (Enqueue), or a list for `lyngk process -mbox`.
type Deliver func(tx *store.Tx, m Outgoing, now time.Time) error

// Enqueue queues m in the outbox: a stranger's mail in the strangers'
// lane (store.Tx.EnqueueStranger), an unasked mail behind its recipients'
// other mail (store.Tx.EnqueueUnasked).
func Enqueue(tx *store.Tx, m Outgoing, now time.Time) error {
	_, err := EnqueueID(tx, m, now)
	return err
}

// EnqueueID is Enqueue, returning the outbox's id of the mail.
func EnqueueID(tx *store.Tx, m Outgoing, now time.Time) (uint64, error) {
	switch {
	case m.Stranger:
		return tx.EnqueueStranger(m.From, m.To, m.Data, now)
	case m.Unasked:
		return tx.EnqueueUnasked(m.From, m.To, m.Data, now)
	}
	return tx.Enqueue(m.From, m.To, m.Data, now)
}

// Work is one unit of work for Commit.
type Work struct {
	// Name names the work in the log ("mail", "web move", "robot move",
	// "prune", "timers", "admin").
	Name string
	// Now is the work's time; zero: the daemon's clock.
	Now time.Time
	// Forecast lists, in a read transaction, the pictures the work's mails
	// will show; nil: none. A picture it misses is drawn inside, as
	// before: a forecast only saves time.
	Forecast func(tx *store.Tx, now time.Time) []engine.Drawing
	// Apply makes the change in the write transaction and sends its mails
	// (Tx.Send). An error rolls all of it back and is Commit's, unwrapped.
	Apply func(tx *Tx) error
	// Deliver takes the composed mails; nil: the outbox (Enqueue).
	Deliver Deliver
}

// Tx is the write transaction of one unit of work: the store's, and the
// way its mails leave.
type Tx struct {
	*store.Tx
	// Now is the work's time.
	Now     time.Time
	d       *Daemon
	deliver Deliver
	dropped []dropped
}

// dropped is a mail that could not be composed.
type dropped struct {
	to        []string
	inReplyTo string
	err       error
}

// Commit runs w: its forecast and pictures before the write transaction,
// then Apply in one transaction, then the change signal. The drawing stops
// early when ctx ends; the transaction runs to its end.
func (d *Daemon) Commit(ctx context.Context, w Work) error {
	d.working.Add(1)
	defer func() {
		d.lastCommit.Store(time.Now().UnixNano())
		d.working.Add(-1)
	}()
	now := w.Now
	if now.IsZero() {
		now = d.now()
	}
	if w.Forecast != nil {
		var ds []engine.Drawing
		if d.db.View(func(tx *store.Tx) error {
			ds = w.Forecast(tx, now)
			return nil
		}) == nil {
			d.draw(ctx, ds)
		}
	}
	deliver := w.Deliver
	if deliver == nil {
		deliver = Enqueue
	}
	var t *Tx
	var began time.Time
	err := d.db.Update(func(tx *store.Tx) error {
		began = time.Now()
		t = &Tx{Tx: tx, Now: now, d: d, deliver: deliver}
		return w.Apply(t)
	})
	if err != nil {
		return err
	}
	if d.held != nil {
		d.held(w.Name, time.Since(began))
	}
	// A mail that cannot be composed (say, to an address a player typed
	// wrongly) must not wedge its work into an endless retry: the change
	// stands, the mail is dropped and logged, once committed.
	for _, m := range t.dropped {
		d.log.LogAttrs(ctx, slog.LevelWarn, "mail dropped", slog.String("work", w.Name), slog.Any("to", m.to),
			slog.String("in_reply_to", m.inReplyTo), slog.String("error", m.err.Error()))
	}
	d.signal()
	return nil
}

// Send composes mails and delivers each under its envelopes; it returns
// how many were delivered. A mail that cannot be composed is dropped (and
// logged after the commit); the error is the store's.
func (t *Tx) Send(mails []engine.Mail) (int, error) {
	sent := 0
	for _, r := range mails {
		data, err := t.d.compose(r, t.Now)
		if err != nil {
			t.dropped = append(t.dropped, dropped{r.To, r.InReplyTo, err})
			continue
		}
		if err := t.enqueue(r.To, data, r.Unasked); err != nil {
			return sent, err
		}
		sent++
	}
	return sent, nil
}

// enqueue delivers a composed mail to `to` under its envelopes, in its
// lane: the confirmed addresses in the players' lane, the others in the
// strangers' lane (byLane): a stranger named with a player never rides in
// the players' lane. unasked is engine.Mail.Unasked. In the same
// transaction it records, for each confirmed address of `to`, that the
// mail's Message-ID was sent to it: only a bounce naming such a record
// counts (recordSent).
func (t *Tx) enqueue(to []string, data []byte, unasked bool) error {
	players, strangers, err := byLane(t.Tx, to)
	if err != nil {
		return err
	}
	for _, l := range []struct {
		to       []string
		stranger bool
	}{{players, false}, {strangers, true}} {
		if len(l.to) == 0 {
			continue
		}
		envs, err := t.d.envelopes(t.Tx, l.to)
		if err != nil {
			return err
		}
		for _, e := range envs {
			if err := t.deliver(t.Tx, Outgoing{From: e.from, To: e.to, Data: data, Unasked: unasked, Stranger: l.stranger}, t.Now); err != nil {
				return err
			}
		}
	}
	return t.recordSent(to, data)
}

// recordSent keeps the Message-ID of the composed mail data with each of
// its recipients that is some account's confirmed address, for
// store.SentKeep. Mail to strangers is not kept: no bounce of theirs
// counts, and a flood of them must not fill the records.
func (t *Tx) recordSent(to []string, data []byte) error {
	id := MessageIDOf(data)
	if id == "" {
		return nil
	}
	for _, addr := range to {
		ok, err := t.d.eng.Tracked(t.Tx, addr)
		if err != nil {
			return err
		}
		if ok {
			if err := t.RecordSent(id, addr, t.Now); err != nil {
				return err
			}
		}
	}
	return nil
}

// MessageIDOf reads the Message-ID (without <>) of a mail the daemon
// composed (mailer.Compose writes it in the header).
func MessageIDOf(data []byte) string {
	h, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(data))).ReadMIMEHeader()
	if err != nil && len(h) == 0 {
		return ""
	}
	return strings.Trim(strings.TrimSpace(h.Get("Message-Id")), "<>")
}

// byLane splits to into the confirmed addresses of players and the others
// (engine.ConfirmedAddress), each in the order given.
func byLane(tx *store.Tx, to []string) (players, strangers []string, err error) {
	for _, addr := range to {
		ok, err := engine.ConfirmedAddress(tx, addr)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			players = append(players, addr)
		} else {
			strangers = append(strangers, addr)
		}
	}
	return players, strangers, nil
}

// envelope is the SMTP envelope of a mail: sender and recipients.
type envelope struct {
	from string
	to   []string
}

// envelopes says how a mail to `to` leaves: with bounce_verp, one envelope
// per address, its sender robot+b-TAG@domain carrying the address's
// VERP tag (an HMAC of it, engine/bounce.go; a stranger's address has none
// and gets the robot's plain address); without, one envelope from the
// robot to all.
func (d *Daemon) envelopes(tx *store.Tx, to []string) ([]envelope, error) {
	if !d.verp {
		return []envelope{{d.server, to}}, nil
	}
	out := make([]envelope, 0, len(to))
	for _, addr := range to {
		tok, err := d.eng.BounceToken(tx, addr)
		if err != nil {
			return nil, err
		}
		from := d.server
		if tok != "" {
			from = engine.VERP(d.server, tok)
		}
		out = append(out, envelope{from, []string{addr}})
	}
	return out, nil
}

// compose turns one of the engine's mails into RFC 5322 bytes from us.
func (d *Daemon) compose(m engine.Mail, now time.Time) ([]byte, error) {
	var inline []mailer.InlinePart
	if m.Picture != nil {
		name, _, _ := strings.Cut(m.PictureID, "@")
		inline = append(inline, mailer.InlinePart{ContentID: m.PictureID, ContentType: "image/png", Filename: name + ".png", Data: m.Picture})
	}
	var files []mailer.Attachment
	for _, f := range m.Attachments {
		files = append(files, mailer.Attachment{Filename: f.Filename, ContentType: f.ContentType, Data: f.Data})
	}
	id, err := copyID(m.MessageID)
	if err != nil {
		return nil, err
	}
	return mailer.Compose(mailer.Outgoing{
		From:          (&mail.Address{Name: d.eng.ServerName(), Address: d.server}).String(),
		To:            m.To,
		Subject:       m.Subject,
		Body:          m.Body,
		MessageID:     id,
		InReplyTo:     m.InReplyTo,
		References:    m.References,
		AutoSubmitted: m.AutoSubmitted,
		Date:          now,
		HTML:          m.HTML,
		Inline:        inline,
		Attachments:   files,
	})
}

// copyID is the Message-ID a mail with id (set by the engine, or "" for
// one the composer draws) leaves with: a board mail's gets a random mark
// its "move on the web" link does not show (engine.CopyMessageID), so
// that its reply token is no proof in a forged bounce.
func copyID(id string) (string, error) {
	return engine.CopyMessageID(id, rand.Reader)
}
