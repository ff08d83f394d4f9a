package main

import (
	"context"

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
	err := m.a.db.View(func(tx *store.Tx) error {
		var err error
		v, err = m.a.eng.TokenGame(tx, tok)
		return err
	})
	return v, err
}

// PlayToken's transaction returns a refusal as its error, so that it is
// rolled back, not committed: a refused move costs no write to the disk.
// The store returns that error as it is, for the page.
func (m webMover) PlayToken(tok, move string) (*engine.TokenView, int, error) {
	now := m.a.now()
	// The pictures of the board mails, drawn before the write transaction
	// (pictures.go).
	var ds []engine.Drawing
	if m.a.db.View(func(tx *store.Tx) error {
		ds = m.a.eng.ForecastPlay(tx, tok, move, now)
		return nil
	}) == nil {
		m.a.draw(context.Background(), ds)
	}
	var v *engine.TokenView
	sent := 0
	err := m.a.db.Update(func(tx *store.Tx) error {
		var mails []engine.Mail
		var err error
		if v, mails, err = m.a.eng.PlayToken(tx, tok, move, now); err != nil {
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
			if err := m.a.enqueue(tx, r.To, data, r.Unasked, enqueue, now); err != nil {
				return err
			}
			sent++
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	m.wake()
	return v, sent, nil
}
