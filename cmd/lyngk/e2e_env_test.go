package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

// The end-to-end tests run `lyngk serve` against a real Dovecot and Postfix
// that .ci/mailservers.sh started on loopback; .ci/e2e.sh does all of it.
// They run only when LYNGK_E2E=1, with LYNGK_E2E_DIR naming the directory
// given to `mailservers.sh start`, whose env file holds ports and passwords.

// e2eEnv is the mail stack, as described by DIR/env.
type e2eEnv struct {
	dir      string
	domain   string
	smtpAddr string // Postfix: accepts from loopback without AUTH; no STARTTLS
	// Postfix submission: STARTTLS, then AUTH PLAIN checked by Dovecot
	submissionAddr string
	imapAddr       string // Dovecot IMAP: STARTTLS offered, plain login allowed
	imapsAddr      string // Dovecot IMAP over implicit TLS
	lmtpAddr       string // Dovecot LMTP: delivery that bypasses Postfix
	// caFile is the throw-away CA that signed both servers' certificate;
	// otherCAFile a CA that did not.
	caFile, otherCAFile string
	// Postfix relays mail for remoteDomain over SMTP to remoteAddr: players
	// hosted elsewhere (startRemote listens there).
	remoteDomain string
	remoteAddr   string
	// oauthAddr is where Dovecot asks about access tokens (RFC 7662
	// introspection): the issuer of TestE2EOAuth2 listens there.
	oauthAddr string
	script    string // .ci/mailservers.sh
	password  map[string]string
}

// e2eSetup skips the test unless the suite was asked for, and reads DIR/env.
func e2eSetup(tb testing.TB) *e2eEnv {
	tb.Helper()
	if os.Getenv("LYNGK_E2E") != "1" {
		tb.Skip("end-to-end test against real Dovecot and Postfix: skipped unless LYNGK_E2E=1 " +
			"and LYNGK_E2E_DIR are set; .ci/e2e.sh installs the servers and runs it")
	}
	dir := os.Getenv("LYNGK_E2E_DIR")
	if dir == "" {
		tb.Fatal("LYNGK_E2E=1 needs LYNGK_E2E_DIR: the directory given to .ci/mailservers.sh start")
	}
	vals, err := e2eReadEnv(filepath.Join(dir, "env"))
	if err != nil {
		tb.Fatal(err)
	}
	e := &e2eEnv{
		dir:            dir,
		domain:         vals["E2E_DOMAIN"],
		smtpAddr:       vals["E2E_SMTP_ADDR"],
		imapAddr:       vals["E2E_IMAP_ADDR"],
		imapsAddr:      vals["E2E_IMAPS_ADDR"],
		submissionAddr: vals["E2E_SUBMISSION_ADDR"],
		caFile:         vals["E2E_CA_FILE"],
		otherCAFile:    vals["E2E_OTHER_CA_FILE"],
		lmtpAddr:       vals["E2E_LMTP_ADDR"],
		remoteDomain:   vals["E2E_REMOTE_DOMAIN"],
		remoteAddr:     vals["E2E_REMOTE_ADDR"],
		oauthAddr:      vals["E2E_OAUTH_ADDR"],
		script:         vals["E2E_SCRIPT"],
		password:       map[string]string{},
	}
	for _, u := range strings.Fields(vals["E2E_USERS"]) {
		e.password[u] = vals["E2E_PASSWORD_"+strings.ToUpper(u)]
	}
	for _, u := range []string{"lyngk", "alice", "bob", "load0"} {
		if e.password[u] == "" {
			tb.Fatalf("%s/env: no password for user %s", dir, u)
		}
	}
	if e.domain == "" || e.smtpAddr == "" || e.imapAddr == "" || e.lmtpAddr == "" || e.script == "" ||
		e.remoteDomain == "" || e.remoteAddr == "" || e.imapsAddr == "" || e.submissionAddr == "" ||
		e.caFile == "" || e.otherCAFile == "" || e.oauthAddr == "" {
		tb.Fatalf("%s/env is incomplete: %v", dir, vals)
	}
	return e
}

// e2eReadEnv reads the KEY=VALUE lines that mailservers.sh writes.
func e2eReadEnv(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("e2e: %w (start the servers with .ci/mailservers.sh start DIR)", err)
	}
	defer f.Close()
	vals := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("e2e: %s: bad line %q", path, line)
		}
		vals[k] = strings.Trim(v, `"`)
	}
	return vals, sc.Err()
}

