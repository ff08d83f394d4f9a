package engine

import (
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
// at its first tick.
func (e *Engine) Tick(tx Tx, now time.Time) ([]Mail, error) {
	r := &request{e: e, tx: tx, now: now}
	gs, err := r.allGames()
	if err != nil {
		return nil, err
	}
	for _, g := range gs {
		if g.over() {
			continue
		}
		if err := r.tick(g); err != nil {
			return nil, err
		}
	}
	return r.out, nil
}

func (r *request) tick(g *game) error {
	pos, err := position(g, -1)
	if err != nil {
		return err
	}
	p := pos.Turn()
	u, ok, err := r.loadUser(g.Players[p-1])
	if err != nil || !ok || u.Vacation {
		return err
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
	case idle >= r.e.cfg.ForfeitAfter:
		g.Moves = append(g.Moves, moveForfeit)
		g.MoveTimes = append(g.MoveTimes, r.now)
		g.LastMove = r.now
		g.Proposal = nil
		r.finish(g, statusWon, 3-p, "forfeit")
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
		v, err := view(g, -1, boardMailRows)
		if err != nil {
			return err
		}
		v.Nag = &nagView{Days: int(idle / (24 * time.Hour)), Forfeit: since.Add(r.e.cfg.ForfeitAfter).UTC()}
		return r.boardMails(g, "nag", v, []string{strings.ToLower(u.ID)}, nil)
	}
	return nil
}
