package main

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
)

// End-to-end tests and benchmarks of `lyngk serve` against real Dovecot and
// Postfix. Run them with .ci/e2e.sh, or by hand:
//
//	sudo .ci/mailservers.sh start /tmp/e2e
//	LYNGK_E2E=1 LYNGK_E2E_DIR=/tmp/e2e go test -run E2E -bench E2E -benchtime 1x -v ./cmd/lyngk/
//	sudo .ci/mailservers.sh stop /tmp/e2e

// e2eMoveWait bounds the wait for one board mail when nothing is broken on
// purpose (Postfix may still be retrying a delivery to a restarted Dovecot).
const e2eMoveWait = 30 * time.Second

// e2eOutageWait bounds the wait for a reply that the robot could not send
// while Postfix was down, from Postfix's return (the promise: the whole outbox
// within 60 s of the relay's return, whatever the outage's length).
const e2eOutageWait = 60 * time.Second

// e2eLongOutage is how long Postfix stays down at move e2eSMTPDown, counted
// from the robot's first failed submission to its last one before Postfix
// returns: it outlasts two steps of the mails' own retry schedule (30 s,
// then 1 min), so a sender that spent them on the outage would hold the
// reply back until 3.5 min after the first try. At move e2eKillQueued
// Postfix is back after the robot's first failure.
const e2eLongOutage = 100 * time.Second

// The scenario breaks the mail system before these moves (1-based).
const (
	e2eRestartBefore   = 4  // restart Dovecot between two moves: the robot's IDLE connection dies
	e2eRestartInFlight = 6  // restart Dovecot right after a submission: Postfix must retry the LMTP delivery
	e2eSMTPDown        = 8  // Postfix down: the move reaches Dovecot by LMTP, the reply waits in the outbox
	e2eKillAfterSend   = 10 // SIGKILL lyngk serve right after a submission, then start it again
	e2eKillQueued      = 12 // Postfix down and lyngk killed while the reply sits in the outbox
	e2eRedeliver       = 14 // the robot gets the same mail (same Message-ID) a second time
)

// TestE2EGame plays a whole game between two scripted players through
// Postfix and Dovecot, breaking the mail system on the way; every board mail
// must show exactly the position of the test's own copy of the game.
//
// The robot runs as a real deployment does: IMAP over implicit TLS and
// submission with STARTTLS and AUTH PLAIN, both verified against the test's
// CA (tls_ca_file).
func TestE2EGame(t *testing.T) {
	e := e2eSetup(t)
	srv := e.startServer(t, e2eTLS)
	alice, bob, gm := e.startGame(t, 25*time.Millisecond, 1)
	t.Logf("board %d started", gm.board)
	// The robot's Processed folder shows when a mail has been applied.
	processed := e.watch(t, "lyngk", "Processed", 25*time.Millisecond)

	for k := 1; gm.g.Status() == games.Playing; k++ {
		srv.checkRunning()
		mv := gm.pick()
		style := e2eStyle((k - 1) % 3)
		out := gm.moveMail(mv, style)
		t.Logf("move %d: %s plays %v (%v)", k, gm.players[gm.g.Turn()-1].user, mv, style)
		wait := e2eMoveWait
		switch k {
		case e2eRestartBefore:
			e.ctl(t, "restart-imap")
			e2eSubmit(t, e, out)
		case e2eRestartInFlight:
			e2eSubmit(t, e, out)
			e.ctl(t, "restart-imap")
		case e2eSMTPDown, e2eKillQueued:
			e.ctl(t, "stop-smtp")
			if err := e.deliverLMTP(out); err != nil {
				t.Fatal(err)
			}
			e2eAwaitApplied(t, processed, out.MessageID, 1)
			if k == e2eKillQueued {
				srv.kill()
				srv.start()
			}
			// The robot must have tried to send the reply and failed (after
			// a restart, the mail may first wait for its relay backoff).
			const failed = "SMTP relay failed"
			before := len(srv.logLines(failed))
			lines := srv.awaitLog(failed, before+1, e2eOutageWait)
			if k == e2eSMTPDown {
				// Down until the robot has failed for e2eLongOutage.
				srv.awaitLogAfter(failed, e2eLogTime(t, lines[before]).Add(e2eLongOutage), e2eLongOutage+e2eOutageWait)
			}
			wait = e2eOutageWait
		case e2eKillAfterSend:
			e2eSubmit(t, e, out)
			srv.kill()
			srv.start()
		default:
			e2eSubmit(t, e, out)
		}
		next, err := gm.played(mv)
		if err != nil {
			t.Fatal(err)
		}
		if gm.g.Status() != games.Playing {
			// The game-over mails wait for the robot's review, at most
			// engine.ReviewWait.
			wait += engine.ReviewWait
		}
		if k == e2eSMTPDown || k == e2eKillQueued {
			for _, p := range next {
				if m := e2eFindNow(p.box, gm.boardMail(p)); m != nil {
					t.Fatalf("move %d: board mail %q reached %s while Postfix was down", k, m.Subject, p.user)
				}
			}
			e.ctl(t, "start-smtp")
		}
		start := time.Now()
		for _, p := range next {
			if _, err := gm.await(p, wait); err != nil {
				t.Fatalf("move %d: %v", k, err)
			}
		}
		t.Logf("move %d: board mail after %v", k, time.Since(start).Round(time.Millisecond))
		if k == e2eRedeliver {
			if err := e.deliverLMTP(out); err != nil {
				t.Fatal(err)
			}
			e2eAwaitApplied(t, processed, out.MessageID, 2)
		}
	}
	if n := len(gm.sent); n < e2eRedeliver {
		t.Fatalf("the game ended after %d moves, before the scenario's last step (move %d): change the seed", n, e2eRedeliver)
	}

	// The final mails already matched the test's copy; say it once more in
	// the words of the promise: the moves sent, each once, in order.
	var played []string
	for _, m := range gm.last[0].board.Moves {
		if m != lyngk.Pass.String() {
			played = append(played, m)
		}
	}
	if !slices.Equal(played, gm.sent) {
		t.Errorf("final move list without passes %q, want the moves sent %q", played, gm.sent)
	}
	t.Logf("board %d over after %d moves: %s", gm.board, gm.g.MoveCount(), gm.last[0].board.Status)

	// Once the robot and Postfix are done, anything doubled is in the boxes.
	e.settle(t, srv, e2eMoveWait, alice.box, bob.box)
	for _, p := range []*e2ePlayer{alice, bob} {
		n := e2eTally(t, p.box.all(), true)
		t.Logf("%s got %d distinct board mails", p.user, n)
	}
}

