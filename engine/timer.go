package engine

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Tick runs the timers at now: a reminder to the player to move after
// NagAfter without a move, repeated every NagRepeat, and a forfeit after
// ForfeitAfter (recorded as the move "Forfeit"; the opponent wins). A
// player on vacation is neither reminded nor forfeited, and the clock of a
// player back from vacation restarts at their return. The daemon calls
// Tick every minute in its own transaction, after Prune in another; all
// timer state is in the store, so a restart loses nothing, and a server
// that was down catches up at its first tick. Tick also runs the
// championships' timer (championship.go: an edition scheduled once the
// last has ended, started when due).
//
// As in Handle, err is non-nil only when the store failed. A game whose
// timer fails for a reason of its own (a template that does not render, a
// record that does not decode, a panic) is left as it was, its writes
// dropped, and named in failed; the other games' timers run, so one broken
// game cannot stop the reminders and forfeits of all.
func (e *Engine) Tick(tx Tx, now time.Time) (mails []Mail, failed, err error) {
	// The championships first: an edition's start is a few records and
	// its mails, and a game's timer below never waits on it.
	mails, fails, err := e.tickChampionships(tx, now)
	if err != nil {
		return nil, nil, err
	}
	timed, _, failed, err := e.timers(tx, now, false)
	if err != nil {
		return nil, nil, err
	}
	return append(mails, timed...), errors.Join(append(fails, failed)...), nil
}

// Prune drops the hourly counts of past hours (strangers, senders'
// commands, wrong passwords: pruneWindows), so forged senders leave
// nothing behind, and what expired (pruneStale: reply tokens, signups,
// addresses, confirmation codes), PruneBatch records at most. The daemon
// runs it every minute in a transaction of its own before Tick's: each
// holds the write lock for its own work (at a million games the tick
// after an hour's pause held it 26 ms with both in one transaction,
// over daemon.WriteBound).
func (e *Engine) Prune(tx Tx, now time.Time) error {
	if err := pruneWindows(tx, now); err != nil {
		return err
	}
	return pruneStale(tx, now)
}

// ForecastTick is Forecast (pictures.go) for Tick: the pictures of the
// reminders and game-over mails Tick would send at now, nothing
// written, so that the daemon draws them before the timer's write
// transaction, which then only writes. Its games are Tick's: the same queue, read the same way. (A
// championship's first board mails are drawn in the transaction: an
// edition starts a few times a year.)
func (e *Engine) ForecastTick(tx Tx, now time.Time) []Drawing {
	_, ds, _, _ := e.timers(tx, now, true)
	return ds
}

// timers runs the timers of the games due at now (at most TickBatch, and
// the first looks), each game in its own pending writes: committed, or
// with forecast dropped and only its drawings kept.
func (e *Engine) timers(tx Tx, now time.Time, forecast bool) (mails []Mail, drawings []Drawing, failed, err error) {
	var fails []error
	boards, err := dueBoards(tx, now, TickBatch*firstLooks)
	if err != nil {
		return nil, nil, nil, err
	}
	looked := 0
	for _, board := range boards {
		if looked == TickBatch {
			break
		}
		p := newPending(tx)
		r := &request{e: e, tx: p, now: now, forecast: forecast}
		ferr := guard(func() error {
			g, ok, err := r.loadGame(board)
			if err != nil || !ok || g.over() {
				looked++
				return err // an index of no running game: admin check says so
			}
			if d := e.deadline(g); g.Due.IsZero() && d.After(now) {
				// Its first look since the upgrade, and nothing due yet:
				// no replay, no user read.
				return r.recheck(g, d)
			}
			looked++
			return r.tick(g)
		})
		switch {
		case p.storeErr != nil:
			return nil, nil, nil, p.storeErr
		case ferr != nil:
			fails = append(fails, fmt.Errorf("engine: timer of board %d: %w", board, ferr))
			continue
		case forecast:
			drawings = append(drawings, r.drawings...)
			continue
		}
		if err := p.commit(); err != nil {
			return nil, nil, nil, err
		}
		mails = append(mails, r.out...)
	}
	return mails, drawings, errors.Join(fails...), nil
}

// TickBatch bounds the games one Tick looks at, so that the timer's
// transaction is short whatever the store holds (on a 2-core machine 50
// text-only reminders took 22 ms, 50 games cancelled with their mails 79
// ms, fsync included; a reminder's picture, about 7 ms, is drawn before
// the transaction: ForecastTick): the games due beyond it
// wait for the next tick, a minute later, in the order they fell due. A
// game whose timer fails stays due and counts in the batch: TickBatch
// broken games would stop the timer, and each is named in every Tick's
// failed.
const TickBatch = 4