// addr is the mail address of a local part in the test domain.
func (e *e2eEnv) addr(local string) string { return local + "@" + e.domain }

// robot is the address `lyngk serve` reads and sends as.
func (e *e2eEnv) robot() string { return e.addr("lyngk") }

// ctl runs a sub-command of mailservers.sh (stop-smtp, start-smtp, restart-imap).
func (e *e2eEnv) ctl(tb testing.TB, cmd string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	out, err := exec.CommandContext(ctx, e.script, cmd, e.dir).CombinedOutput()
	if err != nil {
		tb.Fatalf("mailservers.sh %s: %v\n%s", cmd, err, out)
	}
	tb.Logf("mailservers.sh %s: %v", cmd, time.Since(start).Round(time.Millisecond))
}

// e2eBuilt is the lyngk binary, built once per test process into the
// servers' directory (which .ci/e2e.sh removes at the end).
var e2eBuilt struct {
	once sync.Once
	path string
	err  error
}

func (e *e2eEnv) binary(tb testing.TB) string {
	tb.Helper()
	e2eBuilt.once.Do(func() {
		// LYNGK_E2E_BIN runs another tree's server under these tests
		// (the before of a before/after in one run).
		if bin := os.Getenv("LYNGK_E2E_BIN"); bin != "" {
			e2eBuilt.path = bin
			return
		}
		dir, err := os.MkdirTemp(e.dir, "bin-")
		if err != nil {
			e2eBuilt.err = err
			return
		}
		path := filepath.Join(dir, "lyngk")
		out, err := exec.Command("go", "build", "-o", path, ".").CombinedOutput()
		if err != nil {
			e2eBuilt.err = fmt.Errorf("e2e: go build: %v\n%s", err, out)
			return
		}
		e2eBuilt.path = path
	})
	if e2eBuilt.err != nil {
		tb.Fatal(e2eBuilt.err)
	}
	return e2eBuilt.path
}

// clearMailbox deletes every mail in a folder: what an earlier, failed run
// left for the robot (a fresh server would answer it), or the thousands of
// mails a load test leaves (they slow Dovecot down).
func (e *e2eEnv) clearMailbox(tb testing.TB, local, folder string) {
	tb.Helper()
	c, err := e2eDialIMAP(e.imapAddr, e.addr(local), e.password[local])
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close()
	sel, err := c.Select(folder, nil).Wait()
	if err != nil {
		tb.Fatal(err)
	}
	if sel.NumMessages == 0 {
		return
	}
	all := imap.SeqSet{imap.SeqRange{Start: 1, Stop: 0}}
	store := &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagDeleted}}
	if err := c.Store(all, store, nil).Close(); err != nil {
		tb.Fatal(err)
	}
	if err := c.Expunge().Close(); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("removed %d mails from %s/%s", sel.NumMessages, e.addr(local), folder)
}

// e2eDialIMAP logs in to Dovecot without TLS (loopback only).
func e2eDialIMAP(addr, user, password string) (*imapclient.Client, error) {
	return e2eDialIMAPNotify(addr, user, password, nil)
}

// e2eDialIMAPNotify is e2eDialIMAP with a function called whenever the
// server announces new mail in the selected folder (EXISTS).
func e2eDialIMAPNotify(addr, user, password string, exists func()) (*imapclient.Client, error) {
	opts := &imapclient.Options{}
	if exists != nil {
		opts.UnilateralDataHandler = &imapclient.UnilateralDataHandler{
			Mailbox: func(data *imapclient.UnilateralDataMailbox) {
				if data.NumMessages != nil {
					exists()
				}
			},
		}
	}
	c, err := imapclient.DialInsecure(addr, opts)
	if err != nil {
		return nil, err
	}
	// go-imap waits for responses without a deadline: a watchdog closes a
	// client that hangs.
	watchdog := time.AfterFunc(10*time.Second, func() { c.Close() })
	defer watchdog.Stop()
	if err := c.Login(user, password).Wait(); err != nil {
		c.Close()
		return nil, fmt.Errorf("e2e: imap login %s: %w", user, err)
	}
	return c, nil
}

