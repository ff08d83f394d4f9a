package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/games"
)

// e2eLoad is many games played at once. The players share the mailboxes
// load0..loadN (loadK@ takes loadK+anything@); the To: header tells them
// apart. Their mail is either in Dovecot beside the robot's, one IMAP watcher
// a mailbox, or hosted elsewhere: see startRemote.
type e2eLoad struct {
	env   *e2eEnv
	boxes []*e2eMailbox
	games []*e2eGame
	// formatted is the format every player is on ("" for the default).
	formatted string
}

// e2eWait bounds every wait for one mail under load.
const e2eWait = 60 * time.Second

// e2eWhere says where the load test's players have their mail.
type e2eWhere int

const (
	// e2eSameHost: in the robot's Dovecot, read over IMAP, so the machine
	// does the players' deliveries and mail reading too.
	e2eSameHost e2eWhere = iota
	// e2eElsewhere: at the players' own providers, as for nearly every real
	// player: Postfix relays the robot's mail to them over SMTP (see
	// startRemote), and Dovecot holds only the robot's mailbox.
	e2eElsewhere
)

// newLoad signs up 2n players and starts n games, all mails sent at once.
func (e *e2eEnv) newLoad(tb testing.TB, n int, where e2eWhere) *e2eLoad {
	tb.Helper()
	l := &e2eLoad{env: e, games: make([]*e2eGame, n)}
	var locals []string
	for u := range e.password {
		if strings.HasPrefix(u, "load") {
			locals = append(locals, u)
		}
	}
	slices.Sort(locals)
	domain, folder := e.domain, "INBOX"
	if where == e2eElsewhere {
		domain, folder = e.remoteDomain, "(relayed by SMTP)"
	}
	// Each player waits on a box of his own, so that a mail wakes only the
	// player it is for; byAddr files a mail by its (lower-case) recipient.
	players := make([]*e2ePlayer, 2*n)
	byAddr := map[string]*e2eMailbox{}
	for i := range players {
		user := fmt.Sprintf("p%03d", i)
		addr := locals[i%len(locals)] + "+" + user + "@" + domain
		players[i] = &e2ePlayer{user: user, password: "pw-" + user, addr: addr, box: newE2EMailbox(tb, addr, folder)}
		byAddr[strings.ToLower(addr)] = players[i].box
	}
	if where == e2eElsewhere {
		e.startRemote(tb, byAddr)
		for _, p := range players {
			l.boxes = append(l.boxes, p.box)
		}
	} else {
		// The watcher of each shared mailbox hands every mail on to the
		// box of the player it is for.
		route := func(m *e2eMail) {
			if b := byAddr[strings.ToLower(m.To)]; b != nil {
				b.add(m)
			}
		}
		for _, local := range locals {
			e.clearMailbox(tb, local, "INBOX")
			l.boxes = append(l.boxes, e.watchShared(tb, local, route))
		}
		for i, p := range players {
			p.box.feed = l.boxes[i%len(locals)]
		}
	}
	start := time.Now()
	if err := e2eEach(len(players), func(i int) error { return e.signup(players[i], e2eWait) }); err != nil {
		tb.Fatal(err)
	}
	err := e2eEach(n, func(i int) error {
		gm, err := e.challenge(players[2*i], players[2*i+1], uint64(i), 0, e2eWait)
		l.games[i] = gm
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Logf("load: %d players signed up, %d games started in %v", 2*n, n, time.Since(start).Round(time.Millisecond))
	return l
}

// e2eEach runs f(0..n-1) concurrently and joins their errors.
func e2eEach(n int, f func(i int) error) error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = f(i) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// e2eLoadResult is what one burst of moves measured.
type e2eLoadResult struct {
	moves   int
	elapsed time.Duration
	latency []time.Duration // submission to the next board mail fetched
	// gameOver is latency for the moves that ended a game: their
	// game-over mails wait for the robot's review (engine.ReviewWait at
	// most, the review worker giving way to a busy outbox).
	gameOver []time.Duration
}

func (r e2eLoadResult) rate() float64 { return float64(r.moves) / r.elapsed.Seconds() }

// play has every game make moves moves, each game on its own as fast as
// the replies come (a game's next move waits for the board mail of the
// last). A game that ends is challenged again.
func (l *e2eLoad) play(moves int) (e2eLoadResult, error) {
	var mu sync.Mutex
	var res e2eLoadResult
	start := time.Now()
	err := e2eEach(len(l.games), func(i int) error {
		for range moves {
			gm := l.games[i]
			if gm.g.Status() != games.Playing {
				next, err := l.env.challenge(gm.players[0], gm.players[1], uint64(i), gm.board, e2eWait)
				if err != nil {
					return err
				}
				l.games[i], gm = next, next
			}
			mv := gm.pick()
			// Plain replies: a full command costs the robot a password
			// check (bcrypt), which is not what this measures.
			out := gm.moveMail(mv, e2ePlainReply)
			t0 := time.Now()
			if err := l.env.submit(out); err != nil {
				return err
			}
			next, err := gm.played(mv)
			if err != nil {
				return err
			}
			ended := gm.g.Status() != games.Playing
			wait := e2eWait
			if ended {
				wait += engine.ReviewWait
			}
			var lat time.Duration
			for _, p := range next {
				m, err := gm.await(p, wait)
				if err != nil {
					return err
				}
				lat = max(lat, m.Fetched.Sub(t0))
			}
			mu.Lock()
			res.moves++
			if ended {
				res.gameOver = append(res.gameOver, lat)
			} else {
				res.latency = append(res.latency, lat)
			}
			mu.Unlock()
		}
		return nil
	})
	res.elapsed = time.Since(start)
	return res, err
}

// format puts every player on format ("html" or "text") by mail, unless
// they are on it already, and waits for each answer.
func (l *e2eLoad) format(format string) error {
	if l.formatted == format || l.formatted == "" && format == "html" {
		return nil
	}
	want := map[string]string{"html": "now come as text and as a web page", "text": "now come as plain text only"}[format]
	var players []*e2ePlayer
	for _, gm := range l.games {
		players = append(players, gm.players[:]...)
	}
	err := e2eEach(len(players), func(i int) error {
		p := players[i]
		seen := len(p.box.all())
		m := &e2eOut{From: p.addr, To: l.env.robot(), Subject: fmt.Sprintf("change format %s %s %s", p.user, p.password, format), Body: "\n"}
		if err := l.env.submit(m); err != nil {
			return err
		}
		n := 0
		_, err := p.box.find(e2eWait, func(m *e2eMail) (bool, error) {
			n++
			return n > seen && m.To == p.addr && strings.Contains(m.Body, want), nil
		})
		return err
	})
	if err == nil {
		l.formatted = format
	}
	return err
}

// mails returns every mail the players got.
func (l *e2eLoad) mails() []*e2eMail {
	var all []*e2eMail
	for _, b := range l.boxes {
		all = append(all, b.all()...)
	}
	return all
}

// e2eEnvInt reads a size from the environment, for bigger runs by hand.
func e2eEnvInt(tb testing.TB, name string, def int) int {
	tb.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		tb.Fatalf("%s=%q: want a positive number", name, s)
	}
	return n
}

// e2ePercentile returns the p-th percentile (0 < p <= 100) of ds, nearest rank.
func e2ePercentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(math.Ceil(float64(len(s))*p/100)) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func e2eMillis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// e2eCPUBusy returns the CPU time the whole machine has spent outside idle
// and I/O wait since boot, from /proc/stat.
func e2eCPUBusy(tb testing.TB) time.Duration {
	tb.Helper()
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		tb.Fatal(err)
	}
	line, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		tb.Fatalf("/proc/stat: unexpected first line %q", line)
	}
	var ticks int64
	for i, v := range f[1:9] {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			tb.Fatalf("/proc/stat: %v", err)
		}
		ticks += n
	}
	// USER_HZ is 100 on every Linux this runs on.
	return time.Duration(ticks) * 10 * time.Millisecond
}
