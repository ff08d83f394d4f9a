package web

import (
	"context"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/record"
	"lyngk.example/lyngk/engine/review"
)

// The robot's review of a finished game on its page (package review):
// player 1's chance after every move as a small chart under the move
// list, and the loser's three costliest moves with the robot's move
// instead. A review is made once per finished game, outside any store
// transaction but the read of the game, by one worker at a time, at
// review.Playouts a position (about a second of one core for a YINSH game,
// BenchmarkReview); the page that finds none asks for it and says it is
// being made, and shows it once it is. Reviews are kept in memory, the
// last maxReviews; a server restart makes them again when asked.

// maxReviews bounds the reviews kept, maxQueue the games waiting for
// theirs, and maxPerHour the reviews begun in an hour (a window that opens
// with the first): a visitor or a crawler opening many finished games
// takes no more than a minute or two of one core an hour from the mail.
const (
	maxReviews = 256
	maxQueue   = 16
	maxPerHour = 60
)

// gameReview is what the game page shows of a review.
type gameReview struct {
	Chart template.HTML
	First string // player 1, whose chance the chart draws
	// Loser and Worst: the loser's costliest moves (none for a tie).
	Loser string
	Worst []costly
}

// costly is one of the loser's costliest moves: move K, his chance
// before and after it in percent, and the robot's move there.
type costly struct {
	K             int
	Move, Best    string
	Before, After int
}

// reviewer makes the reviews, one at a time.
type reviewer struct {
	h       *Handler
	mu      sync.Mutex
	done    map[int]*gameReview
	order   []int // boards of done, oldest first
	queue   []int
	running bool
	// window and begun count the reviews queued in the hour from window.
	window time.Time
	begun  int
}

// get returns board's review, or nil after queueing it (when there is
// room, and the hour's reviews are not all begun).
func (rv *reviewer) get(board int) *gameReview {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	if r, ok := rv.done[board]; ok {
		return r
	}
	if now := time.Now(); now.Sub(rv.window) >= time.Hour {
		rv.window, rv.begun = now, 0
	}
	if len(rv.queue) < maxQueue && rv.begun < maxPerHour && !slices.Contains(rv.queue, board) {
		rv.queue = append(rv.queue, board)
		rv.begun++
		if !rv.running {
			rv.running = true
			go rv.work()
		}
	}
	return nil
}

// queued reports whether board's review is being made.
func (rv *reviewer) queued(board int) bool {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	return slices.Contains(rv.queue, board)
}

// work makes the queued reviews, then ends.
func (rv *reviewer) work() {
	for {
		rv.mu.Lock()
		if len(rv.queue) == 0 {
			rv.running = false
			rv.mu.Unlock()
			return
		}
		board := rv.queue[0]
		rv.mu.Unlock()
		r, err := rv.make(board)
		if err != nil {
			rv.h.log.Error("web: review", "board", board, "err", err)
			r = &gameReview{} // not tried again until the server restarts
		}
		rv.mu.Lock()
		rv.queue = rv.queue[1:]
		rv.done[board] = r
		rv.order = append(rv.order, board)
		if len(rv.order) > maxReviews {
			delete(rv.done, rv.order[0])
			rv.order = rv.order[1:]
		}
		rv.mu.Unlock()
		if f := rv.h.cfg.Reviewed; f != nil {
			f(board)
		}
	}
}

// make reviews board, a finished game of a game with a robot.
func (rv *reviewer) make(board int) (*gameReview, error) {
	var d *engine.GameDetail
	if err := rv.h.cfg.Store.View(func(tx engine.Tx) error {
		var err error
		d, err = rv.h.cfg.Engine.ReadGame(tx, board)
		return err
	}); err != nil {
		return nil, err
	}
	g, err := d.Rules()
	if err != nil || g.Reviewer() == nil {
		return &gameReview{}, err
	}
	start, err := d.Position(0)
	if err != nil {
		return nil, err
	}
	moves := d.MoveList
	if n := len(moves); n > 0 && (moves[n-1] == record.Resign || moves[n-1] == record.Forfeit) {
		moves = moves[:n-1]
	}
	points, err := review.Review(context.Background(), g.Reviewer(), start, moves, review.Playouts)
	if err != nil {
		return nil, err
	}
	r := &gameReview{Chart: chart(points), First: d.Players[0]}
	if d.Winner != 0 {
		r.Loser = d.Players[2-d.Winner]
		for _, w := range review.Worst(points, moves, 3-d.Winner, 3) {
			r.Worst = append(r.Worst, costly{K: w.K, Move: w.Move, Best: w.Best,
				Before: int(math.Round(100 * w.Before)), After: int(math.Round(100 * w.After))})
		}
	}
	return r, nil
}

// chart draws player 1's chance after each move as an SVG line over the
// moves, 100 % at the top, with the even line dashed.
func chart(points []review.Point) template.HTML {
	const w, h = 600.0, 120.0
	n := max(len(points)-1, 1)
	var line strings.Builder
	for i, p := range points {
		fmt.Fprintf(&line, "%.1f,%.1f ", float64(i)*w/float64(n), (1-p.Chance)*h)
	}
	return template.HTML(fmt.Sprintf(`<svg class="chart" viewBox="0 0 %g %g" preserveAspectRatio="none" style="display:block;width:100%%;height:7rem" role="img" aria-label="the robot's estimate after each move">`+
		`<rect width="%g" height="%g" fill="none" stroke="currentColor" stroke-opacity="0.3" vector-effect="non-scaling-stroke"/>`+
		`<line x1="0" y1="%g" x2="%g" y2="%g" stroke="currentColor" stroke-opacity="0.4" stroke-dasharray="4 4" vector-effect="non-scaling-stroke"/>`+
		`<polyline points="%s" fill="none" stroke="currentColor" stroke-width="2" vector-effect="non-scaling-stroke"/></svg>`,
		w, h, w, h, h/2, w, h/2, strings.TrimSpace(line.String())))
}
