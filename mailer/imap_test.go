package mailer

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"

	"lyngk.example/lyngk/mailer/internal/idle"
	"lyngk.example/lyngk/mailer/mailtest"
)

// mailtest.Deadline bounds every wait for an asynchronous event.

// localhostCert is the template of a server certificate for 127.0.0.1
// and localhost, valid for the hour around now.
func localhostCert(serial int64) *x509.Certificate {
	return &x509.Certificate{
		SerialNumber: big.NewInt(serial),
		Subject:      pkix.Name{CommonName: "localhost"},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
}

// netTestCert returns a TLS configuration with a self-signed certificate
// for 127.0.0.1 and localhost.
func netTestCert(t testing.TB) *tls.Config {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := localhostCert(1)
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
}

// imapTestServer is an in-process imapserver + imapmemserver with one user
// "robot"/"secret", which can be stopped and started again on the same
// address with its mailboxes intact.
type imapTestServer struct {
	t       testing.TB
	mem     *imapmemserver.Server
	user    *imapmemserver.User
	caps    imap.CapSet
	tlsCfg  *tls.Config // STARTTLS, or implicit TLS when implicit is set
	impl    bool
	addr    string
	srv     *imapserver.Server
	done    chan struct{}
	idling  chan struct{} // a session entered IDLE
	changes *idle.Changes
	logger  *testLogger
}

func newIMAPTestServer(t testing.TB, caps imap.CapSet, tlsCfg *tls.Config, implicit bool) *imapTestServer {
	t.Helper()
	s := &imapTestServer{
		t:       t,
		mem:     imapmemserver.New(),
		user:    imapmemserver.NewUser("robot", "secret"),
		caps:    caps,
		tlsCfg:  tlsCfg,
		impl:    implicit,
		addr:    "127.0.0.1:0",
		idling:  make(chan struct{}, 1),
		changes: idle.NewChanges(),
		logger:  newTestLogger(t),
	}
	if err := s.user.Create("INBOX", nil); err != nil {
		t.Fatal(err)
	}
	s.mem.AddUser(s.user)
	s.start()
	t.Cleanup(s.stop)
	return s
}

// idleSpy reports when a session starts idling, and idles like Local
// (imapserver's own IDLE can miss a mail delivered just before it).
type idleSpy struct {
	imapserver.SessionIMAP4rev2
	idling  chan struct{}
	changes *idle.Changes
}

func (s idleSpy) Idle(w *imapserver.UpdateWriter, stop <-chan struct{}) error {
	select {
	case s.idling <- struct{}{}:
	default:
	}
	return idle.ByPolling(s.SessionIMAP4rev2, s.changes, w, stop)
}

func (s *imapTestServer) start() {
	s.t.Helper()
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		s.t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	opts := &imapserver.Options{
		NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			return idleSpy{s.mem.NewSession().(imapserver.SessionIMAP4rev2), s.idling, s.changes}, nil, nil
		},
		Caps:         s.caps,
		InsecureAuth: true,
		Logger:       s.logger,
	}
	if s.impl {
		ln = tls.NewListener(ln, s.tlsCfg)
	} else {
		opts.TLSConfig = s.tlsCfg
	}
	s.srv = imapserver.New(opts)
	s.done = make(chan struct{})
	go func(srv *imapserver.Server, done chan struct{}) {
		defer close(done)
		srv.Serve(ln)
	}(s.srv, s.done)
}

func (s *imapTestServer) stop() {
	if s.srv != nil {
		s.srv.Close()
		<-s.done
		s.srv = nil
	}
}

// testLogger sends server logs to the test log, where they show on
// failure; connection goroutines that outlive the test are muted.
type testLogger struct {
	mu   sync.Mutex
	t    testing.TB
	done bool
}

func newTestLogger(t testing.TB) *testLogger {
	l := &testLogger{t: t}
	t.Cleanup(func() {
		l.mu.Lock()
		l.done = true
		l.mu.Unlock()
	})
	return l
}

func (l *testLogger) Printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.done {
		l.t.Logf(format, args...)
	}
}

func (l *testLogger) Println(args ...any) { l.Printf("%s", fmt.Sprintln(args...)) }

func (s *imapTestServer) deliver(subject string) {
	s.t.Helper()
	if _, err := s.user.Append("INBOX", bytes.NewReader(mailtest.Mail(subject)), &imap.AppendOptions{}); err != nil {
		s.t.Fatal(err)
	}
	s.changes.Notify()
}

