// Package benchstore builds a realistic store of many games, for sizing a
// server and measuring it (`lyngk bench-store`, `make bench-scale`): years
// of LYNGK and YINSH games played with random legal moves to their ends,
// resigned, forfeited and cancelled, rated as they ended, the running ones
// recent, with the reply tokens of the mails that a real server would
// still keep, among confirmed players of whom one is in a tenth of all
// games.
//
// It writes through the engine's own record code (engine.BulkAccount,
// BulkChallenge and BulkPlay: the records the commands write, every move
// through the game's rules) in large transactions, and leaves out only
// what the mails need: no mail is composed or queued, no picture drawn,
// and every account has the same precomputed password hash. The moves are
// drawn on all cores (the games' own fast move generators), the records
// written by one writer in board order; everything follows from the seed
// and the present (Options.Now), so a seed gives the same store twice.
//
// The time line: the games start at an even pace over Span before Now,
// the board numbers in the order of their starts; the running games are
// drawn from the latest starts and have moved within the forfeit period;
// the others end when their moves, resignation or forfeit say (never
// after Now), and the writer rates them in the order of their ends, as a
// server would have.
package benchstore

import (
	"container/heap"
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/engine/yinsh"
)

// The store's make-up beyond Options: every tenth game is YINSH and every
// tenth has the busy player, one of each in every block of ten boards.
const (
	yinshEvery = 10
	busyEvery  = 10
	// Busy is the userid of the busy player; the others are "player1"
	// and up, their addresses USERID@Domain.
	Busy   = "busy"
	Domain = "players.example"
	// Password is every account's password; PasswordHash its bcrypt hash
	// at bcrypt's default cost (made once: hashing a hundred thousand
	// passwords would cost more than the games).
	Password     = "bench-secret"
	PasswordHash = "$2a$10$YYgKp0/2O23nfkYUQrz8hu1/l9iuRXpW0YIB3nUR8zfR1tfYwdekG"
	// DefaultSpan is the time the games are spread over: ten years.
	DefaultSpan = 3652 * 24 * time.Hour
	// batch is the number of games started in one transaction.
	batch = 4096
)

// The endings of finished games, in per mille of the games that do not
// run: played out by the rules, resigned, forfeited by the timer, never
// moved by the second player (cancelled by the timer), declined.
const (
	perMilleRules   = 720
	perMilleResign  = 150
	perMilleForfeit = 70
	perMilleNever   = 30
)

// Options say what to build.
type Options struct {
	Games   int // number of games, at least 1
	Players int // accounts, the busy player among them; 0: one per 10 games (at least 3)
	Running int // games still running; -1: 2 % of Games
	Seed    uint64
	// Now is the store's present: the last game starts before it, and the
	// running games' clocks run from it. Zero: the time of the call.
	Now time.Time
	// Span is the time the games start over; 0: DefaultSpan.
	Span time.Duration
	// Progress, when set, is called after each transaction with the
	// games started so far.
	Progress func(done int)
}

// Summary counts what was written.
type Summary struct {
	Players int
	// Running and Finished count the games by game word.
	Running, Finished map[string]int
}

// Update runs fn in one read-write transaction of the store
// (store.DB.Update with its *store.Tx as the engine's Tx).
type Update func(fn func(tx engine.Tx) error) error