// e2eServer is one `lyngk serve` process and its data directory, which
// survives restarts.
type e2eServer struct {
	tb      testing.TB
	bin     string
	config  string
	logPath string
	metrics string // host:port of its /metrics
	web     string // host:port of its web listener, when web_addr is set
	// pick: the listeners ask for port 0 and the server's "listening"
	// lines say which it got (start reads them); else metrics is a port
	// picked free beforehand, for an older LYNGK_E2E_BIN that prints none.
	pick   bool
	cmd    *exec.Cmd
	exited chan error
	starts int
}

// e2eTransport is how `lyngk serve` reaches the mail servers: the lines of
// its configuration that say so.
type e2eTransport func(e *e2eEnv) []string

// e2eTLS is a real deployment: IMAP over implicit TLS, submission with
// STARTTLS (unset smtp_tls: the port is not 465) and AUTH PLAIN, both
// certificates verified against the throw-away CA.
func e2eTLS(e *e2eEnv) []string {
	return []string{
		"imap_addr = " + e.imapsAddr,
		"imap_tls = implicit",
		"smtp_addr = " + e.submissionAddr,
		"smtp_user = " + e.robot(),
		"smtp_password = " + e.password["lyngk"],
		"tls_ca_file = " + e.caFile,
	}
}

// e2eStartTLS upgrades both connections with STARTTLS (unset imap_tls and
// smtp_tls: neither port is 993 or 465).
func e2eStartTLS(e *e2eEnv) []string {
	return []string{
		"imap_addr = " + e.imapAddr,
		"smtp_addr = " + e.submissionAddr,
		"smtp_user = " + e.robot(),
		"smtp_password = " + e.password["lyngk"],
		"tls_ca_file = " + e.caFile,
	}
}

// e2ePlain is plain text on loopback, without SMTP AUTH: the cheapest, for
// the load test and the throughput benchmarks.
func e2ePlain(e *e2eEnv) []string {
	return []string{
		"imap_addr = " + e.imapAddr,
		"imap_tls = none",
		"smtp_addr = " + e.smtpAddr,
		"smtp_tls = none",
	}
}

// startServer writes a configuration for the mail stack and starts
// `lyngk serve`; it is stopped when the test ends. extra lines come last
// and may override earlier keys' values (the parser refuses a key twice,
// so an override replaces the line).
func (e *e2eEnv) startServer(tb testing.TB, transport e2eTransport, extra ...string) *e2eServer {
	tb.Helper()
	e.clearMailbox(tb, "lyngk", "INBOX")
	dir := tb.TempDir()
	// A port of its own for /metrics, which the server picks and says:
	// nothing left over from another run can answer in its place, and no
	// other program can take it between a pick and the server's start.
	// An older server (LYNGK_E2E_BIN) says nothing: it gets a port picked
	// free beforehand.
	metrics, pick := anyPort, os.Getenv("LYNGK_E2E_BIN") == ""
	if !pick {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			tb.Fatal(err)
		}
		metrics = ln.Addr().String()
		ln.Close()
	}
	lines := append(transport(e),
		"imap_user = "+e.robot(),
		"imap_password = "+e.password["lyngk"],
		"imap_mailbox = INBOX",
		"imap_processed = Processed",
		"imap_rejected = Rejected",
		// Dovecot offers IDLE: polling is only the fallback.
		"poll_interval = 1s",
		"server_address = "+e.robot(),
		"domain = "+e.domain,
		"data_dir = "+filepath.Join(dir, "data"),
		// The load test sends hundreds of commands from few addresses,
		// and signs up hundreds of players, whose addresses are +tags of
		// four mailboxes (load0..load3).
		"rate_per_hour = 1000000",
		"signups_per_hour = 1000000",
		"confirms_per_mailbox_day = 1000000",
		"log_level = debug",
		"metrics_addr = "+metrics,
	)
	// LYNGK_E2E_CONFIG_DROP lists keys (comma-separated) an older server
	// of LYNGK_E2E_BIN does not know.
	for _, key := range strings.Split(os.Getenv("LYNGK_E2E_CONFIG_DROP"), ",") {
		lines = slices.DeleteFunc(lines, func(l string) bool {
			k, _, _ := strings.Cut(l, "=")
			return key != "" && strings.TrimSpace(k) == key
		})
	}
	for _, x := range extra {
		key, _, _ := strings.Cut(x, "=")
		lines = slices.DeleteFunc(lines, func(l string) bool {
			k, _, _ := strings.Cut(l, "=")
			return strings.TrimSpace(k) == strings.TrimSpace(key)
		})
		lines = append(lines, x)
	}
	cfg := strings.Join(lines, "\n") + "\n"
	// The log stays with the servers' logs (.ci/e2e.sh keeps them with E2E_KEEP=1).
	logDir := filepath.Join(e.dir, "logs")
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		tb.Fatal(err)
	}
	logf, err := os.CreateTemp(logDir, strings.NewReplacer("/", "-", " ", "_").Replace(tb.Name())+"-*.log")
	if err != nil {
		tb.Fatal(err)
	}
	logf.Close()
	s := &e2eServer{
		tb:      tb,
		metrics: metrics,
		pick:    pick,
		bin:     e.binary(tb),
		config:  filepath.Join(dir, "lyngk.conf"),
		logPath: logf.Name(),
	}
	if err := os.WriteFile(s.config, []byte(cfg), 0o600); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("lyngk serve log: %s", s.logPath)
	s.start()
	tb.Cleanup(func() {
		s.stop()
		if tb.Failed() {
			s.dumpLog()
		}
	})
	return s
}

