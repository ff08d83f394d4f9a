package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/benchstore"
	"lyngk.example/lyngk/engine/daemon"
	"lyngk.example/lyngk/store"
)

// The store-size benchmark (make bench-scale): stores of 1k, 10k and 100k
// games (1M with LYNGK_BENCH_SCALE_MAX=1000000) written by bench-store,
// and on each the operations whose cost grows with the store, measured on
// this machine:
//
//   - the mail commands, through a running `lyngk serve` (its control
//     socket, as `lyngk process` hands a mail to the daemon): server time
//     is from the mail handed over to the replies back;
//   - the web pages, through the same daemon's web listener: time to the
//     last byte, and the page's size;
//   - the minute timer as the daemon runs it (daemon.Tick: its pictures
//     drawn first, then the outbox's expiry, engine.Tick and its mails
//     composed and queued in one write transaction), with nothing due and
//     with reminders due (and, in turns, with their pictures drawn
//     inside the transaction, as before), and the hourly prune (a tick an
//     hour after the last one, which prunes): the time each held the
//     write lock, which
//     daemon.WriteBound states, and the mails queued a tick; in a process
//     of their own (this test binary again);
//   - the daemon's start-up: from the process started to its web
//     listener's line, the first start (which upgrades a store of an
//     older schema) and the next;
//   - the daemon's resident memory after the pages, and after
//     benchRandomLoads loads of pages drawn at random (game pages, player
//     pages, pages of /games and of the standings after a random cursor,
//     the front page): VmRSS, and of it RssAnon, the process's own memory
//     (VmRSS also counts the pages of the mmapped store file it touched,
//     which are the kernel's page cache: dropped under memory pressure,
//     shared with every reader of the file);
//   - the file's size.
//
// LYNGK_BENCH_SCALE_STORES, a path with %d for the number of games
// ("/tmp/scale-%d.db"), names stores to reuse instead of writing them:
// a copy of each that exists is measured (the daemon changes its store),
// so that a million games, written once, serve several runs, and a store
// written by an older release is measured after its upgrade.
// LYNGK_BENCH_SCALE_BIN measures that lyngk binary's serve (an older
// release, for a figure before a change) instead of this tree's; the
// timer process is this tree's in any case.
//
// Each operation runs until it has had benchSamples samples or
// benchBudget of time, at least benchMinSamples times; CPU is the
// daemon's (or the timer process's) CPU time per sample, RSS its resident
// memory after them. The table goes to stdout, in the form of
// deploy/BENCHMARKS.md.
const (
	benchSamples     = 20
	benchMinSamples  = 3
	benchBudget      = 10 * time.Second
	benchRandomLoads = 10000
)

// benchMail are the mail commands measured, benchPages the pages.
var (
	benchMail  = []string{"lyngk games busy", "lyngk history busy", "lyngk show busy", "all show busy", "lyngk standings", "lyngk ratings"}
	benchPages = []string{"/", "/games", pageFive, "/player/" + benchstore.Busy, "/standings"}
)

// pageFive stands in benchPages for page 5 of /games as its links reach
// it (after the last game of page 4), found by following them from page 1
// (the last page of a store of fewer pages).
const pageFive = "/games page 5"

// nextPage is the link of a /games page to the next.
var nextPage = regexp.MustCompile(`<a href="(/games\?[^"]*)">page \d+</a>`)

// sample is one operation's figures at one size.
type sample struct {
	Op       string
	P50, P99 time.Duration
	N        int
	CPU      time.Duration // per sample
	RSS      int64         // bytes, after the samples
	Bytes    int           // the page's size (web)
	Mails    float64       // mails queued per sample (the timer)
}

