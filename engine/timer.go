package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Tick runs the timers at now: a reminder to the player to move after
// NagAfter without a move, repeated every NagRepeat, and a forfeit after
// ForfeitAfter (recorded as the move "Forfeit"; the opponent wins). A
// player on vacation is neither reminded nor forfeited, and the clock of a
// player back from vacation restarts at their return. The daemon calls
// Tick every minute in its own transaction; all timer state is in the
// store, so a restart loses nothing, and a server that was down catches up
// at its first tick. Tick also drops the hourly counts of past hours
// (strangers, senders' commands, wrong passwords: pruneWindows), so forged
// senders leave nothing behind, and the confirmation codes sent 7 days ago
// or earlier (pruneConfirms).
//
// As in Handle, err is non-nil only when the store failed. A game whose
// timer fails for a reason of its own (a template that does not render, a
// record that does not decode, a panic) is left as it was, its writes
// dropped, and named in failed; the other games' timers run, so one broken
// game cannot stop the reminders and forfeits of all.
func (e *Engine) Tick(tx Tx, now time.Time) (mails []Mail, failed, err error) {
	if err := pruneWindows(tx, now); err != nil {
		return nil, nil, err
	}
	if err := pruneConfirms(tx, now); err != nil {
		return nil, nil, err
	}
	var gs []*game
	var fails []error
	over, kept := map[int]time.Time{}, map[int]bool{}
	err = tx.ForEach(bucketGames, func(key string, val []byte) error {
		g := new(game)
		if err := json.Unmarshal(val, g); err != nil || g.V != recordVersion {
			fails = append(fails, fmt.Errorf("engine: games/%s: record version %d or undecodable: %v", key, g.V, err))
			if n, err := boardNumber(strings.TrimLeft(key, "0")); err == nil {
				kept[n] = true
			}
			return nil
		}
		if g.over() {
			over[g.Board] = g.Ended
		} else {
			kept[g.Board] = true
		}
		gs = append(gs, g)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if err := pruneStale(tx, now, over, kept); err != nil {
		return nil, nil, err
	}
	for _, g := range gs {
		if g.over() {
			continue
		}
		p := newPending(tx)
		r := &request{e: e, tx: p, now: now}
		ferr := guard(func() error { return r.tick(g) })
		switch {
		case p.storeErr != nil:
			return nil, nil, p.storeErr
		case ferr != nil:
			fails = append(fails, fmt.Errorf("engine: timer of board %d: %w", g.Board, ferr))
			continue
		}
		if err := p.commit(); err != nil {
			return nil, nil, err
		}
		mails = append(mails, r.out...)
	}
	return mails, errors.Join(fails...), nil
}

func (r *request) tick(g *game) error {
	pos, err := r.e.position(g, -1)
	if err != nil {
		return err
	}
	p := pos.Turn()
	u, ok, err := r.loadUser(g.Players[p-1])
	if err != nil || !ok || u.Vacation || u.Robot {
		// The robot never times out: it moves when a core is free.
		return err
	}
	if paused, err := r.allBouncing(u); err != nil || paused {
		return err // all of the player's addresses bounce: paused (bounce.go)
	}
	since := g.Started
	if !g.LastMove.IsZero() {
		since = g.LastMove
	}
	if u.Back.After(since) {
		since = u.Back
	}
	idle := r.now.Sub(since)
	switch {
	case idle >= r.e.cfg.ForfeitAfter && !g.started():
		// A player who never moved has not agreed to play: the game is
		// cancelled, nobody forfeits.
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
	return nil
}