// firstLooks: besides its TickBatch games, a Tick gives their deadline
// to up to firstLooks times as many games that have none yet (the
// running games of a store upgraded to schema 4, all due at once) and
// are not due: a record read and written each, so that the first ticks
// after the upgrade catch up in minutes.
const firstLooks = 75

// dueBoards reads the timer's queue (the deadlines index): the boards of
// the running games due at now, the earliest first, at most n.
func dueBoards(tx Tx, now time.Time, n int) ([]int, error) {
	limit := timeKey(now)
	var boards []int
	err := scanPrefix(tx, bucketDeadlines, "", func(key string) error {
		if len(key) != 24 || key[:16] > limit || len(boards) == n {
			return errEnough
		}
		n, err := strconv.Atoi(key[16:])
		if err != nil {
			return fmt.Errorf("engine: deadlines/%q: no board", key)
		}
		boards = append(boards, n)
		return nil
	})
	return boards, err
}

// since is when the clock of the player to move started: the last move,
// else the start of the game.
func (g *game) since() time.Time {
	if !g.LastMove.IsZero() {
		return g.LastMove
	}
	return g.Started
}

// deadline is when the timer looks at running game g next, the clock
// having started at since: the first reminder, else the next one, or the
// forfeit when it comes first.
func (e *Engine) deadline(g *game) time.Time { return e.deadlineSince(g, g.since()) }

func (e *Engine) deadlineSince(g *game, since time.Time) time.Time {
	next := since.Add(e.cfg.NagAfter)
	if !g.Nagged.Before(since) {
		next = later(next, g.Nagged.Add(NagRepeat))
	}
	if forfeit := since.Add(e.cfg.ForfeitAfter); forfeit.Before(next) {
		return forfeit
	}
	return next
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// recheck puts g back in the timer's queue at due without changing the
// game: the player to move is away (on vacation, all addresses bouncing,
// the robot) or the clock restarted at the player's return.
func (r *request) recheck(g *game, due time.Time) error {
	g.Due = due
	return r.writeGame(g)
}

func (r *request) tick(g *game) error {
	pos, err := r.e.position(g, -1)
	if err != nil {
		return err
	}
	p := pos.Turn()
	u, ok, err := r.loadUser(g.Players[p-1])
	if err != nil {
		return err
	}
	// Away: a player back at any time after now has his clock restarted
	// then (user.Back, clearBounces), so nothing of the game can fall
	// due before now plus the shorter period.
	away := r.now.Add(min(r.e.cfg.NagAfter, r.e.cfg.ForfeitAfter))
	if !ok || u.Vacation || u.Robot {
		// The robot never times out: it moves when a core is free.
		return r.recheck(g, away)
	}
	if paused, err := r.allBouncing(u); err != nil || paused {
		if err != nil {
			return err
		}
		return r.recheck(g, away) // all of the player's addresses bounce: paused (bounce.go)
	}
	since := g.since()
	if u.Back.After(since) {
		since = u.Back
	}
	idle := r.now.Sub(since)
	switch {
	case idle >= r.e.cfg.ForfeitAfter && !g.started() && g.Tournament == "":
		// A player who never moved has not agreed to play: the game is
		// cancelled, nobody forfeits. In a tournament he has: he
		// forfeits, as below.
		g.Proposal = nil
		r.finish(g, StatusCancelled, 0, EndTimeout)
		notice, err := r.notice("never-moved", kv{"User": u.ID, "Days": int(idle / (24 * time.Hour))})
		if err != nil {
			return err
		}
		return r.moved(g, nil, notice)
	case idle >= r.e.cfg.ForfeitAfter:
		g.Moves = append(g.Moves, moveForfeit)
		g.MoveTimes = append(g.MoveTimes, r.now)
		g.LastMove = r.now
		g.Proposal = nil
		r.finish(g, StatusWon, 3-p, EndForfeit)
		notice, err := r.notice("forfeit", kv{"User": u.ID, "Days": int(idle / (24 * time.Hour))})
		if err != nil {
			return err
		}
		return r.moved(g, nil, notice)
	case idle >= r.e.cfg.NagAfter && (g.Nagged.Before(since) || r.now.Sub(g.Nagged) >= NagRepeat):
		g.Nagged = r.now
		if err := r.saveGame(g); err != nil {
			return err
		}
		v, err := r.e.view(g, -1, boardMailRows)
		if err != nil {
			return err
		}
		v.Nag = &nagView{Days: int(idle / (24 * time.Hour)), Forfeit: since.Add(r.e.cfg.ForfeitAfter).UTC()}
		return r.boardMails(g, "nag", v, []string{strings.ToLower(u.ID)}, nil)
	}
	return r.recheck(g, r.e.deadlineSince(g, since))
}
