package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Where a throughput benchmark's CPU goes. The machine's
// CPU per move (e2eCPUBusy) holds whatever else runs on the machine; these
// figures count only the benchmark's own processes, each kind apart, so
// that a run on a shared machine still tells what a move costs:
//
//   - lyngk: the `lyngk serve` under test;
//   - postfix, dovecot: each server's master process and all its
//     descendants (a child's CPU counts once it exits, through its
//     parent's cutime and cstime);
//   - test: the benchmark itself (the players, the remote providers' SMTP
//     server), without the lyngk it started;
//   - other: the rest of the machine (other users' work), the machine's
//     busy time less the four above;
//   - host (a sum): lyngk, postfix and dovecot, what the robot's host
//     itself spends on a move.
//
// Set LYNGK_E2E_PROFILE=DIR to have the benchmark save the server's CPU
// profile of each format's burst (DIR/NAME-FORMAT.pprof, fetched from the
// /debug/pprof/profile of its metrics listener in 10-second pieces and
// merged by `go tool pprof`), and LYNGK_E2E_PERF=1 to count the server's
// system calls a move (perf stat on its tracepoints: the fdatasync of each
// bbolt commit, the reads and writes of its IMAP and SMTP sessions).

// e2eKinds are the kinds of process a move's CPU is split into.
var e2eKinds = []string{"lyngk", "postfix", "dovecot", "test", "other"}

// e2eProcStat is what /proc/PID/stat says of one process.
type e2eProcStat struct {
	pid, ppid int
	comm      string
	self      time.Duration // utime + stime, all threads
	children  time.Duration // cutime + cstime: children waited for
}

// e2eReadProcs reads every process's stat line.
func e2eReadProcs() map[int]e2eProcStat {
	out := map[int]e2eProcStat{}
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range dirs {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // gone meanwhile
		}
		s := string(data)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open {
			continue
		}
		f := strings.Fields(s[end+1:])
		// f[0] is field 3 (state): ppid is field 4, utime..cstime 14..17.
		if len(f) < 15 {
			continue
		}
		var n [5]int64
		for i, j := range []int{1, 11, 12, 13, 14} {
			n[i], _ = strconv.ParseInt(f[j], 10, 64)
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(s[:open]))
		tick := 10 * time.Millisecond // USER_HZ is 100
		out[pid] = e2eProcStat{pid: pid, ppid: int(n[0]), comm: s[open+1 : end],
			self: time.Duration(n[1]+n[2]) * tick, children: time.Duration(n[3]+n[4]) * tick}
	}
	return out
}

// e2eCPUSample is the CPU spent so far by each kind of process, and by each
// command name within postfix and dovecot (for the logs).
type e2eCPUSample struct {
	kind map[string]time.Duration
	comm map[string]time.Duration // "postfix/smtpd": live processes' own time
}

// e2eCPUMeter samples the CPU of the benchmark's processes.
type e2eCPUMeter struct {
	tb    testing.TB
	roots map[string]int // kind -> root pid
}