func TestBenchScale(t *testing.T) {
	maxSize, _ := strconv.Atoi(os.Getenv("LYNGK_BENCH_SCALE_MAX"))
	if maxSize == 0 {
		t.Skip("the store-size benchmark runs with make bench-scale (LYNGK_BENCH_SCALE_MAX)")
	}
	dir := t.TempDir()
	bin := os.Getenv("LYNGK_BENCH_SCALE_BIN")
	if bin == "" {
		bin = filepath.Join(dir, "lyngk")
		if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
	}
	var sizes []int
	for n := 1000; n <= maxSize; n *= 10 {
		sizes = append(sizes, n)
	}
	results := map[int][]sample{}
	extra := map[int]map[string]string{}
	for _, n := range sizes {
		data := filepath.Join(dir, fmt.Sprintf("store%d", n))
		if err := os.MkdirAll(data, 0o700); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(data, "lyngk.db")
		extra[n] = map[string]string{}
		if reuse := os.Getenv("LYNGK_BENCH_SCALE_STORES"); reuse != "" && fileExists(fmt.Sprintf(reuse, n)) {
			began := time.Now()
			copyFile(t, fmt.Sprintf(reuse, n), path)
			extra[n]["bench-store"] = "reused (copied in " + fmtDur(time.Since(began)) + ")"
		} else {
			began := time.Now()
			cmd := exec.Command(bin, "bench-store", "-db", path, "-games", strconv.Itoa(n))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("bench-store %d: %v\n%s", n, err, out)
			}
			extra[n]["bench-store"] = fmtDur(time.Since(began))
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		extra[n]["file"] = fmt.Sprintf("%d MB", st.Size()>>20)
		t.Logf("%d games: bench-store %s, %d MB", n, extra[n]["bench-store"], st.Size()>>20)
		d := startDaemon(t, bin, data)
		extra[n]["first start"] = fmtDur(d.start)
		d.stop(t)
		d = startDaemon(t, bin, data)
		extra[n]["start"] = fmtDur(d.start)
		results[n] = append(results[n], d.mails(t, path)...)
		results[n] = append(results[n], d.pages(t)...)
		extra[n]["serve RSS"] = fmt.Sprintf("%d MB", d.rss(t)>>20)
		per := d.randomPages(t, n)
		extra[n]["random RSS"] = fmt.Sprintf("%d MB, RssAnon %d MB (%s a page)", d.rss(t)>>20,
			procStatus(t, d.cmd.Process.Pid, "RssAnon:")>>20, fmtDur(per))
		d.stop(t)
		results[n] = append(results[n], timerProcess(t, path)...)
	}
	table := benchTable(sizes, results, extra)
	fmt.Print(table)
	if out := os.Getenv("LYNGK_BENCH_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(table), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// benchDaemon is a running lyngk serve on a bench store.
type benchDaemon struct {
	cmd  *exec.Cmd
	web  string
	done chan error
	// start is the time from the start of the process to its web
	// listener's line: the store opened (and upgraded, when it was
	// older), the listeners up.
	start time.Duration
}

func startDaemon(t *testing.T, bin, data string) *benchDaemon {
	t.Helper()
	cmd := exec.Command(bin, "serve", "-data", data, "-local-web", "127.0.0.1:0",
		"-local-smtp", "127.0.0.1:0", "-local-imap", "127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	began := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &benchDaemon{cmd: cmd, done: make(chan error, 1)}
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		if addr, ok := strings.CutPrefix(lines.Text(), "listening web "); ok {
			d.web, d.start = addr, time.Since(began)
			break
		}
	}
	if d.web == "" {
		cmd.Process.Kill()
		t.Fatal("lyngk serve printed no web address")
	}
	go func() {
		_, _ = io.Copy(io.Discard, stdout)
		d.done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
		}
	})
	d.idle(t)
	return d
}

// idle waits until the daemon has done its start (the first timer run
// included): its CPU time grows by less than 5 % over half a second.
func (d *benchDaemon) idle(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Minute)
	last := d.cpu(t)
	for time.Now().Before(deadline) {
		time.Sleep(500 * time.Millisecond)
		now := d.cpu(t)
		if now-last < 25*time.Millisecond {
			return
		}
		last = now
	}
	t.Fatal("lyngk serve never went idle")
}

// cpu is the daemon's CPU time so far (user and system, /proc).
func (d *benchDaemon) cpu(t *testing.T) time.Duration {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", d.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	// The fields after the command name in parentheses: utime and stime
	// are the 12th and 13th, in clock ticks (100 a second on Linux).
	stat := string(b)
	f := strings.Fields(stat[strings.LastIndexByte(stat, ')')+2:])
	user, _ := strconv.ParseInt(f[11], 10, 64)
	sys, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(user+sys) * 10 * time.Millisecond
}

// rss is the daemon's resident memory (VmRSS).
func (d *benchDaemon) rss(t *testing.T) int64 {
	t.Helper()
	return procStatus(t, d.cmd.Process.Pid, "VmRSS:")
}