// e2eSubmit sends a player's mail through Postfix.
func e2eSubmit(tb testing.TB, e *e2eEnv, out *e2eOut) {
	tb.Helper()
	if err := e.submit(out); err != nil {
		tb.Fatal(err)
	}
}

// e2eAwaitApplied waits until the robot has moved the n-th copy of the mail
// with this Message-ID to its Processed folder.
func e2eAwaitApplied(tb testing.TB, processed *e2eMailbox, id string, n int) {
	tb.Helper()
	seen := 0
	_, err := processed.find(e2eMoveWait, func(m *e2eMail) (bool, error) {
		if m.MessageID == id {
			seen++
		}
		return seen == n, nil
	})
	if err != nil {
		tb.Fatalf("mail %s (copy %d) not in the robot's Processed folder: %v", id, n, err)
	}
}

// e2eFindNow returns a mail that already matches, without waiting.
func e2eFindNow(box *e2eMailbox, match func(*e2eMail) (bool, error)) *e2eMail {
	for _, m := range box.all() {
		if ok, _ := match(m); ok {
			return m
		}
	}
	return nil
}

// TestE2ELoad plays many games at once and checks that every move was
// answered, correctly and exactly once: with the players' mail in the same
// Dovecot, and with it hosted elsewhere (relayed out by Postfix over SMTP).
func TestE2ELoad(t *testing.T) {
	e := e2eSetup(t)
	for _, tc := range []struct {
		name  string
		where e2eWhere
	}{{"SameHost", e2eSameHost}, {"PlayersElsewhere", e2eElsewhere}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := e.startServer(t, e2ePlain)
			l := e.newLoad(t, e2eEnvInt(t, "LYNGK_E2E_LOAD_GAMES", 20), tc.where)
			res, err := l.play(e2eEnvInt(t, "LYNGK_E2E_LOAD_MOVES", 5))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d moves in %v: %.1f moves/s; latency p50 %v, p99 %v; %d games ended", res.moves, res.elapsed.Round(time.Millisecond),
				res.rate(), e2ePercentile(res.latency, 50), e2ePercentile(res.latency, 99), len(res.gameOver))
			e.settle(t, srv, e2eMoveWait, l.boxes...)
			t.Logf("%d distinct board mails", e2eTally(t, l.mails(), false))
		})
	}
}

