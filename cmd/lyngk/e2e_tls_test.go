package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
)

// e2eFailWait bounds the wait for the second failed attempt of a broken
// connection: the poller retries after 1 s, the sender after its backoff
// (or, with no relay backoff, after the mail's first retry step of 30 s).
const e2eFailWait = 90 * time.Second

// TestE2ETLS runs `lyngk serve` with both connections upgraded by STARTTLS
// (TestE2EGame covers implicit TLS for IMAP), then with each way a TLS or
// AUTH set-up goes wrong in practice: every failed attempt must give one
// log line that names the cause, and the attempts must back off.
func TestE2ETLS(t *testing.T) {
	e := e2eSetup(t)
	t.Run("STARTTLS and AUTH", func(t *testing.T) {
		e.startServer(t, e2eStartTLS)
		alice := &e2ePlayer{user: "alice", password: "alice-pw", addr: e.addr("alice"),
			box: e.watch(t, "alice", "INBOX", 25*time.Millisecond)}
		if err := e.signup(alice, e2eMoveWait); err != nil {
			t.Fatal(err)
		}
	})
	// In the SMTP cases IMAP is plain, so that only the submission side
	// fails (tls_ca_file is one setting for both).
	plainIMAP := []string{"imap_addr = " + e.imapAddr, "imap_tls = none"}
	tests := []struct {
		name  string
		extra []string
		smtp  bool   // the failure is the sender's: a mail must be queued first
		want  string // in each failure's log line
	}{
		{"IMAP wrong password", []string{"imap_password = wrong"}, false, "AUTHENTICATIONFAILED"},
		{"IMAP wrong CA", []string{"tls_ca_file = " + e.otherCAFile}, false, "certificate signed by unknown authority"},
		{"IMAP STARTTLS wrong CA", []string{"imap_addr = " + e.imapAddr, "imap_tls = starttls", "tls_ca_file = " + e.otherCAFile},
			false, "certificate signed by unknown authority"},
		{"SMTP wrong password", append(plainIMAP, "smtp_password = wrong"), true, "mailer: SMTP AUTH: SMTP error 535"},
		{"SMTP wrong CA", append(plainIMAP, "tls_ca_file = "+e.otherCAFile), true, "certificate signed by unknown authority"},
		// Postfix's plain port offers no STARTTLS; smtp_tls is unset, so
		// the port (not 465) asks for it.
		{"SMTP without STARTTLS", append(plainIMAP, "smtp_addr = "+e.smtpAddr), true, "server doesn't support STARTTLS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := e.startServer(t, e2eTLS, tt.extra...)
			if tt.smtp {
				e2eSubmit(t, e, &e2eOut{From: e.addr("carol"), To: e.robot(), Subject: "help", Body: "\n"})
			}
			lines := srv.awaitLog(tt.want, 2, e2eFailWait)
			srv.checkRunning()
			var prev time.Time
			for i, l := range lines {
				if !strings.Contains(l, "level=WARN") && !strings.Contains(l, "level=ERROR") {
					t.Errorf("failure logged below WARN: %s", l)
				}
				at := e2eLogTime(t, l)
				if i > 0 && at.Sub(prev) < 500*time.Millisecond {
					t.Errorf("attempt %d came %v after the one before: no backoff\n%s", i+1, at.Sub(prev), strings.Join(lines, "\n"))
				}
				prev = at
			}
			t.Logf("first failure: %s", lines[0])
		})
	}
}

// awaitLog waits until the server's log holds at least n lines containing
// substr, and returns them.
func (s *e2eServer) awaitLog(substr string, n int, d time.Duration) []string {
	s.tb.Helper()
	deadline := time.Now().Add(d)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		lines := s.logLines(substr)
		if len(lines) >= n {
			return lines
		}
		if time.Now().After(deadline) {
			s.tb.Fatalf("after %v the log has %d lines with %q, want %d", d, len(lines), substr, n)
		}
		<-tick.C
	}
}

