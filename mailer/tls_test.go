package mailer

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"lyngk.example/lyngk/mailer/mailtest"
)

// testPKI is a throw-away certificate authority and a server certificate
// for 127.0.0.1 and localhost that it signed, as a private CA deploys them.
type testPKI struct {
	caPEM  []byte      // the CA certificate, what tls_ca_file names
	caFile string      // caPEM written to a file
	server *tls.Config // the server's certificate and key
}

func newTestPKI(t testing.TB) *testPKI {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "lyngk test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := localhostCert(2)
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	p := &testPKI{
		caPEM:  pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		caFile: filepath.Join(t.TempDir(), "ca.pem"),
		server: &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}},
	}
	if err := os.WriteFile(p.caFile, p.caPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func testCAPEM(t testing.TB) []byte { return newTestPKI(t).caPEM }

// logRecords is a slog handler that keeps every record, for tests that
// check what an operator would read in the log.
type logRecords struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (l *logRecords) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecords) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logRecords) WithGroup(string) slog.Handler            { return l }
func (l *logRecords) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.recs = append(l.recs, r.Clone())
	return nil
}

// warnings returns the message and attributes of every record at Warn.
func (l *logRecords) warnings() []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, r := range l.recs {
		if r.Level != slog.LevelWarn {
			continue
		}
		m := map[string]any{"msg": r.Message}
		r.Attrs(func(a slog.Attr) bool {
			m[a.Key] = a.Value.Any()
			return true
		})
		out = append(out, m)
	}
	return out
}

// TestPollerCAFile: a server certificate from a private CA is accepted with
// that CA as CAFile, over implicit TLS and STARTTLS.
func TestPollerCAFile(t *testing.T) {
	pki := newTestPKI(t)
	for _, mode := range []string{TLSImplicit, TLSStartTLS} {
		t.Run(mode, func(t *testing.T) {
			srv := newIMAPTestServer(t, nil, pki.server, mode == TLSImplicit)
			srv.deliver("m1")
			h := newRecordingHandler()
			cfg := testIMAPConfig(srv.addr)
			cfg.TLS, cfg.CAFile = mode, pki.caFile
			runPoller(t, NewPoller(cfg, eachMail(h.handle), nil))
			mailtest.WaitFor(t, "m1 handled", func() bool { return len(h.handled()) == 1 })
		})
	}
}

// TestPollerConnectFailures: a wrong password, a certificate from another
// CA and a server without STARTTLS each give one warning per attempt that
// says what is wrong, and the attempts follow the reconnect backoff instead
// of a tight loop.
func TestPollerConnectFailures(t *testing.T) {
	pki, other := newTestPKI(t), newTestPKI(t)
	tests := []struct {
		name      string
		mode      string
		serverTLS *tls.Config // nil: the server offers no TLS
		caFile    string
		password  string
		want      string // in the logged error
	}{
		{"wrong password", TLSImplicit, pki.server, pki.caFile, "wrong", "mailer: IMAP LOGIN: "},
		{"wrong CA, implicit TLS", TLSImplicit, pki.server, other.caFile, "secret", "certificate signed by unknown authority"},
		{"wrong CA, STARTTLS", TLSStartTLS, pki.server, other.caFile, "secret", "certificate signed by unknown authority"},
		{"no STARTTLS", TLSStartTLS, nil, pki.caFile, "secret", "mailer: IMAP STARTTLS: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newIMAPTestServer(t, nil, tt.serverTLS, tt.mode == TLSImplicit && tt.serverTLS != nil)
			cfg := testIMAPConfig(srv.addr)
			cfg.TLS, cfg.CAFile, cfg.Password = tt.mode, tt.caFile, tt.password
			logs := &logRecords{}
			p := NewPoller(cfg, eachMail(newRecordingHandler().handle), slog.New(logs))
			p.schedule = []time.Duration{40 * time.Millisecond, 400 * time.Millisecond, time.Hour}
			reconnects := make(chan time.Time, 10)
			p.OnReconnect = func() { reconnects <- time.Now() }
			runPoller(t, p)
			var at []time.Time
			for range 2 {
				select {
				case ts := <-reconnects:
					at = append(at, ts)
				case <-time.After(mailtest.Deadline):
					t.Fatalf("%d reconnects, want 2", len(at))
				}
			}
			if gap := at[1].Sub(at[0]); gap < 30*time.Millisecond {
				t.Errorf("second attempt %v after the first, want the backoff (at least 30ms)", gap)
			}
			warns := logs.warnings()
			if len(warns) != 2 {
				t.Fatalf("%d warnings, want one per attempt (2): %v", len(warns), warns)
			}
			t.Logf("logged: %v", warns[0]["err"])
			for i, w := range warns {
				err, _ := w["err"].(error)
				retry, _ := w["retry_in"].(time.Duration)
				if w["msg"] != "IMAP connection failed" || err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("warning %d: %v, want IMAP connection failed with an error containing %q", i, w, tt.want)
				}
				if step := p.schedule[i]; retry <= step*3/4 || retry > step {
					t.Errorf("warning %d: retry_in %v, want the backoff step %v (less jitter)", i, retry, step)
				}
			}
		})
	}
}

// TestSenderDialFailures: the submission server's refusals name their cause:
// a wrong password, a certificate from another CA (implicit TLS and
// STARTTLS), a server without STARTTLS.
func TestSenderDialFailures(t *testing.T) {
	pki, other := newTestPKI(t), newTestPKI(t)
	tests := []struct {
		name      string
		mode      string
		serverTLS *tls.Config
		caFile    string
		password  string
		want      string
	}{
		{"right CA", TLSStartTLS, pki.server, pki.caFile, "secret", ""},
		{"wrong password", TLSStartTLS, pki.server, pki.caFile, "wrong", "mailer: SMTP AUTH: "},
		{"wrong CA, implicit TLS", TLSImplicit, pki.server, other.caFile, "secret", "certificate signed by unknown authority"},
		{"wrong CA, STARTTLS", TLSStartTLS, pki.server, other.caFile, "secret", "certificate signed by unknown authority"},
		{"no STARTTLS", TLSStartTLS, nil, pki.caFile, "secret", "mailer: SMTP STARTTLS: smtp: server doesn't support STARTTLS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := &eventLog{}
			srv := &smtpRecorder{log: log, rcptErr: map[string]*smtp.SMTPError{}, user: "robot", password: "secret"}
			addr, _ := startSMTPRecorder(t, srv, "127.0.0.1:0", tt.serverTLS, tt.mode == TLSImplicit && tt.serverTLS != nil)
			s := NewSender(SMTPConfig{Addr: addr, TLS: tt.mode, CAFile: tt.caFile, Username: "robot", Password: tt.password},
				newFakeQueue(log), nil)
			c, err := s.dial(context.Background())
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				s.quit(c)
				return
			}
			if err == nil {
				s.quit(c)
				t.Fatalf("dial succeeded, want an error containing %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("dial: %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