// BenchmarkE2ELatency measures, one move at a time, from a player's SMTP
// submission to the board mail visible in the opponent's IMAP inbox:
// p50-ms, p99-ms and max-ms are a move's board mail. The move that ends a
// game is measured apart (gameover-p50-ms, gameover-max-ms, games): its
// game-over mail waits for the robot's review (engine/reviews.go), a
// different promise. The server's share counts every reply, the
// game-over mails' from the review's commit.
func BenchmarkE2ELatency(b *testing.B) {
	e := e2eSetup(b)
	srv := e.startServer(b, e2ePlain)
	for _, u := range []string{"alice", "bob"} {
		e.clearMailbox(b, u, "INBOX") // mail of an earlier run must not be taken for an answer
	}
	alice, bob, gm := e.startGame(b, 5*time.Millisecond, 2)
	var err error
	var lat, over []time.Duration
	k := 0
	logFrom := e2eLogSize(b, srv.logPath) // the server's share is measured on moves only
	for b.Loop() {
		if gm.g.Status() != games.Playing {
			if gm, err = e.challenge(alice, bob, 2, gm.board, e2eMoveWait); err != nil {
				b.Fatal(err)
			}
		}
		mv := gm.pick()
		out := gm.moveMail(mv, e2eStyle(k%2))
		k++
		t0 := time.Now()
		e2eSubmit(b, e, out)
		next, err := gm.played(mv)
		if err != nil {
			b.Fatal(err)
		}
		ended := gm.g.Status() != games.Playing
		wait := e2eMoveWait
		if ended {
			wait += engine.ReviewWait
		}
		m, err := gm.await(next[0], wait)
		if err != nil {
			b.Fatal(err)
		}
		if ended {
			over = append(over, m.Fetched.Sub(t0))
		} else {
			lat = append(lat, m.Fetched.Sub(t0))
		}
		if d := m.Fetched.Sub(t0); d > 2*time.Second && !ended {
			// Worth a look in the server's and the mail servers' logs.
			b.Logf("slow reply: %s submitted at %s, board mail %s fetched after %v",
				out.MessageID, t0.Format(time.StampMilli), m.MessageID, d.Round(time.Millisecond))
		}
		for _, p := range next[1:] {
			if _, err := gm.await(p, wait); err != nil {
				b.Fatal(err)
			}
		}
	}
	if len(over) > 0 {
		b.ReportMetric(e2eMillis(e2ePercentile(over, 50)), "gameover-p50-ms")
		b.ReportMetric(e2eMillis(slices.Max(over)), "gameover-max-ms")
		b.ReportMetric(float64(len(over)), "games")
	}
	b.ReportMetric(e2eMillis(e2ePercentile(lat, 50)), "p50-ms")
	b.ReportMetric(e2eMillis(e2ePercentile(lat, 99)), "p99-ms")
	b.ReportMetric(e2eMillis(slices.Max(lat)), "max-ms")
	if share := e2eServerShare(b, srv.logPath, logFrom); len(share) > 0 {
		b.ReportMetric(e2eMillis(e2ePercentile(share, 50)), "server-p50-ms")
		b.ReportMetric(e2eMillis(e2ePercentile(share, 99)), "server-p99-ms")
	}
}

// e2eLogSize is the current size of the server's log.
func e2eLogSize(tb testing.TB, path string) int64 {
	tb.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return fi.Size()
}

// e2eServerShare reads the server's own share of each reply (from the mail
// in hand to the reply accepted by Postfix) from its debug log lines
// "reply accepted … server_share=D" written after offset.
func e2eServerShare(tb testing.TB, path string, offset int64) []time.Duration {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var out []time.Duration
	for _, line := range strings.Split(string(data[min(offset, int64(len(data))):]), "\n") {
		if !strings.Contains(line, `msg="reply accepted"`) {
			continue
		}
		_, v, ok := strings.Cut(line, "server_share=")
		if !ok {
			continue
		}
		v, _, _ = strings.Cut(v, " ")
		if d, err := time.ParseDuration(v); err == nil {
			out = append(out, d)
		}
	}
	return out
}

// BenchmarkE2EThroughput plays many games at once; each iteration is a burst
// of LYNGK_E2E_LOAD_MOVES moves in each of LYNGK_E2E_LOAD_GAMES games, all
// answered before the next burst, twice: first with every player on the
// default format (board mails of text and HTML with the picture), then
// with every player on `change format ... text`. moves/s counts
// move mails applied and answered through Postfix and Dovecot, for each
// format (moves/s-html, moves/s-text; moves/s is html's), with the
// machine's CPU per move of each and their ratio (cpu-ratio, html over
// text). Each game waits for its board mail before the next move, so it
// takes some 200 games at once to keep both cores busy.
//
// This is the robot host as deployed: the players' mail is hosted elsewhere,
// so the robot's two board mails a move leave through Postfix over SMTP (to
// the test, standing for the players' providers) and Dovecot holds only the
// robot's mailbox. BenchmarkE2EThroughputSameHost puts the players'
// mailboxes on this machine as well.
func BenchmarkE2EThroughput(b *testing.B) { e2eBenchThroughput(b, e2eElsewhere) }

