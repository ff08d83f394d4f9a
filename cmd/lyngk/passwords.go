package main

import (
	"context"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/daemon"
	"lyngk.example/lyngk/mailer"
	"lyngk.example/lyngk/store"
)

// Password checks stay out of the store's write transaction.
//
// bcrypt takes tens of milliseconds per check on purpose, and bbolt has
// one writer: run inside the transaction, eight mails of sixty wrong
// passwords held every other mail back for most of a minute. So a mail is
// applied in three steps: a read transaction lists the checks its
// commands need (engine.Checks: passwords to compare, new passwords to
// hash), the checks run in a pool of at most
// checkWorkers at once (engine.Verify, which leaves the verdicts in the
// engine's memory), and only then the write transaction applies the mail,
// finding each verdict in memory; the lockout counter is still read and
// written inside it. A check the forecast missed runs inside the
// transaction, as before, and is counted (lyngk_password_checks_total
// {where="transaction"}).
//
// In the daemon, mail that needs no check must not wait behind mail that
// does. handle splits each fetched batch: mails needing no check (moves by
// reply, show, games, help, challenge, ...) are applied at once in one
// transaction; the others go, in order, to the lane, one goroutine that
// verifies and applies them one mail at a time. The poller leaves those
// mails unseen (mailer.Pending) and fetches them again when the lane asks
// (Poller.Recheck) after a commit; by then the store's dedupe record says
// they are done, and they are marked and moved. A crash in between loses
// nothing (the mail is unseen and not yet committed, or committed and
// recognised). A sender with a mail in the lane has his later mails put
// in the lane too, so one player's mails keep their order. At most
// laneDepth mails wait in the lane; when it is full, a password mail is set
// aside: it stays unseen, the poller goes on with the mails after it, and
// the lane's next recheck (when it has run dry) offers it again. Mails of a
// sender with a mail set aside are set aside too, and come back in their
// order. So a flood of password mail never holds mail that needs no check.

// checkWorkers is how many password checks run at once: one fewer than
// the cores, at least one, so that one core is left for mail without
// passwords.
func checkWorkers() int { return max(1, runtime.NumCPU()-1) }

// laneDepth bounds the mails waiting for password checks in the daemon.
const laneDepth = 16

// checkPool runs password checks, at most cap(sem) at once in all.
type checkPool struct {
	sem  chan struct{}
	done atomic.Int64 // checks run
}

func newCheckPool(workers int) *checkPool {
	return &checkPool{sem: make(chan struct{}, workers)}
}

// checkStarting, set by tests only, is called in the pool as each check
// starts: a test holds the checks there to see what is answered meanwhile.
var checkStarting func()