func procStatus(t *testing.T, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

func (d *benchDaemon) stop(t *testing.T) {
	t.Helper()
	d.cmd.Process.Signal(syscall.SIGTERM)
	<-d.done
}

// measure runs f until it has its samples (see benchSamples) and returns
// the figures; cpu reads the CPU time of the process doing the work.
func measure(t *testing.T, op string, cpu func() time.Duration, f func(i int) int) sample {
	t.Helper()
	size := 0
	s := measureTimes(t, op, cpu, func(i int) time.Duration {
		began := time.Now()
		size = f(i)
		return time.Since(began)
	})
	s.Bytes = size
	return s
}

// measureTimes is measure of the times f returns, a part of each run
// (the write transaction of a tick); the CPU is the whole run's.
func measureTimes(t *testing.T, op string, cpu func() time.Duration, f func(i int) time.Duration) sample {
	t.Helper()
	var times []time.Duration
	began, c0 := time.Now(), cpu()
	for i := 0; i < benchSamples && (i < benchMinSamples || time.Since(began) < benchBudget); i++ {
		times = append(times, f(i))
	}
	s := timesSample(t, op, times)
	s.CPU = (cpu() - c0) / time.Duration(len(times))
	return s
}

// timesSample is the sample of op's times (sorted in place).
func timesSample(t *testing.T, op string, times []time.Duration) sample {
	t.Helper()
	slices.Sort(times)
	s := sample{Op: op, N: len(times), P50: times[len(times)/2], P99: times[(len(times)*99)/100]}
	t.Logf("%s: p50 %v p99 %v (%d)", op, s.P50, s.P99, s.N)
	return s
}

// mails runs each mail command through the daemon's control socket, each
// sample from another player (no sender's hourly allowance runs out).
func (d *benchDaemon) mails(t *testing.T, path string) []sample {
	t.Helper()
	var out []sample
	for k, command := range benchMail {
		s := measure(t, "mail `"+command+"`", func() time.Duration { return d.cpu(t) }, func(i int) int {
			from := fmt.Sprintf("player%d@%s", 1+(k*benchSamples+i)%90, benchstore.Domain)
			raw := fmt.Sprintf("From: %s\r\nTo: lyngk@localhost\r\nSubject: %s\r\nMessage-ID: <bench-%d-%d-%d@players.example>\r\n\r\n",
				from, command, k, i, time.Now().UnixNano())
			var replies strings.Builder
			err := withStore(path, "process mbox", []byte(raw), store.Limits{}, &replies, func(*store.DB) error {
				return fmt.Errorf("the daemon does not hold %s", path)
			})
			if err != nil || !strings.HasPrefix(replies.String(), "From ") {
				t.Fatalf("%s: %v, replies %q", command, err, replies.String())
			}
			return replies.Len()
		})
		s.RSS = d.rss(t)
		out = append(out, s)
	}
	return out
}

// fileExists reports whether path names an existing file.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// copyFile copies the store from to the new file to.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// randomPages loads benchRandomLoads pages drawn at random from a store
// of n games (bench-store's: boards 101 to 100+n, player1 and up, one a
// 10 games) and returns the mean time of a load: the front page, a game
// page, a player page, a page of /games after a random board and one of
// the standings after a random rating and player, in equal shares.
func (d *benchDaemon) randomPages(t *testing.T, n int) time.Duration {
	t.Helper()
	client := &http.Client{Timeout: time.Minute}
	r := rand.New(rand.NewPCG(uint64(n), 9))
	players := max(3, n/10) - 1
	began := time.Now()
	for range benchRandomLoads {
		var page string
		switch r.IntN(5) {
		case 0:
			page = "/"
		case 1:
			page = fmt.Sprintf("/game/%d", 101+r.IntN(n))
		case 2:
			page = fmt.Sprintf("/player/player%d", 1+r.IntN(players))
		case 3:
			page = fmt.Sprintf("/games?state=all&after=%d&page=2", 101+r.IntN(n))
		default:
			page = fmt.Sprintf("/standings?game=lyngk&after=%d.5%%3Aplayer%d&page=2", 1200+r.IntN(600), 1+r.IntN(players))
		}
		resp, err := client.Get("http://" + d.web + page)
		if err != nil {
			t.Fatalf("%s: %v", page, err)
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %s, %v", page, resp.Status, err)
		}
	}
	return time.Since(began) / benchRandomLoads
}

// pages loads each page from the daemon's web listener.
func (d *benchDaemon) pages(t *testing.T) []sample {
	t.Helper()
	client := &http.Client{Timeout: 5 * time.Minute}
	get := func(page string) []byte {
		resp, err := client.Get("http://" + d.web + page)
		if err != nil {
			t.Fatalf("%s: %v", page, err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %s, %v", page, resp.Status, err)
		}
		return b
	}
	five := "/games"
	for range 4 {
		m := nextPage.FindSubmatch(get(five))
		if m == nil {
			break // a small store: its last page
		}
		five = strings.ReplaceAll(string(m[1]), "&amp;", "&")
	}
	var out []sample
	for _, name := range benchPages {
		page := name
		if name == pageFive {
			page = five
		}
		s := measure(t, "web `"+name+"`", func() time.Duration { return d.cpu(t) }, func(int) int {
			return len(get(page))
		})
		s.RSS = d.rss(t)
		out = append(out, s)
	}
	return out
}

// timerProcess measures the timer and the prune on the store at path in
// a process of its own (TestBenchScaleTimer).
func timerProcess(t *testing.T, path string) []sample {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestBenchScaleTimer$", "-test.count=1")
	cmd.Env = append(os.Environ(), "LYNGK_BENCH_TIMER_DB="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("timer process: %v\n%s", err, out)
	}
	var res []sample
	for _, l := range strings.Split(string(out), "\n") {
		if j, ok := strings.CutPrefix(l, "benchresult "); ok {
			var s sample
			if err := json.Unmarshal([]byte(j), &s); err != nil {
				t.Fatal(err)
			}
			res = append(res, s)
		}
	}
	if len(res) != 4 {
		t.Fatalf("timer process gave %d results:\n%s", len(res), out)
	}
	return res
}

// TestBenchScaleTimer is the timer process of TestBenchScale: the minute
// timer as the daemon runs it (daemon.Tick: its pictures drawn before its
// write transaction), the time it held the write lock
// (daemon.Config.Held), three ways: with nothing due (at the minute
// before the earliest deadline of the queue), with its batch of
// reminders due (bench-store's running games are past their reminder:
// each tick, a minute apart, sends TickBatch of them with their
// pictures), the same with the pictures drawn inside the transaction as
// before engine.ForecastTick (in turns with the daemon's ticks, for a
// ratio under one load), and the hourly prune (each tick an hour after
// the last).
func TestBenchScaleTimer(t *testing.T) {
	path := os.Getenv("LYNGK_BENCH_TIMER_DB")
	if path == "" {
		t.Skip("run by TestBenchScale")
	}
	db, err := store.Open(path, store.Options{Upgrade: upgrade})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cfg := defaultConfig()
	eng, err := newEngine(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var held time.Duration
	d := daemon.New(daemon.Config{DB: db, Engine: eng, Server: cfg.Server,
		Held: func(_ string, h time.Duration) { held = max(held, h) }})
	self := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			t.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	queued := func() int {
		n := 0
		if err := db.View(func(tx *store.Tx) error {
			var err error
			n, _, _, err = tx.OutboxStats()
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// The same work with its pictures drawn inside the transaction, as
	// the timer did before engine.ForecastTick: an engine of its own (its
	// own memory of pictures), no forecast.
	engInside, err := newEngine(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dInside := daemon.New(daemon.Config{DB: db, Engine: engInside, Server: cfg.Server,
		Held: func(_ string, h time.Duration) { held = max(held, h) }})
	tickInside := func(now time.Time) error {
		return dInside.Commit(context.Background(), daemon.Work{Name: "timers", Now: now, Apply: func(tx *daemon.Tx) error {
			if _, err := tx.Expire(now); err != nil {
				return err
			}
			if err := engInside.Prune(tx, now); err != nil {
				return err
			}
			mails, _, err := engInside.Tick(tx, now)
			if err != nil {
				return err
			}
			_, err = tx.Send(mails)
			return err
		}})
	}
	mails := 0
	// run gives the longest the tick's transactions held the write lock:
	// the daemon's tick prunes in one and runs the timers in another.
	run := func(f func(now time.Time) error, now time.Time) time.Duration {
		n := queued()
		held = 0
		if err := f(now); err != nil {
			t.Fatal(err)
		}
		mails += queued() - n
		return held
	}
	daemonTick := func(now time.Time) error {
		_, err := d.Tick(context.Background(), now)
		return err
	}
	tick := func(now time.Time) time.Duration { return run(daemonTick, now) }
	perTick := func(s sample) sample {
		s.Mails = float64(mails) / float64(s.N)
		mails = 0
		return s
	}
	// The daemon ran its timers at its start, prune included: the first
	// runs here are the minute timer's, as the following minutes would be.
	start := time.Now()
	tick(start)
	var first string
	if err := db.View(func(tx *store.Tx) error {
		return tx.Scan(store.BucketDeadlines, "", func(k string, _ []byte) error {
			first = k
			return errBenchEnough
		})
	}); err != nil && !errors.Is(err, errBenchEnough) {
		t.Fatal(err)
	}
	// A deadline's key starts with its time, Unix nanoseconds in 16 hex
	// digits (store/doc.go).
	due, err := strconv.ParseInt(first[:min(len(first), 16)], 16, 64)
	if err != nil {
		t.Fatalf("deadlines: first key %q: %v", first, err)
	}
	quiet := time.Unix(0, due).Add(-time.Minute)
	mails = 0
	idle := perTick(measureTimes(t, "the minute timer's transaction, nothing due", self, func(int) time.Duration {
		return tick(quiet)
	}))
	// Ticks a minute apart, the pictures drawn before the transaction and
	// inside it in turns, so that both meet the same load.
	op := fmt.Sprintf("the minute timer's transaction, up to %d reminders with pictures due", engine.TickBatch)
	var ways [2][]time.Duration
	var cpu [2]time.Duration
	var sent [2]int
	for i := range benchSamples {
		for w, f := range []func(time.Time) error{daemonTick, tickInside} {
			c0 := self()
			ways[w] = append(ways[w], run(f, start.Add(time.Duration(2*i+w+1)*time.Minute)))
			cpu[w] += self() - c0
			sent[w] += mails
			mails = 0
		}
	}
	var timer, inside sample
	for w, s := range []*sample{&timer, &inside} {
		*s = timesSample(t, []string{op, op + ", drawn inside (as before)"}[w], ways[w])
		s.CPU = cpu[w] / time.Duration(s.N)
		s.Mails = float64(sent[w]) / float64(s.N)
	}
	prune := perTick(measureTimes(t, "the hourly prune's tick (the longer of its two transactions: the prune, the timer run)", self, func(i int) time.Duration {
		return tick(start.Add(time.Duration(i+1) * 61 * time.Minute))
	}))
	if _, in, _ := eng.PicturesDrawn(); in != 0 {
		t.Errorf("the daemon's ticks drew %d pictures inside the transaction", in)
	}
	rss := procStatus(t, os.Getpid(), "VmRSS:")
	for _, s := range []sample{idle, timer, inside, prune} {
		s.RSS = rss
		b, _ := json.Marshal(s)
		fmt.Printf("benchresult %s\n", b)
	}
}

// errBenchEnough ends a scan early.
var errBenchEnough = errors.New("enough")

// benchTable writes the results as a Markdown table: an operation a row,
// a size a column.
func benchTable(sizes []int, results map[int][]sample, extra map[int]map[string]string) string {
	var b strings.Builder
	b.WriteString("| operation |")
	for _, n := range sizes {
		fmt.Fprintf(&b, " %s games |", sizeName(n))
	}
	b.WriteString("\n|---|")
	for range sizes {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for i, s := range results[sizes[0]] {
		fmt.Fprintf(&b, "| %s |", s.Op)
		for _, n := range sizes {
			r := results[n][i]
			cell := fmt.Sprintf("%s / %s, CPU %s, RSS %d MB", fmtDur(r.P50), fmtDur(r.P99), fmtDur(r.CPU), r.RSS>>20)
			if strings.HasPrefix(r.Op, "web") {
				cell += fmt.Sprintf(", %d KB", (r.Bytes+1023)>>10)
			}
			if r.Mails > 0 {
				cell += fmt.Sprintf(", %.3g mails", r.Mails)
			}
			fmt.Fprintf(&b, " %s |", cell)
		}
		b.WriteString("\n")
	}
	for _, k := range []string{"first start", "start", "serve RSS", "random RSS", "file", "bench-store"} {
		fmt.Fprintf(&b, "| %s |", map[string]string{
			"first start": "`lyngk serve` first start (with the upgrade of a reused store of an older schema)",
			"start":       "`lyngk serve` start-up (to its web listener)",
			"serve RSS":   "`lyngk serve` RSS after the pages",
			"random RSS":  fmt.Sprintf("`lyngk serve` RSS after %d random pages", benchRandomLoads),
			"file":        "store file",
			"bench-store": "`lyngk bench-store` (wall time)"}[k])
		for _, n := range sizes {
			fmt.Fprintf(&b, " %s |", extra[n][k])
		}
		b.WriteString("\n")
	}
	return b.String()
}

func sizeName(n int) string {
	switch {
	case n >= 1000000:
		return fmt.Sprintf("%dM", n/1000000)
	case n >= 1000:
		return fmt.Sprintf("%dk", n/1000)
	}
	return strconv.Itoa(n)
}

// fmtDur writes d with three significant digits at most.
func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.3g s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.3g ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.3g µs", float64(d)/float64(time.Microsecond))
}