// BenchmarkE2EThroughputSameHost is BenchmarkE2EThroughput with the players'
// mailboxes in the robot's Dovecot, read over IMAP (IDLE): every move is then
// three deliveries into Dovecot and two IMAP readers besides the robot, all
// on the same two cores. A board mail waits for Dovecot's IDLE notification
// (up to half a second).
func BenchmarkE2EThroughputSameHost(b *testing.B) { e2eBenchThroughput(b, e2eSameHost) }

// e2eFormatOrder is the order of the formats' bursts: html then text,
// unless LYNGK_E2E_FORMATS=text,html (each burst's cost may depend on what
// the mail servers went through before it).
func e2eFormatOrder(tb testing.TB) []string {
	switch v := os.Getenv("LYNGK_E2E_FORMATS"); v {
	case "", "html,text":
		return []string{"html", "text"}
	case "text,html":
		return []string{"text", "html"}
	default:
		tb.Fatalf("LYNGK_E2E_FORMATS=%q: want html,text or text,html", v)
		return nil
	}
}

func e2eBenchThroughput(b *testing.B, where e2eWhere) {
	e := e2eSetup(b)
	srv := e.startServer(b, e2ePlain)
	l := e.newLoad(b, e2eEnvInt(b, "LYNGK_E2E_LOAD_GAMES", 200), where)
	moves := e2eEnvInt(b, "LYNGK_E2E_LOAD_MOVES", 15)
	var total [2]e2eLoadResult // html, text
	var busy [2]time.Duration
	meter := e.newCPUMeter(b, srv)
	for b.Loop() {
		for _, format := range e2eFormatOrder(b) {
			f := map[string]int{"html": 0, "text": 1}[format]
			if err := l.format(format); err != nil {
				b.Fatal(err)
			}
			cpu0 := e2eCPUBusy(b)
			phase := meter.phase(srv, strings.TrimPrefix(b.Name(), "Benchmark")+"-"+format)
			res, err := l.play(moves)
			// Before phase.end, which may wait for the last piece of a
			// profile: that wait is no part of the burst.
			busy[f] += e2eCPUBusy(b) - cpu0
			if err != nil {
				b.Fatal(err)
			}
			phase.end(b, format, res.moves)
			total[f].moves += res.moves
			total[f].elapsed += res.elapsed
			total[f].latency = append(total[f].latency, res.latency...)
			total[f].gameOver = append(total[f].gameOver, res.gameOver...)
		}
	}
	html, text := total[0], total[1]
	b.ReportMetric(html.rate(), "moves/s")
	b.ReportMetric(html.rate(), "moves/s-html")
	b.ReportMetric(text.rate(), "moves/s-text")
	// The machine's CPU time per move, all processes together (Postfix,
	// Dovecot, lyngk and the test's players): what bounds the rate once
	// both cores are busy.
	cpuHTML := e2eMillis(busy[0]) / float64(html.moves)
	cpuText := e2eMillis(busy[1]) / float64(text.moves)
	b.ReportMetric(cpuHTML, "cpu-ms/move")
	b.ReportMetric(cpuHTML, "cpu-ms/move-html")
	b.ReportMetric(cpuText, "cpu-ms/move-text")
	b.ReportMetric(cpuHTML/cpuText, "cpu-ratio")
	b.ReportMetric(busy[0].Seconds()/html.elapsed.Seconds(), "cores-busy-html")
	b.ReportMetric(busy[1].Seconds()/text.elapsed.Seconds(), "cores-busy-text")
	// The throughput target is 100 moves/s; CI can hold the server to a
	// floor with LYNGK_E2E_MIN_RATE once the machine allows it.
	if floor := e2eEnvInt(b, "LYNGK_E2E_MIN_RATE", 1); html.rate() < float64(floor) {
		b.Errorf("%.1f moves/s, below LYNGK_E2E_MIN_RATE=%d", html.rate(), floor)
	}
	b.ReportMetric(e2eMillis(e2ePercentile(html.latency, 50)), "p50-ms")
	b.ReportMetric(e2eMillis(e2ePercentile(html.latency, 99)), "p99-ms")
	if over := slices.Concat(html.gameOver, text.gameOver); len(over) > 0 {
		// The moves that ended a game, apart: their game-over mails wait
		// for the robot's review, which gives way to a busy outbox.
		b.ReportMetric(e2eMillis(e2ePercentile(over, 50)), "gameover-p50-ms")
		b.ReportMetric(float64(len(over)), "games")
	}
	b.StopTimer()
	e.settle(b, srv, e2eMoveWait, l.boxes...)
	e2eTally(b, l.mails(), false)
}