// recordingHandler records the subjects it is given; its behaviour per
// subject is set by fail (error) and reject (Rejected).
type recordingHandler struct {
	mu     sync.Mutex
	got    []string
	fail   map[string]bool
	calls  chan string
	reject map[string]bool
}

func newRecordingHandler() *recordingHandler {
	return &recordingHandler{fail: map[string]bool{}, reject: map[string]bool{}, calls: make(chan string, 100)}
}

func (h *recordingHandler) handle(_ context.Context, raw []byte) (Outcome, error) {
	subject := ""
	for line := range strings.SplitSeq(string(raw), "\r\n") {
		if s, ok := strings.CutPrefix(line, "Subject: "); ok {
			subject = s
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case h.calls <- subject:
	default: // nobody is counting any more
	}
	if h.fail[subject] {
		return Processed, errors.New("store unavailable")
	}
	h.got = append(h.got, subject)
	if h.reject[subject] {
		return Rejected, nil
	}
	return Processed, nil
}

func (h *recordingHandler) setFail(subject string, fail bool) {
	h.mu.Lock()
	h.fail[subject] = fail
	h.mu.Unlock()
}

func (h *recordingHandler) handled() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.got)
}

// countMarked counts the mails p has handled and marked.
func countMarked(p *Poller) func() int {
	var n atomic.Int64
	p.OnMail = func(MailTiming) { n.Add(1) }
	return func() int { return int(n.Load()) }
}

// runPoller runs p until the test ends and checks that Run stops cleanly.
func runPoller(t testing.TB, p *Poller) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run returned %v after cancel, want nil", err)
			}
		case <-time.After(mailtest.Deadline):
			t.Error("Run did not return after cancel")
		}
	})
}

func expectMailboxes(t *testing.T, srv *imapTestServer, want map[string][]mailtest.Listed) {
	t.Helper()
	for _, name := range []string{"INBOX", "Processed", "Rejected"} {
		got := mailtest.ReadMailbox(t, srv.addr, "robot", "secret", name)
		if !slices.Equal(got, want[name]) {
			t.Errorf("%s = %v, want %v", name, got, want[name])
		}
	}
}

func testIMAPConfig(addr string) IMAPConfig {
	return IMAPConfig{Addr: addr, Username: "robot", Password: "secret", TLS: TLSNone,
		PollInterval: time.Hour, CommandTimeout: 5 * time.Second}
}

func TestPollerHandlesMovesAndIdles(t *testing.T) {
	tests := []struct {
		name string
		caps imap.CapSet
	}{
		{"MOVE and UIDPLUS", imap.CapSet{imap.CapIMAP4rev1: {}, imap.CapMove: {}, imap.CapUIDPlus: {}}},
		{"COPY fallback", imap.CapSet{imap.CapIMAP4rev1: {}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newIMAPTestServer(t, tt.caps, nil, false)
			for _, s := range []string{"m1", "m2", "m3"} {
				srv.deliver(s)
			}
			h := newRecordingHandler()
			h.reject["m2"] = true
			p := NewPoller(testIMAPConfig(srv.addr), eachMail(h.handle), nil)
			var timings []MailTiming
			var mu sync.Mutex
			p.OnMail = func(mt MailTiming) {
				mu.Lock()
				timings = append(timings, mt)
				mu.Unlock()
			}
			runPoller(t, p)

			// PollInterval is an hour: only IDLE's EXISTS can bring m4 in.
			select {
			case <-srv.idling:
			case <-time.After(mailtest.Deadline):
				t.Fatal("poller never idled")
			}
			srv.deliver("m4")
			mailtest.WaitFor(t, "m4 marked", func() bool {
				mu.Lock()
				defer mu.Unlock()
				return len(timings) == 4
			})

			if got, want := h.handled(), []string{"m1", "m2", "m3", "m4"}; !slices.Equal(got, want) {
				t.Errorf("handled %v, want %v (once each, in order)", got, want)
			}
			expectMailboxes(t, srv, map[string][]mailtest.Listed{
				"Processed": {{Subject: "m1", Seen: true}, {Subject: "m3", Seen: true}, {Subject: "m4", Seen: true}},
				"Rejected":  {{Subject: "m2", Seen: true}},
			})
			mu.Lock()
			defer mu.Unlock()
			for i, mt := range timings {
				if mt.Outcome != map[bool]Outcome{false: Processed, true: Rejected}[i == 1] || mt.Size <= 0 ||
					mt.Fetched.Before(mt.Notified) || mt.Handled.Before(mt.Fetched) || mt.Marked.Before(mt.Handled) {
					t.Errorf("timing %d = %+v", i, mt)
				}
			}
		})
	}
}