// withDefaults fills in the defaults and checks o.
func (o Options) withDefaults() (Options, error) {
	if o.Games < 1 {
		return o, fmt.Errorf("benchstore: %d games: at least 1", o.Games)
	}
	if o.Players == 0 {
		o.Players = max(3, o.Games/10)
	}
	if o.Running < 0 {
		o.Running = o.Games / 50
	}
	if o.Players < 3 || o.Running > o.Games {
		return o, fmt.Errorf("benchstore: %d players (at least 3), %d running of %d games", o.Players, o.Running, o.Games)
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	o.Now = o.Now.UTC().Truncate(time.Second)
	if o.Span == 0 {
		o.Span = DefaultSpan
	}
	return o, nil
}

// plan is one game as drawn: its players, moves and end.
type plan struct {
	i       int
	game    string
	players [2]string
	start   time.Time
	moves   []string
	times   []time.Time
	end     engine.Ending // EndRules: played out, or running
	endAt   time.Time
	running bool
	tokens  bool // its tokens are still kept at Now
	board   int
}

// Generate writes the store: e must offer LYNGK and YINSH; update runs
// the transactions of the store, which must hold no game yet.
func Generate(ctx context.Context, e *engine.Engine, update Update, o Options) (Summary, error) {
	o, err := o.withDefaults()
	if err != nil {
		return Summary{}, err
	}
	for _, name := range []string{lyngk.Rules.Name(), yinsh.Rules.Name()} {
		if _, ok := e.Game(name); !ok {
			return Summary{}, fmt.Errorf("benchstore: the engine does not offer %s", name)
		}
	}
	g := &generator{o: o, e: e, sum: Summary{Running: map[string]int{}, Finished: map[string]int{}}, running: runningSet(o)}
	plans := make(chan []*plan, 2)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go g.draw(ctx, plans)
	done := 0
	for ps := range plans {
		if err := update(func(tx engine.Tx) error { return g.write(tx, ps) }); err != nil {
			return Summary{}, err
		}
		done += len(ps)
		if o.Progress != nil {
			o.Progress(done)
		}
	}
	if err := ctx.Err(); err != nil {
		return Summary{}, err
	}
	err = update(func(tx engine.Tx) error { return g.finish(tx) })
	return g.sum, err
}

// generator is one run of Generate.
type generator struct {
	o       Options
	e       *engine.Engine
	sum     Summary
	running map[int]bool // the indices of the running games
	created int          // accounts written: "busy", then player1 and up
	ending  ends         // started games that end later, by their end
	open    []*plan      // the running games
}

// runningSet draws the running games among the latest starts: from the
// last three times as many games as run.
func runningSet(o Options) map[int]bool {
	r := rand.New(rand.NewPCG(o.Seed, 1<<63))
	w := min(o.Games, 3*o.Running)
	idx := r.Perm(w)[:o.Running]
	set := make(map[int]bool, o.Running)
	for _, k := range idx {
		set[o.Games-w+k] = true
	}
	return set
}

// draw plays the games, a batch at a time on every core, and sends the
// batches in board order.
func (g *generator) draw(ctx context.Context, out chan<- []*plan) {
	defer close(out)
	workers := runtime.GOMAXPROCS(0)
	for first := 0; first < g.o.Games; first += batch {
		ps := make([]*plan, min(batch, g.o.Games-first))
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for k := w; k < len(ps); k += workers {
					ps[k] = g.plan(first + k)
				}
			})
		}
		wg.Wait()
		select {
		case out <- ps:
		case <-ctx.Done():
			return
		}
	}
}

// startOf is the start of game i: an even pace over Span.
func (g *generator) startOf(i int) time.Time {
	return g.o.Now.Add(-g.o.Span + time.Duration(float64(g.o.Span)*float64(i)/float64(g.o.Games)))
}

// available is the number of other players (player1 and up) signed up by
// game i: they join at the pace of the games, at least two at once.
func (g *generator) available(i int) int {
	others := g.o.Players - 1
	return max(2, min(others, 1+i*others/g.o.Games))
}

// plan draws game i from its own generator (the seed and i), so that the
// workers' order changes nothing.
func (g *generator) plan(i int) *plan {
	r := rand.New(rand.NewPCG(g.o.Seed, uint64(i)))
	block := rand.New(rand.NewPCG(g.o.Seed, uint64(i/yinshEvery)|1<<62))
	yinshAt, busyAt := block.IntN(yinshEvery), block.IntN(busyEvery)
	p := &plan{i: i, game: lyngk.Rules.Name(), start: g.startOf(i), running: g.running[i]}
	var moves []string
	if i%yinshEvery == yinshAt {
		p.game = yinsh.Rules.Name()
		moves = playYinsh(r)
	} else {
		moves = playLyngk(r, 101+i)
	}
	n := g.available(i)
	a := 1 + r.IntN(n)
	b := 1 + r.IntN(n-1)
	if b >= a {
		b++
	}
	p.players = [2]string{player(a), player(b)}
	if i%busyEvery == busyAt {
		p.players[r.IntN(2)] = Busy
	}
	g.shape(p, moves, r)
	return p
}

