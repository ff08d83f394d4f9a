package main

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"sync"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/daemon"
)

// robotPlayer thinks and moves for the robot players (engine.RobotLevels),
// each at its level's budget. The store is the only record of its work: the engine
// indexes every game waiting for the robot's move in the transaction that
// made it wait. robotPlayer reads that index, thinks outside any
// transaction (so other mail is answered meanwhile), and plays each move
// in a transaction of its own, which the engine drops if the game changed
// in between. A crash while thinking loses nothing (the game still waits
// and is thought about again at the next start); a crash after the commit
// doubles nothing (the game no longer waits for that move).
type robotPlayer struct {
	a    *app
	wake chan struct{}
	// slots holds one token per core: at most one search per core runs;
	// further games wait their turn.
	slots chan struct{}

	mu   sync.Mutex
	busy map[int]bool // boards being thought about
	wg   sync.WaitGroup

	// unmovedBudget bounds the CPU of the searches for games no human has
	// moved in (engine.RobotTurn.Unmoved) per hour, in a window that opens
	// with the first; 0 = no bound. Anybody may start such a game (a
	// forged "lyngk challenge robot-max alice" costs a search each):
	// beyond the bound they wait for the next window, and games a human
	// has moved in are thought about as ever. A search counts for its
	// level's stated CPU (engine.RobotLevel.CPU), so a strong level's long
	// search weighs what several short ones do; the first of a window
	// always runs, whatever its level. Owned by run's goroutine.
	unmovedBudget time.Duration
	unmovedStart  time.Time
	unmovedSpent  time.Duration
	unmovedTimer  *time.Timer
}

// newRobotPlayer makes the robots' player; unmovedPerHour searches of
// think (the level robot's, the settings robot_unmoved_per_hour and
// robot_think) are its hourly budget for games nobody has moved in.
func newRobotPlayer(a *app, think time.Duration, unmovedPerHour int) *robotPlayer {
	return &robotPlayer{a: a, wake: make(chan struct{}, 1),
		slots: make(chan struct{}, runtime.NumCPU()), busy: map[int]bool{},
		unmovedBudget: time.Duration(unmovedPerHour) * engine.ThinkCPU(think)}
}

// mayThink says whether the game of t may be thought about now, and counts
// its level's CPU when it is one no human has moved in. When the hour's
// budget is spent, a Wake is set for the end of the window.
func (p *robotPlayer) mayThink(t engine.RobotTurn, now time.Time) bool {
	if !t.Unmoved || p.unmovedBudget == 0 {
		return true
	}
	if now.Sub(p.unmovedStart) >= time.Hour || now.Before(p.unmovedStart) {
		p.unmovedStart, p.unmovedSpent = now, 0
	}
	if p.unmovedSpent == 0 || p.unmovedSpent+t.Level.CPU <= p.unmovedBudget {
		p.unmovedSpent += t.Level.CPU
		return true
	}
	if d := p.unmovedStart.Add(time.Hour).Sub(now); p.unmovedTimer == nil {
		p.unmovedTimer = time.AfterFunc(d, p.Wake)
	} else {
		p.unmovedTimer.Reset(d)
	}
	return false
}

// Wake tells the robot that the store changed: a game may wait for it.
func (p *robotPlayer) Wake() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// run starts a search for every game waiting for the robot, at start,
// after each commit (the daemon's change signal) and after each Wake,
// until ctx ends; then it waits for the searches to stop.
func (p *robotPlayer) run(ctx context.Context) error {
	defer p.wg.Wait()
	for {
		// Taken before the reading: a commit after it closes it.
		changed := p.a.daemon().Changed()
		var turns []engine.RobotTurn
		err := p.a.daemon().View(func(tx engine.Tx) (err error) {
			turns, err = p.a.eng.RobotTurns(tx)
			return err
		})
		if err != nil {
			p.a.log.Error("robot: reading the games waiting for it", "error", err)
		}
		now := p.a.now()
		for _, t := range turns {
			p.mu.Lock()
			busy := p.busy[t.Board]
			p.mu.Unlock()
			if busy || !p.mayThink(t, now) {
				continue
			}
			p.mu.Lock()
			p.busy[t.Board] = true
			p.mu.Unlock()
			p.wg.Add(1)
			go p.play(ctx, t)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		case <-p.wake:
		}
	}
}

// play thinks about one game and plays the move.
func (p *robotPlayer) play(ctx context.Context, t engine.RobotTurn) {
	defer p.wg.Done()
	defer func() {
		p.mu.Lock()
		delete(p.busy, t.Board)
		p.mu.Unlock()
		// After a pass of the opponent the robot is to move again.
		p.Wake()
	}()
	queued := time.Now()
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return
	}
	// The slot is held until the move is stored and logged: a few
	// milliseconds more than the search, and the log shows the bound.
	defer func() { <-p.slots }()
	started := time.Now()
	moves := len(t.Position.Moves())
	p.a.log.Info("robot thinking", "board", t.Board, "level", t.Level.ID, "moves", moves)
	// One worker: one search per core (slots), whatever the level.
	think := t.Level.Think
	think.Workers, think.Seed = 1, uint64(t.Board)<<16|uint64(moves)
	res, err := t.Robot.Think(ctx, t.Position, think)
	if err != nil {
		// Stopped by a shutdown: the game still waits for the next start.
		return
	}
	// The move is played with its board mails (engine/daemon), unless the
	// game changed meanwhile; the commit wakes the sender and the web.
	err = p.a.daemon().RobotMove(ctx, t, res.Move)
	if errors.Is(err, daemon.ErrMoveDropped) {
		p.a.log.Info("robot: game changed while it thought; move dropped", "board", t.Board)
		return
	}
	if err != nil {
		p.a.log.Error("robot: move not played", "board", t.Board, "error", err)
		return
	}
	p.a.log.LogAttrs(ctx, slog.LevelInfo, "robot moved", slog.Int("board", t.Board), slog.String("level", t.Level.ID),
		slog.String("move", res.Move.String()), slog.Int("playouts", res.Playouts),
		slog.Duration("waited", started.Sub(queued)), slog.Duration("thought", time.Since(started)))
}
