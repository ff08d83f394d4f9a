package main

import (
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/store"
)

// forecastFunc is a daemon.Work's Forecast.
type forecastFunc = func(tx *store.Tx, now time.Time) []engine.Drawing

// forecast lists the pictures the mails ms will show, for the daemon to
// draw before their transaction (engine/daemon, draw.go). Unreadable mail,
// bounces and mails already applied show none; the mails after a duplicate
// are forecast like any other.
func (a *app) forecast(ms []parsed) forecastFunc {
	return func(tx *store.Tx, now time.Time) []engine.Drawing {
		var ds []engine.Drawing
		for i := range ms {
			m := &ms[i]
			if m.bad != nil || m.bounce != nil {
				continue
			}
			if seen, err := tx.Seen(m.id); err != nil || seen {
				continue
			}
			ds = append(ds, a.eng.Forecast(tx, a.toEngine(m.in), now)...)
		}
		return ds
	}
}