// player is the userid of account k (0 the busy player).
func player(k int) string {
	if k == 0 {
		return Busy
	}
	return fmt.Sprintf("player%d", k)
}

// playLyngk plays board's LYNGK game with uniformly drawn legal moves to
// its end and returns its record.
func playLyngk(r *rand.Rand, board int) []string {
	g := lyngk.New(board, lyngk.Standard)
	var buf []lyngk.Move
	for g.Status() == games.Playing && g.Turn() != 0 {
		buf = g.Legal(buf[:0])
		if err := g.Apply(buf[r.IntN(len(buf))]); err != nil {
			panic(fmt.Sprintf("benchstore: a legal LYNGK move refused: %v", err))
		}
	}
	return games.Strings(g.Moves())
}

// playYinsh plays a YINSH game with random turns (yinsh.RandomTurn) to its
// end and returns its record.
func playYinsh(r *rand.Rand) []string {
	g := yinsh.New(yinsh.Normal)
	for g.Status() == games.Playing && g.Turn() != 0 {
		if err := g.Apply(g.RandomTurn(r.IntN)); err != nil {
			panic(fmt.Sprintf("benchstore: a random YINSH turn refused: %v", err))
		}
	}
	return games.Strings(g.Moves())
}

// shape cuts the record where the game ends or stands now, and times it:
// a move takes from a minute to two days (three hours on average).
func (g *generator) shape(p *plan, full []string, r *rand.Rand) {
	forfeit := engine.DefaultForfeitAfter
	lastReal := len(full) - 1
	for lastReal > 0 && full[lastReal] == games.Pass {
		lastReal--
	}
	// cut returns the length of the record of the first k entries,
	// with the passes that follow the last of them.
	cut := func(k int) int {
		for k < len(full) && k > 0 && full[k] == games.Pass {
			k++
		}
		return k
	}
	gap := func() time.Duration {
		return time.Minute + min(time.Duration(r.ExpFloat64()*float64(3*time.Hour)), 48*time.Hour)
	}
	k := len(full)
	switch x := r.IntN(1000); {
	case p.running:
		k = cut(r.IntN(lastReal + 1))
	case x < perMilleRules:
	case x < perMilleRules+perMilleResign:
		p.end = engine.EndResign
		k = cut(2 + r.IntN(max(1, lastReal-2)))
	case x < perMilleRules+perMilleResign+perMilleForfeit:
		p.end = engine.EndForfeit
		k = cut(2 + r.IntN(max(1, lastReal-2)))
	case x < perMilleRules+perMilleResign+perMilleForfeit+perMilleNever:
		p.end, k = engine.EndForfeit, cut(r.IntN(2)) // the second player never moves
	default:
		p.end, k = engine.EndDeclined, 0
	}
	p.moves = full[:k]
	p.times = make([]time.Time, k)
	at := p.start
	for j := range p.moves {
		if p.moves[j] != games.Pass {
			at = at.Add(gap())
		}
		p.times[j] = at
	}
	// A running game has moved within the forfeit period: its moves are
	// squeezed between its start and a last move up to 20 days ago.
	if p.running {
		last := g.o.Now.Add(-time.Duration(r.Int64N(int64(20 * 24 * time.Hour))))
		if earliest := p.start.Add(time.Minute); last.Before(earliest) {
			last = earliest
		}
		p.fit(last)
		p.tokens = true
		return
	}
	p.endAt = at
	switch p.end {
	case engine.EndForfeit:
		p.endAt = at.Add(forfeit + time.Duration(r.Int64N(int64(time.Minute))))
	case engine.EndResign, engine.EndDeclined:
		p.endAt = at.Add(gap())
	}
	if latest := g.o.Now.Add(-time.Minute); p.endAt.After(latest) {
		// Squeezed to end before Now; a forfeit keeps its full period
		// when there is room for it, else the player resigns.
		wait := p.endAt.Sub(at)
		if p.end == engine.EndForfeit && latest.Sub(p.start) <= wait+time.Minute {
			p.end, wait = engine.EndResign, time.Minute
			if len(p.moves) < 2 {
				p.end = engine.EndDeclined
			}
		}
		p.fit(latest.Add(-wait))
		p.endAt = latest
	}
	p.tokens = g.o.Now.Sub(p.endAt) < engine.TokenKeep
}