// newCPUMeter finds the roots: the server's pid, the mail servers' masters
// (from their pid files under the environment's directory) and this test.
func (e *e2eEnv) newCPUMeter(tb testing.TB, srv *e2eServer) *e2eCPUMeter {
	tb.Helper()
	pidFile := func(path string) int {
		data, err := os.ReadFile(filepath.Join(e.dir, path))
		if err != nil {
			tb.Fatal(err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil {
			tb.Fatalf("%s: %v", path, err)
		}
		return pid
	}
	return &e2eCPUMeter{tb: tb, roots: map[string]int{
		"lyngk":   srv.cmd.Process.Pid,
		"postfix": pidFile("disk/postfix-spool/pid/master.pid"),
		"dovecot": pidFile("dovecot/run/master.pid"),
		"test":    os.Getpid(),
	}}
}

// sample adds up each root's tree; a tree stops at another root.
func (m *e2eCPUMeter) sample() e2eCPUSample {
	procs := e2eReadProcs()
	kids := map[int][]int{}
	for pid, p := range procs {
		kids[p.ppid] = append(kids[p.ppid], pid)
	}
	isRoot := map[int]bool{}
	for _, pid := range m.roots {
		isRoot[pid] = true
	}
	s := e2eCPUSample{kind: map[string]time.Duration{}, comm: map[string]time.Duration{}}
	var ours time.Duration
	for kind, root := range m.roots {
		todo := []int{root}
		for len(todo) > 0 {
			pid := todo[len(todo)-1]
			todo = todo[:len(todo)-1]
			p, ok := procs[pid]
			if !ok {
				continue
			}
			s.kind[kind] += p.self + p.children
			if kind == "postfix" || kind == "dovecot" {
				s.comm[kind+"/"+p.comm] += p.self
			}
			for _, k := range kids[pid] {
				if !isRoot[k] {
					todo = append(todo, k)
				}
			}
		}
		ours += s.kind[kind]
	}
	s.kind["other"] = e2eCPUBusy(m.tb) - ours
	return s
}

// e2ePhase measures one burst: the CPU of each kind, and optionally the
// server's profile and system calls.
type e2ePhase struct {
	meter  *e2eCPUMeter
	name   string
	start  e2eCPUSample
	stopCh chan struct{}
	wg     sync.WaitGroup
	perf   *exec.Cmd
	perfTo string
}

// phase starts measuring the burst name (like "ElseWhere-html").
func (m *e2eCPUMeter) phase(srv *e2eServer, name string) *e2ePhase {
	p := &e2ePhase{meter: m, name: name, stopCh: make(chan struct{}), start: m.sample()}
	if dir := os.Getenv("LYNGK_E2E_PROFILE"); dir != "" {
		p.wg.Go(func() { p.profile(srv.metrics, dir) })
	}
	if os.Getenv("LYNGK_E2E_PERF") == "1" {
		p.perfTo = filepath.Join(m.tb.TempDir(), "perf.txt")
		p.perf = exec.Command("perf", "stat", "-x", ",", "-o", p.perfTo,
			"-e", "syscalls:sys_enter_fdatasync,syscalls:sys_enter_fsync,syscalls:sys_enter_write,syscalls:sys_enter_read,syscalls:sys_enter_pwrite64,syscalls:sys_enter_futex",
			"-p", strconv.Itoa(m.roots["lyngk"]))
		if err := p.perf.Start(); err != nil {
			m.tb.Logf("perf stat: %v", err)
			p.perf = nil
		}
	}
	return p
}

// profile fetches the server's CPU profile in 10-second pieces until the
// phase ends, then merges them into DIR/NAME.pprof.
func (p *e2ePhase) profile(metrics, dir string) {
	var parts []string
	for i := 0; ; i++ {
		select {
		case <-p.stopCh:
			p.mergeProfiles(dir, parts)
			return
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+metrics+"/debug/pprof/profile?seconds=10", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			cancel()
			p.meter.tb.Logf("profile: %v", err)
			return
		}
		data, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		if err != nil || resp.StatusCode != http.StatusOK {
			p.meter.tb.Logf("profile: %v %s", err, resp.Status)
			return
		}
		part := filepath.Join(dir, fmt.Sprintf("%s.%d.pprof", p.name, i))
		if err := os.WriteFile(part, data, 0o644); err != nil {
			p.meter.tb.Logf("profile: %v", err)
			return
		}
		parts = append(parts, part)
	}
}

func (p *e2ePhase) mergeProfiles(dir string, parts []string) {
	if len(parts) == 0 {
		return
	}
	out := filepath.Join(dir, p.name+".pprof")
	cmd := exec.Command("go", append([]string{"tool", "pprof", "-proto", "-output", out}, parts...)...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		p.meter.tb.Logf("profile: merging: %v\n%s", err, msg)
		return
	}
	for _, part := range parts {
		os.Remove(part)
	}
	p.meter.tb.Logf("profile of %s: %s", p.name, out)
}

// end stops the phase and reports each kind's CPU per move as metrics
// cpu-ms/move-FORMAT-KIND, the detail of the mail servers' processes and
// the server's system calls a move in the log.
func (p *e2ePhase) end(b *testing.B, format string, moves int) {
	b.Helper()
	end := p.meter.sample()
	close(p.stopCh)
	if p.perf != nil {
		_ = p.perf.Process.Signal(syscall.SIGINT)
		_ = p.perf.Wait()
		if data, err := os.ReadFile(p.perfTo); err == nil {
			var calls []string
			for _, line := range strings.Split(string(data), "\n") {
				f := strings.Split(line, ",")
				if len(f) < 3 || !strings.HasPrefix(f[2], "syscalls:sys_enter_") {
					continue
				}
				n, err := strconv.ParseFloat(f[0], 64)
				if err != nil {
					continue
				}
				calls = append(calls, fmt.Sprintf("%s %.1f", strings.TrimPrefix(f[2], "syscalls:sys_enter_"), n/float64(moves)))
			}
			b.Logf("%s: lyngk's system calls a move: %s", p.name, strings.Join(calls, ", "))
		}
	}
	p.wg.Wait()
	if moves == 0 {
		return
	}
	per := func(d time.Duration) float64 { return e2eMillis(d) / float64(moves) }
	var line []string
	var host float64
	for _, kind := range e2eKinds {
		ms := per(end.kind[kind] - p.start.kind[kind])
		b.ReportMetric(ms, "cpu-ms/move-"+format+"-"+kind)
		line = append(line, fmt.Sprintf("%s %.2f", kind, ms))
		if kind == "lyngk" || kind == "postfix" || kind == "dovecot" {
			host += ms
		}
	}
	// The robot host's own share: the server and its mail servers, not
	// the players, who stand for other machines.
	b.ReportMetric(host, "cpu-ms/move-"+format+"-host")
	var comms []string
	for c, d := range end.comm {
		if ms := per(d - p.start.comm[c]); ms >= 0.05 {
			comms = append(comms, fmt.Sprintf("%s %.2f", c, ms))
		}
	}
	slices.Sort(comms)
	b.Logf("%s: CPU ms a move: %s; live processes: %s", p.name, strings.Join(line, ", "), strings.Join(comms, ", "))
}
