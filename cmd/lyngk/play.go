package main

import (
	"errors"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/web"
	"lyngk.example/lyngk/store"
)

// webMover moves for the web's play pages (engine/web, /play/TOKEN): the
// engine's TokenGame in a read transaction, PlayToken in a write
// transaction that also queues the board mails, as a mail's transaction
// does; then wake wakes the sender and the robot (the handler tells its
// game pages itself).
type webMover struct {
	a    *app
	wake func()
}

var _ web.Mover = webMover{}

func (m webMover) TokenGame(tok string) (*engine.TokenView, error) {
	var v *engine.TokenView
	var refused error
	err := m.a.db.View(func(tx *store.Tx) error {
		var err error
		v, err = m.a.eng.TokenGame(tx, tok)
		return keepRefusal(err, &refused)
	})
	if err != nil {
		return nil, err
	}
	return v, refused
}

func (m webMover) PlayToken(tok, move string) (*engine.TokenView, int, error) {
	now := m.a.now()
	var v *engine.TokenView
	var refused error
	sent := 0
	err := m.a.db.Update(func(tx *store.Tx) error {
		var mails []engine.Mail
		var err error
		v, mails, err = m.a.eng.PlayToken(tx, tok, move, now)
		if err := keepRefusal(err, &refused); err != nil || refused != nil {
			return err
		}
		for _, r := range mails {
			data, err := m.a.compose(r, now)
			if err != nil {
				// As for a mail's replies (app.queue): the move stands,
				// the mail that cannot be composed is dropped and logged.
				m.a.log.Warn("board mail dropped", "to", r.To, "error", err)
				continue
			}
			if _, err := tx.Enqueue(m.a.robot, r.To, data, now); err != nil {
				return err
			}
			sent++
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	if refused != nil {
		return nil, 0, refused
	}
	m.wake()
	return v, sent, nil
}

// keepRefusal moves a refusal of the engine into *refused, so that the
// transaction commits nothing and the refusal still reaches the page; any
// other error is returned, to abort the transaction.
func keepRefusal(err error, refused *error) error {
	var r *engine.Refusal
	if errors.As(err, &r) {
		*refused = r
		return nil
	}
	return err
}