// fit scales the move times of p to end at last (kept after its start).
func (p *plan) fit(last time.Time) {
	if len(p.times) == 0 {
		return
	}
	span := p.times[len(p.times)-1].Sub(p.start)
	want := last.Sub(p.start)
	if span <= 0 || want <= 0 {
		return
	}
	for j, t := range p.times {
		p.times[j] = p.start.Add(time.Duration(float64(t.Sub(p.start)) * float64(want) / float64(span)))
	}
}

// write starts the games of ps, after the accounts they need and the ends
// of the games that end before each start.
func (g *generator) write(tx engine.Tx, ps []*plan) error {
	for _, p := range ps {
		for len(g.ending) > 0 && !g.ending[0].endAt.After(p.start) {
			if err := g.end(tx, heap.Pop(&g.ending).(*plan)); err != nil {
				return err
			}
		}
		if err := g.accounts(tx, 1+g.available(p.i), p.start.Add(-time.Hour)); err != nil {
			return err
		}
		board, err := g.e.BulkChallenge(tx, p.game, "", p.players, p.start, p.tokens)
		if err != nil {
			return err
		}
		if want := 101 + p.i; board != want {
			return fmt.Errorf("benchstore: game %d got board %d, not %d: the store held games already", p.i, board, want)
		}
		p.board = board
		if p.running {
			g.open = append(g.open, p)
		} else {
			heap.Push(&g.ending, p)
		}
	}
	return nil
}

// accounts writes the accounts up to n (the busy player and player1 to
// player n-1), signed up at created.
func (g *generator) accounts(tx engine.Tx, n int, created time.Time) error {
	for ; g.created < n; g.created++ {
		id := player(g.created)
		if err := g.e.BulkAccount(tx, id, id+"@"+Domain, PasswordHash, created); err != nil {
			return err
		}
		g.sum.Players++
	}
	return nil
}

// end plays p's moves and ends it.
func (g *generator) end(tx engine.Tx, p *plan) error {
	if err := g.e.BulkPlay(tx, p.board, p.moves, p.times, p.end, p.endAt, p.tokens); err != nil {
		return err
	}
	if p.running {
		g.sum.Running[p.game]++
	} else {
		g.sum.Finished[p.game]++
	}
	return nil
}

// finish ends the games that end after the last start, plays the running
// games' moves so far, signs up the players who never played, and counts.
func (g *generator) finish(tx engine.Tx) error {
	for len(g.ending) > 0 {
		if err := g.end(tx, heap.Pop(&g.ending).(*plan)); err != nil {
			return err
		}
	}
	for _, p := range g.open {
		if err := g.end(tx, p); err != nil {
			return err
		}
	}
	return g.accounts(tx, g.o.Players, g.o.Now.Add(-time.Hour))
}

// ends is a heap of started games by their end (then board).
type ends []*plan

func (h ends) Len() int { return len(h) }
func (h ends) Less(i, j int) bool {
	if !h[i].endAt.Equal(h[j].endAt) {
		return h[i].endAt.Before(h[j].endAt)
	}
	return h[i].board < h[j].board
}
func (h ends) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *ends) Push(x any)   { *h = append(*h, x.(*plan)) }
func (h *ends) Pop() any {
	old := *h
	p := old[len(old)-1]
	*h = old[:len(old)-1]
	return p
}