func (s *e2eServer) start() {
	s.tb.Helper()
	logf, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		s.tb.Fatal(err)
	}
	defer logf.Close()
	s.starts++
	fmt.Fprintf(logf, "=== e2e: start %d\n", s.starts)
	cmd := exec.Command(s.bin, "serve", "-config", s.config)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		s.tb.Fatal(err)
	}
	s.cmd = cmd
	s.exited = make(chan error, 1)
	go func() { s.exited <- cmd.Wait() }()
	if s.pick {
		// The metrics listener is the last to open: the web one's line
		// is written by then.
		s.metrics = s.listening("metrics")
		s.web = s.listening("web")
	}
}

// listening waits for the "listening NAME ADDR" line of this start of the
// server in its log and returns the address; "" for web when the server
// has no web listener (its line would come before the metrics one).
func (s *e2eServer) listening(name string) string {
	s.tb.Helper()
	marker := []byte(fmt.Sprintf("=== e2e: start %d\n", s.starts))
	re := regexp.MustCompile(`(?m)^listening ` + name + ` (\S+)$`)
	for deadline := time.Now().Add(patience); ; time.Sleep(20 * time.Millisecond) {
		data, err := os.ReadFile(s.logPath)
		if err != nil {
			s.tb.Fatal(err)
		}
		if i := bytes.LastIndex(data, marker); i >= 0 {
			if m := re.FindSubmatch(data[i:]); m != nil {
				return string(m[1])
			}
			if name == "web" {
				return ""
			}
		}
		s.checkRunning()
		if time.Now().After(deadline) {
			s.tb.Fatalf("lyngk serve printed no %q listener line", name)
		}
	}
}

// kill ends the server with SIGKILL: no shutdown code runs.
func (s *e2eServer) kill() {
	s.tb.Helper()
	if s.cmd == nil {
		return
	}
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		s.tb.Fatal(err)
	}
	<-s.exited
	s.cmd = nil
	s.tb.Logf("lyngk serve killed with SIGKILL")
}

// stop ends the server with SIGTERM, which must lead to a clean exit.
func (s *e2eServer) stop() {
	s.tb.Helper()
	if s.cmd == nil {
		return
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		s.tb.Error(err)
	}
	select {
	case err := <-s.exited:
		if err != nil {
			s.tb.Errorf("lyngk serve after SIGTERM: %v", err)
		}
	case <-time.After(20 * time.Second):
		s.tb.Error("lyngk serve did not stop within 20s of SIGTERM; killing it")
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
	s.cmd = nil
}

// checkRunning fails the test when the server has exited by itself.
func (s *e2eServer) checkRunning() {
	s.tb.Helper()
	select {
	case err := <-s.exited:
		s.exited <- err
		s.tb.Fatalf("lyngk serve exited: %v", err)
	default:
	}
}

// dumpLog puts the end of the server's log into the test output.
func (s *e2eServer) dumpLog() {
	data, err := os.ReadFile(s.logPath)
	if err != nil {
		s.tb.Log(err)
		return
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > 80 {
		lines = lines[len(lines)-80:]
	}
	s.tb.Logf("last lines of the lyngk serve log:\n%s", strings.Join(lines, "\n"))
}
