package main

import (
	"context"
	"runtime"
	"sync"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/store"
)

// Pictures are drawn outside the store's write transaction.
//
// A board mail carries the PNG of its position, and drawing it is the
// slowest part of applying a move. bbolt has one writer: drawn inside the
// transaction, pictures were drawn one at a time while the other cores
// waited. So before each write transaction (a batch of mails, the lane's
// mail, a robot's move) a read transaction asks the engine which pictures
// the mails will show (engine.Forecast, ForecastRobot), they are drawn on
// up to all the cores at once (engine.Draw keeps them in the engine's
// memory), and only then the write transaction applies the mails, which
// find their pictures drawn. A forecast that misses (another mail changed
// the game in between) leaves the picture to be drawn inside, as before;
// lyngk_pictures_drawn_total{where} counts both. The mails committed are
// whole, picture included, as before: a crash at any point loses no mail
// and sends none twice.

// drawWorkers is how many pictures are drawn at once: every core.
func drawWorkers() int { return max(1, runtime.NumCPU()) }

// foresee draws the pictures the mails ms will show, before they are
// applied; a failure only leaves them to be drawn inside.
func (a *app) foresee(ctx context.Context, ms []parsed, now time.Time) {
	var ds []engine.Drawing
	err := a.db.View(func(tx *store.Tx) error {
		for i := range ms {
			m := &ms[i]
			if m.bad != nil || m.bounce != nil {
				continue
			}
			if seen, err := tx.Seen(m.id); err != nil || seen {
				return err
			}
			ds = append(ds, a.eng.Forecast(tx, a.toEngine(m.in), now)...)
		}
		return nil
	})
	if err != nil {
		return
	}
	a.draw(ctx, ds)
}

// draw makes ds, drawWorkers at once, and returns when all are done or
// ctx is cancelled.
func (a *app) draw(ctx context.Context, ds []engine.Drawing) {
	if len(ds) == 0 {
		return
	}
	sem := make(chan struct{}, drawWorkers())
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, d := range ds {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return
		}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := a.eng.Draw(d); err != nil {
				a.log.Warn("picture not drawn before the transaction", "error", err)
			}
		})
	}
}