// verify runs the password checks of ms, outside any write transaction.
func (a *app) verify(ctx context.Context, ms []parsed) error {
	var checks []engine.Check
	now := a.now()
	err := a.db.View(func(tx *store.Tx) error {
		for i := range ms {
			cs, err := a.checksOf(tx, &ms[i], now)
			if err != nil {
				return err
			}
			checks = append(checks, cs...)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if a.checks == nil {
		for _, c := range checks {
			a.eng.Verify(c)
		}
		return nil
	}
	return a.checks.run(ctx, a.eng, checks)
}

// checksOf lists the checks of one mail; none for an unreadable or
// duplicate mail.
func (a *app) checksOf(tx *store.Tx, m *parsed, now time.Time) ([]engine.Check, error) {
	if m.bad != nil {
		return nil, nil
	}
	if seen, err := tx.Seen(m.id); err != nil || seen {
		return nil, err
	}
	return a.eng.Checks(tx, a.toEngine(m.in), now)
}

// run verifies cs, each as soon as a worker is free, and returns when all
// are done or ctx is cancelled.
func (p *checkPool) run(ctx context.Context, eng *engine.Engine, cs []engine.Check) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, c := range cs {
		select {
		case p.sem <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		wg.Go(func() {
			defer func() { <-p.sem }()
			if checkStarting != nil {
				checkStarting()
			}
			eng.Verify(c)
			p.done.Add(1)
		})
	}
	return nil
}

// outcomeDeferred: the mail went to the lane and is applied later.
const outcomeDeferred outcome = "deferred"

// lane applies, one by one, the mails that need password checks.
type lane struct {
	queue chan parsed
	// recheck asks the poller to hand over the deferred mails again; it
	// is set before the lane runs.
	recheck func()

	mu       sync.Mutex
	inflight map[string]bool      // dedupe keys in the queue or in hand
	senders  map[string]int       // lower-cased sender -> mails in flight
	settled  map[string]outcome   // applied, not yet reported to the poller
	aside    map[string][]string  // lower-cased sender -> dedupe keys set aside, in order
	asideAt  map[string]time.Time // dedupe key set aside -> when last offered
	retry    *time.Timer          // a recheck for mails set aside while the lane is idle
}

func newLane() *lane {
	return &lane{queue: make(chan parsed, laneDepth), inflight: map[string]bool{},
		senders: map[string]int{}, settled: map[string]outcome{},
		aside: map[string][]string{}, asideAt: map[string]time.Time{}}
}

// asideKeep is how long a mail set aside is waited for: one not offered
// again for that long has left the mailbox (an operator moved it), and its
// sender's later mails no longer wait for it.
const asideKeep = time.Hour

// offered notes that the poller offers m again, or for the first time, and
// says whether it must wait (set aside again): a mail set aside before it
// from the same sender is still waiting.
func (l *lane) offered(m *parsed, now time.Time) (wait bool) {
	s := sender(m)
	ids := l.aside[s]
	if _, ok := l.asideAt[m.id]; ok {
		l.asideAt[m.id] = now
		return ids[0] != m.id
	}
	return len(ids) > 0
}

// setAside keeps m unseen for a later recheck, after the sender's other
// mails set aside (or first again, if it was the first of them).
func (l *lane) setAside(m *parsed, now time.Time) {
	s := sender(m)
	if _, ok := l.asideAt[m.id]; !ok {
		l.aside[s] = append(l.aside[s], m.id)
	}
	l.asideAt[m.id] = now
}

// pruneAside forgets the mails set aside that were not offered again for
// asideKeep.
func (l *lane) pruneAside(now time.Time) {
	for k, at := range l.asideAt {
		if now.Sub(at) >= asideKeep {
			l.forgetAside(k)
		}
	}
}

// forgetAside drops key from the mails set aside.
func (l *lane) forgetAside(key string) {
	delete(l.asideAt, key)
	for s, ids := range l.aside {
		if i := slices.Index(ids, key); i >= 0 {
			if ids = slices.Delete(ids, i, i+1); len(ids) == 0 {
				delete(l.aside, s)
			} else {
				l.aside[s] = ids
			}
			return
		}
	}
}

// handle is the daemon's poller handler (see the comment at the top). As
// for applyBatch, an error comes with the outcomes of the mails before the
// first one left undone.
func (a *app) handle(ctx context.Context, raws [][]byte) ([]outcome, error) {
	start := time.Now()
	ms := parse(raws)
	l := a.lane
	out := make([]outcome, len(ms))
	var fresh []int // neither settled nor in flight
	l.mu.Lock()
	for i := range ms {
		m := &ms[i]
		switch {
		case m.bad != nil:
			fresh = append(fresh, i)
		case l.inflight[m.id]:
			out[i] = outcomeDeferred
		default:
			if res, ok := l.settled[m.id]; ok {
				delete(l.settled, m.id)
				out[i] = res
				continue
			}
			fresh = append(fresh, i)
		}
	}
	l.mu.Unlock()

	slow := make([]bool, len(ms))
	wait := make([]bool, len(ms)) // set aside again: an earlier mail of the sender waits
	slowFrom := map[string]bool{} // senders with a mail in the lane or going there
	now := a.now()
	l.mu.Lock()
	l.pruneAside(start)
	for _, i := range fresh {
		if ms[i].bad == nil {
			wait[i] = l.offered(&ms[i], start)
		}
	}
	l.mu.Unlock()
	err := a.db.View(func(tx *store.Tx) error {
		l.mu.Lock()
		defer l.mu.Unlock()
		for _, i := range fresh {
			m := &ms[i]
			if m.bad != nil {
				continue
			}
			if s := sender(m); wait[i] || l.senders[s] > 0 || slowFrom[s] || len(l.aside[s]) > 0 {
				slow[i] = true // keep the sender's order
				slowFrom[s] = true
				continue
			}
			cs, err := a.checksOf(tx, m, now)
			if err != nil {
				return err
			}
			slow[i] = len(cs) > 0
			slowFrom[sender(m)] = slow[i]
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var fast []parsed
	var at []int // index in ms of each fast mail
	for _, i := range fresh {
		if !slow[i] {
			fast, at = append(fast, ms[i]), append(at, i)
		}
	}
	if len(fast) > 0 {
		res, err := a.applyParsed(ctx, fast, daemon.Enqueue, start)
		for j, r := range res {
			out[at[j]] = r
		}
		if err != nil {
			// Report the mails up to the first one not done.
			done := len(ms)
			if len(res) < len(at) {
				done = at[len(res)]
			}
			for _, i := range fresh {
				if slow[i] {
					done = min(done, i)
					break
				}
			}
			return out[:done], err
		}
	}
	for _, i := range fresh {
		if !slow[i] {
			continue
		}
		m := ms[i]
		out[i] = outcomeDeferred
		l.mu.Lock()
		full := len(l.queue) == cap(l.queue)
		if wait[i] || full {
			// Only this goroutine fills the queue, so it stays full or
			// drains: never blocking here keeps the poller going. The
			// lane asks for a recheck when it runs dry; an idle lane
			// (the mail waits for one set aside before it) in a while.
			l.setAside(&m, start)
			if len(l.queue) == 0 && l.retry == nil {
				l.retry = time.AfterFunc(laneRetry, func() {
					l.mu.Lock()
					l.retry = nil
					l.mu.Unlock()
					l.recheck()
				})
			}
			l.mu.Unlock()
			a.log.LogAttrs(ctx, slog.LevelDebug, "mail set aside: the password lane is full", slog.String("message_id", m.id))
			continue
		}
		l.forgetAside(m.id)
		l.inflight[m.id] = true
		l.senders[sender(&m)]++
		l.mu.Unlock()
		l.queue <- m
		a.log.LogAttrs(ctx, slog.LevelDebug, "mail waits for password checks", slog.String("message_id", m.id))
	}
	return out, nil
}

func sender(m *parsed) string { return strings.ToLower(m.in.From) }

// release forgets m as in flight.
func (l *lane) release(m *parsed) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.inflight, m.id)
	if l.senders[sender(m)]--; l.senders[sender(m)] <= 0 {
		delete(l.senders, sender(m))
	}
}

// laneRetry is how long a mail the store failed to apply waits before the
// poller is asked to hand it over again.
const laneRetry = 30 * time.Second

// runLane applies the lane's mails until ctx is cancelled; a mail not yet
// committed then stays unseen in the mailbox for the next start.
func (a *app) runLane(ctx context.Context) error {
	l := a.lane
	for {
		var m parsed
		select {
		case <-ctx.Done():
			return ctx.Err()
		case m = <-l.queue:
		}
		start := time.Now()
		ms := []parsed{m}
		var res []outcome
		err := a.verify(ctx, ms)
		if err == nil {
			res, err = a.applyParsed(ctx, ms, daemon.Enqueue, start)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		l.release(&m)
		if err != nil {
			// The store failed (applyParsed logged it): the mail stays
			// unseen and comes back with a later check.
			time.AfterFunc(laneRetry, l.recheck)
			continue
		}
		l.mu.Lock()
		if len(l.settled) >= 10*laneDepth {
			clear(l.settled) // never reported (the mail left the mailbox): a duplicate then
		}
		l.settled[m.id] = res[0]
		report := len(l.settled) >= laneDepth
		l.mu.Unlock()
		// Each recheck fetches every unseen mail again: ask for one when
		// the lane has run dry, or has a lane's worth to report.
		if report || len(l.queue) == 0 {
			l.recheck()
		}
	}
}

// mailerOutcome says where a handled mail goes in the mailbox.
func mailerOutcome(o outcome) mailer.Outcome {
	switch o {
	case outcomeDeferred:
		return mailer.Pending
	case outcomeRejected, outcomeIgnored, outcomeFailed:
		// Unreadable mail, poison mail (failed inside the server) and mail
		// we deliberately leave unanswered (bounces, auto-replies, lists)
		// go to the Rejected folder, where an operator can look at them.
		return mailer.Rejected
	}
	return mailer.Processed
}