func TestPollerHandlerErrorLeavesMailUnseen(t *testing.T) {
	srv := newIMAPTestServer(t, nil, nil, false)
	h := newRecordingHandler()
	h.setFail("a", true)
	srv.deliver("a")
	srv.deliver("b")
	p := NewPoller(testIMAPConfig(srv.addr), eachMail(h.handle), nil)
	p.schedule = []time.Duration{time.Millisecond}
	marked := countMarked(p)
	runPoller(t, p)

	// Two failed calls: the poller retried a without touching b.
	for range 2 {
		select {
		case s := <-h.calls:
			if s != "a" {
				t.Fatalf("handler got %q while a was failing, want a first", s)
			}
		case <-time.After(mailtest.Deadline):
			t.Fatal("handler not called")
		}
	}
	expectMailboxes(t, srv, map[string][]mailtest.Listed{"INBOX": {{Subject: "a", Seen: false}, {Subject: "b", Seen: false}}})

	h.setFail("a", false)
	mailtest.WaitFor(t, "a and b marked", func() bool { return marked() == 2 })
	if got := h.handled(); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("handled %v, want [a b]", got)
	}
	expectMailboxes(t, srv, map[string][]mailtest.Listed{"Processed": {{Subject: "a", Seen: true}, {Subject: "b", Seen: true}}})
}

func TestPollerReconnectsAndHandlesUIDValidity(t *testing.T) {
	srv := newIMAPTestServer(t, nil, nil, false)
	h := newRecordingHandler()
	srv.deliver("m1")
	srv.deliver("m2")
	p := NewPoller(testIMAPConfig(srv.addr), eachMail(h.handle), nil)
	p.schedule = []time.Duration{10 * time.Millisecond}
	marked := countMarked(p)
	reconnects := make(chan struct{}, 1)
	p.OnReconnect = func() {
		select {
		case reconnects <- struct{}{}:
		default:
		}
	}
	runPoller(t, p)
	mailtest.WaitFor(t, "m1, m2 marked", func() bool { return marked() == 2 })
	select {
	case <-srv.idling:
	case <-time.After(mailtest.Deadline):
		t.Fatal("poller never idled")
	}

	srv.stop()
	select {
	case <-reconnects:
	case <-time.After(mailtest.Deadline):
		t.Fatal("OnReconnect not called after the server went away")
	}
	// A new INBOX gets a new UIDVALIDITY and starts again at UID 1, below
	// the UIDs already handled.
	if err := srv.user.Delete("INBOX"); err != nil {
		t.Fatal(err)
	}
	if err := srv.user.Create("INBOX", nil); err != nil {
		t.Fatal(err)
	}
	srv.deliver("m3")
	srv.start()

	mailtest.WaitFor(t, "m3 marked", func() bool { return marked() == 3 })
	if got, want := h.handled(), []string{"m1", "m2", "m3"}; !slices.Equal(got, want) {
		t.Errorf("handled %v, want %v", got, want)
	}
	expectMailboxes(t, srv, map[string][]mailtest.Listed{"Processed": {{Subject: "m1", Seen: true}, {Subject: "m2", Seen: true}, {Subject: "m3", Seen: true}}})
}