// awaitLogAfter waits until the server's log holds a line containing substr
// stamped at or after t.
func (s *e2eServer) awaitLogAfter(substr string, t time.Time, d time.Duration) {
	s.tb.Helper()
	deadline := time.Now().Add(d)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		lines := s.logLines(substr)
		if len(lines) > 0 && !e2eLogTime(s.tb, lines[len(lines)-1]).Before(t) {
			return
		}
		if time.Now().After(deadline) {
			s.tb.Fatalf("after %v no log line with %q from %v on", d, substr, t.Format(time.TimeOnly))
		}
		<-tick.C
	}
}

// logLines returns the lines of the server's log that contain substr.
func (s *e2eServer) logLines(substr string) []string {
	s.tb.Helper()
	f, err := os.Open(s.logPath)
	if err != nil {
		s.tb.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.Contains(sc.Text(), substr) {
			out = append(out, sc.Text())
		}
	}
	return out
}

// e2eLogTime reads the time= of a text log line.
func e2eLogTime(tb testing.TB, line string) time.Time {
	tb.Helper()
	v, ok := strings.CutPrefix(line, "time=")
	if !ok {
		tb.Fatalf("log line without time=: %s", line)
	}
	v, _, _ = strings.Cut(v, " ")
	at, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		tb.Fatalf("log line %q: %v", line, err)
	}
	return at
}

// settle waits until the robot has applied every mail it was given (its
// INBOX is empty: mail leaves it only once committed), sent every reply (its
// outbox is empty), Postfix has delivered them (its queue is empty), and the
// watchers of boxes have fetched everything delivered to them. Nothing the
// robot will send for what the test did is then missing from the boxes:
// counting duplicates needs no pause.
func (e *e2eEnv) settle(tb testing.TB, srv *e2eServer, d time.Duration, boxes ...*e2eMailbox) {
	tb.Helper()
	deadline := time.Now().Add(d)
	wait := func(what string, done func() (bool, error)) {
		tb.Helper()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			ok, err := done()
			if ok {
				return
			}
			if time.Now().After(deadline) {
				tb.Fatalf("settle: %s not reached within %v (last error: %v)", what, d, err)
			}
			<-tick.C
		}
	}
	wait("the robot's INBOX empty", func() (bool, error) {
		n, _, err := e.status(e.robot(), e.password["lyngk"], "INBOX")
		return err == nil && n == 0, err
	})
	wait("the robot's outbox empty", func() (bool, error) {
		n, err := e2eMetric(srv.metrics, "lyngk_outbox_depth")
		return err == nil && n == 0, err
	})
	wait("Postfix's queue empty", func() (bool, error) {
		out, err := exec.Command(e.script, "queue-size", e.dir).Output()
		return err == nil && strings.TrimSpace(string(out)) == "0", err
	})
	for _, b := range boxes {
		if b.addr == "" {
			continue // filled by the remote SMTP server as mail arrives
		}
		_, next, err := e.status(b.user, b.password, b.folder)
		if err != nil {
			tb.Fatal(err)
		}
		wait(fmt.Sprintf("the watcher of %s/%s at UID %d", b.user, b.folder, next-1), func() (bool, error) {
			b.mu.Lock()
			defer b.mu.Unlock()
			return b.lastUID >= next-1, b.lastErr
		})
	}
}

// status returns a folder's message count and UIDNEXT.
func (e *e2eEnv) status(user, password, folder string) (uint32, imap.UID, error) {
	c, err := e2eDialIMAP(e.imapAddr, user, password)
	if err != nil {
		return 0, 0, err
	}
	defer c.Close()
	watchdog := time.AfterFunc(10*time.Second, func() { c.Close() })
	defer watchdog.Stop()
	st, err := c.Status(folder, &imap.StatusOptions{NumMessages: true, UIDNext: true}).Wait()
	if err != nil {
		return 0, 0, err
	}
	return *st.NumMessages, st.UIDNext, nil
}

// e2eMetric reads one unlabelled value from the daemon's /metrics.
func e2eMetric(addr, name string) (float64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(l, name+" "); ok {
			return strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	return 0, fmt.Errorf("e2e: metric %s not in /metrics", name)
}
