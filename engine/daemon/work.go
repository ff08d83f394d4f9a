package daemon

import (
	"context"
	"errors"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/store"
)

// The units of work other than mail (which cmd/lyngk batches, with its
// password checks and poison handling, into a Work of its own).

// TokenGame is the game a play page's token stands for (the web's Mover).
func (d *Daemon) TokenGame(tok string) (*engine.TokenView, error) {
	var v *engine.TokenView
	err := d.db.View(func(tx *store.Tx) error {
		var err error
		v, err = d.eng.TokenGame(tx, tok)
		return err
	})
	return v, err
}

// PlayToken makes a move sent from a play page (the web's Mover) and
// queues its board mails, as a mail's move does; it returns the game as
// the page shows it and how many mails were queued. A refusal is returned
// as the transaction's error, so that it is rolled back, not committed: a
// refused move costs no write to the disk.
func (d *Daemon) PlayToken(tok, move string) (*engine.TokenView, int, error) {
	var v *engine.TokenView
	sent := 0
	err := d.Commit(context.Background(), Work{
		Name: "web move",
		Forecast: func(tx *store.Tx, now time.Time) []engine.Drawing {
			return d.eng.ForecastPlay(tx, tok, move, now)
		},
		Apply: func(tx *Tx) error {
			var mails []engine.Mail
			var err error
			if v, mails, err = d.eng.PlayToken(tx, tok, move, tx.Now); err != nil {
				return err
			}
			sent, err = tx.Send(mails)
			return err
		},
	})
	if err != nil {
		return nil, 0, err
	}
	return v, sent, nil
}

// ErrMoveDropped says a robot move was not played: the game changed while
// the robot thought.
var ErrMoveDropped = errors.New("daemon: the game changed while the robot thought")

// RobotMove plays the robot player's move m in the game of t, with its
// board mails, unless the game changed meanwhile (ErrMoveDropped).
func (d *Daemon) RobotMove(ctx context.Context, t engine.RobotTurn, m games.Move) error {
	played := false
	err := d.Commit(ctx, Work{
		Name: "robot move",
		Forecast: func(tx *store.Tx, now time.Time) []engine.Drawing {
			return d.eng.ForecastRobot(tx, t, m, now)
		},
		Apply: func(tx *Tx) error {
			mails, err := d.eng.RobotMove(tx, t, m, tx.Now)
			if err != nil {
				return err
			}
			played = len(mails) > 0
			_, err = tx.Send(mails)
			return err
		},
	})
	if err == nil && !played {
		err = ErrMoveDropped
	}
	return err
}

// Tick drops the expired records (store.Tx.Expire, engine.Prune) in one
// transaction, then runs the game timers (reminders, forfeits) at now in
// another, like a mail, the pictures of its mails drawn before it
// (engine.ForecastTick), so that each transaction only reads and writes
// records and composes mails, and holds the write lock for its own work
// only (WriteBound). The games whose timers failed are returned as failed
// (they are tried again at the next tick); err is the store's.
func (d *Daemon) Tick(ctx context.Context, now time.Time) (failed, err error) {
	err = d.Commit(ctx, Work{
		Name: "prune",
		Now:  now,
		Apply: func(tx *Tx) error {
			if _, err := tx.Expire(now); err != nil {
				return err
			}
			return d.eng.Prune(tx, now)
		},
	})
	if err != nil {
		return nil, err
	}
	err = d.Commit(ctx, Work{
		Name: "timers",
		Now:  now,
		Forecast: func(tx *store.Tx, now time.Time) []engine.Drawing {
			return d.eng.ForecastTick(tx, now)
		},
		Apply: func(tx *Tx) error {
			var mails []engine.Mail
			var err error
			if mails, failed, err = d.eng.Tick(tx, now); err != nil {
				return err
			}
			_, err = tx.Send(mails)
			return err
		},
	})
	return failed, err
}

// Update makes an operator's change (lyngk admin) in one transaction, with
// the change signal.
func (d *Daemon) Update(ctx context.Context, name string, f func(tx *store.Tx) error) error {
	return d.Commit(ctx, Work{Name: name, Apply: func(tx *Tx) error { return f(tx.Tx) }})
}