// noIdleProxy relays IMAP to addr with IDLE struck from the announced
// capabilities, making a server without IDLE.
func noIdleProxy(t *testing.T, addr string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", addr)
			if err != nil {
				client.Close()
				continue
			}
			go func() {
				defer server.Close()
				io.Copy(server, client)
			}()
			go func() {
				defer client.Close()
				r := bufio.NewReader(server)
				for {
					line, err := r.ReadString('\n')
					if strings.Contains(line, "CAPABILITY") {
						line = strings.ReplaceAll(line, " IDLE", "")
					}
					if _, werr := io.WriteString(client, line); err != nil || werr != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

func TestPollerWithoutIdle(t *testing.T) {
	tests := []struct {
		name string
		poll time.Duration
		kick bool
	}{
		{"poll interval", 20 * time.Millisecond, false},
		{"kick", time.Hour, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newIMAPTestServer(t, nil, nil, false)
			cfg := testIMAPConfig(noIdleProxy(t, srv.addr))
			cfg.PollInterval = tt.poll
			h := newRecordingHandler()
			p := NewPoller(cfg, eachMail(h.handle), nil)
			marked := countMarked(p)
			srv.deliver("m1")
			runPoller(t, p)
			mailtest.WaitFor(t, "m1 marked", func() bool { return marked() == 1 })
			// The poller now sends nothing until its next check, so no
			// EXISTS can reach it.
			srv.deliver("m2")
			if tt.kick {
				p.Kick()
			}
			mailtest.WaitFor(t, "m2 marked", func() bool { return marked() == 2 })
			select {
			case <-srv.idling:
				t.Error("IDLE used although not offered")
			default:
			}
		})
	}
}

func TestPollerTLS(t *testing.T) {
	cert := netTestCert(t)
	for _, mode := range []string{TLSImplicit, TLSStartTLS} {
		t.Run(mode, func(t *testing.T) {
			srv := newIMAPTestServer(t, nil, cert, mode == TLSImplicit)
			srv.deliver("m1")
			h := newRecordingHandler()
			cfg := testIMAPConfig(srv.addr)
			cfg.TLS, cfg.InsecureSkipVerify = mode, true
			runPoller(t, NewPoller(cfg, eachMail(h.handle), nil))
			mailtest.WaitFor(t, "m1 handled", func() bool { return len(h.handled()) == 1 })
		})
	}
}

// TestPollerUntrustedCertificate checks that certificates are verified.
func TestPollerUntrustedCertificate(t *testing.T) {
	srv := newIMAPTestServer(t, nil, netTestCert(t), true)
	cfg := testIMAPConfig(srv.addr)
	cfg.TLS = TLSImplicit
	p := NewPoller(cfg, eachMail(newRecordingHandler().handle), nil)
	_, err := p.session(context.Background())
	var unknown x509.UnknownAuthorityError
	if !errors.As(err, &unknown) {
		t.Errorf("session error = %v, want an unknown authority error", err)
	}
}

// TestPollerWatchdog runs the poller against a server that greets and then
// never answers: the watchdog must drop the connection.
func TestPollerWatchdog(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				io.WriteString(conn, "* OK silent server ready\r\n")
				io.Copy(io.Discard, conn)
			}()
		}
	}()
	cfg := testIMAPConfig(ln.Addr().String())
	cfg.CommandTimeout = 20 * time.Millisecond
	p := NewPoller(cfg, eachMail(newRecordingHandler().handle), nil)
	_, err = p.session(context.Background())
	if !errors.Is(err, ErrNoAnswer) {
		t.Errorf("session error = %v, want ErrNoAnswer", err)
	}
}

func TestIMAPConfigValidate(t *testing.T) {
	tests := []struct {
		addr, tls string
		want      error
	}{
		{"127.0.0.1:143", TLSNone, nil},
		{"[::1]:143", TLSNone, nil},
		{"localhost:143", TLSNone, nil},
		{"192.0.2.1:143", TLSNone, ErrNotLoopback},
		{"mail.example.com:143", TLSNone, ErrNotLoopback},
		{"mail.example.com:993", "", nil},
		{"mail.example.com:993", TLSImplicit, nil},
		{"mail.example.com:143", TLSStartTLS, nil},
		{"mail.example.com:143", "", nil}, // STARTTLS, by the port
		{"127.0.0.1:143", "", nil},        // STARTTLS too: plain text only when asked for
		{"mail.example.com:143", "ssl", ErrBadConfig},
		{"mail.example.com", TLSImplicit, ErrBadConfig},
	}
	for _, tt := range tests {
		cfg := IMAPConfig{Addr: tt.addr, TLS: tt.tls, Username: "robot", Password: "secret"}
		err := cfg.Validate()
		if !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
			t.Errorf("Validate(%s, %q) = %v, want %v", tt.addr, tt.tls, err, tt.want)
		}
		if tt.want != nil {
			if runErr := NewPoller(cfg, nil, nil).Run(context.Background()); !errors.Is(runErr, tt.want) {
				t.Errorf("Run(%s, %q) = %v, want %v", tt.addr, tt.tls, runErr, tt.want)
			}
		}
	}
}

func TestNewUIDs(t *testing.T) {
	tests := []struct {
		in   []imap.UID
		last imap.UID
		want []imap.UID
	}{
		{nil, 0, nil},
		{[]imap.UID{3, 1, 2}, 0, []imap.UID{1, 2, 3}},
		{[]imap.UID{7}, 9, []imap.UID{}}, // "UID 10:*" matched the highest UID, 7
		{[]imap.UID{9, 10, 12}, 9, []imap.UID{10, 12}},
	}
	for _, tt := range tests {
		got := newUIDs(slices.Clone(tt.in), tt.last)
		if len(got) != len(tt.want) || !slices.Equal(got, tt.want) {
			t.Errorf("newUIDs(%v, %d) = %v, want %v", tt.in, tt.last, got, tt.want)
		}
	}
}

