package daemon

import (
	"context"
	"runtime"
	"sync"

	"lyngk.example/lyngk/engine"
)

// Pictures are drawn outside the store's write transaction.
//
// A board mail carries the PNG of its position, and drawing it is the
// slowest part of applying a move. bbolt has one writer: drawn inside the
// transaction, pictures were drawn one at a time while the other cores
// waited. So before each write transaction a read transaction asks the
// engine which pictures the work's mails will show (Work.Forecast:
// engine.Forecast, ForecastRobot, ForecastPlay), they are drawn on up to
// all the cores at once (engine.Draw keeps them in the engine's memory),
// and only then the write transaction applies the work, which finds its
// pictures drawn. A forecast that misses (another mail changed the game in
// between) leaves the picture to be drawn inside, as before;
// engine.PicturesDrawn counts both. The mails committed are whole, picture
// included: a crash at any point loses no mail and sends none twice.

// drawWorkers is how many pictures are drawn at once: every core.
func drawWorkers() int { return max(1, runtime.NumCPU()) }

// draw makes ds, drawWorkers at once, and returns when all are done or
// ctx is cancelled.
func (d *Daemon) draw(ctx context.Context, ds []engine.Drawing) {
	if len(ds) == 0 {
		return
	}
	sem := make(chan struct{}, drawWorkers())
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, dr := range ds {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return
		}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := d.eng.Draw(dr); err != nil {
				d.log.Warn("picture not drawn before the transaction", "error", err)
			}
		})
	}
}