func TestBackoff(t *testing.T) {
	schedule := []time.Duration{time.Second, 4 * time.Second}
	tests := []struct {
		n        int
		min, max time.Duration
	}{
		{0, 750 * time.Millisecond, time.Second},
		{1, 3 * time.Second, 4 * time.Second},
		{5, 3 * time.Second, 4 * time.Second}, // the last step repeats
	}
	for _, tt := range tests {
		for range 100 {
			if d := backoff(schedule, tt.n); d <= tt.min || d > tt.max {
				t.Fatalf("backoff(%d) = %v, want in (%v, %v]", tt.n, d, tt.min, tt.max)
			}
		}
	}
	if d := backoff(nil, 3); d != 0 {
		t.Errorf("backoff(nil) = %v, want 0", d)
	}
}

func ExampleIMAPConfig_Validate() {
	cfg := IMAPConfig{Addr: "imap.example.com:143", TLS: TLSNone, Username: "lyngk", Password: "secret"}
	fmt.Println(cfg.Validate())
	// Output: mailer: not a loopback address: IMAP TLS "none" refused for "imap.example.com:143" (use "implicit" or "starttls")
}

// BenchmarkPollerThroughput is the poller's cost per mail when mail comes
// in faster than one at a time: IDLE wake-up, search, batched fetch, a
// no-op handler, batched \Seen and MOVE. Mail is delivered in bursts of 100
// so that imapmemserver's linear scans do not dominate.
func BenchmarkPollerThroughput(b *testing.B) {
	srv := newIMAPTestServer(b, imap.CapSet{imap.CapIMAP4rev1: {}, imap.CapMove: {}, imap.CapUIDPlus: {}}, nil, false)
	p := NewPoller(testIMAPConfig(srv.addr), eachMail(func(context.Context, []byte) (Outcome, error) { return Processed, nil }), nil)
	marked := make(chan struct{}, 100)
	p.OnMail = func(MailTiming) { marked <- struct{}{} }
	runPoller(b, p)
	b.ResetTimer()
	for done := 0; done < b.N; {
		n := min(100, b.N-done)
		for i := range n {
			srv.deliver(fmt.Sprint("m", done+i))
		}
		for range n {
			select {
			case <-marked:
			case <-time.After(mailtest.Deadline):
				b.Fatal("mail not handled")
			}
		}
		done += n
	}
}

// eachMail makes a Handler of a function that handles one mail at a time.
func eachMail(f func(ctx context.Context, raw []byte) (Outcome, error)) Handler {
	return func(ctx context.Context, raws [][]byte) ([]Outcome, error) {
		out := make([]Outcome, 0, len(raws))
		for _, raw := range raws {
			o, err := f(ctx, raw)
			if err != nil {
				return out, err
			}
			out = append(out, o)
		}
		return out, nil
	}
}

// TestWithinBytes: a batch takes the mails, in order, that fit in
// batchBytes, each counted at most maxFetch, and at least one.
func TestWithinBytes(t *testing.T) {
	const mib = 1 << 20
	sized := func(sizes ...int64) []*imapclient.FetchMessageBuffer {
		var ms []*imapclient.FetchMessageBuffer
		for i, s := range sizes {
			if s >= 0 { // -1: expunged since the search, no size
				ms = append(ms, &imapclient.FetchMessageBuffer{UID: imap.UID(i + 1), RFC822Size: s})
			}
		}
		return ms
	}
	uids := func(n int) []imap.UID {
		var u []imap.UID
		for i := range n {
			u = append(u, imap.UID(i+1))
		}
		return u
	}
	for _, c := range []struct {
		name  string
		sizes []int64
		want  int
	}{
		{"small mails all", []int64{2000, 3000, 1500}, 3},
		{"eight of 1 MiB fit", []int64{mib, mib, mib, mib, mib, mib, mib, mib}, 8},
		{"the ninth of 1 MiB waits", []int64{mib, mib, mib, mib, mib, mib, mib, mib, mib, mib}, 8},
		{"a huge mail counts 2 MiB", []int64{50 * mib, 1000}, 2},
		{"huge mails count maxFetch", []int64{50 * mib, 50 * mib, 50 * mib, 50 * mib, 50 * mib}, 4},
		{"expunged counts nothing", []int64{mib, -1, mib}, 3},
	} {
		if got := withinBytes(uids(len(c.sizes)), sized(c.sizes...)); got != c.want {
			t.Errorf("%s: %d mails, want %d", c.name, got, c.want)
		}
	}
}
