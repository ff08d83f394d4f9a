package mailer

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestConfigDefaults: an unset TLS mode follows the port, never "none";
// the poll interval has one default.
func TestConfigDefaults(t *testing.T) {
	for _, tt := range []struct{ addr, want string }{
		{"mail.example.org:993", TLSImplicit},
		{"mail.example.org:465", TLSImplicit},
		{"mail.example.org:143", TLSStartTLS},
		{"mail.example.org:587", TLSStartTLS},
		{"mail.example.org:25", TLSStartTLS},
		{"127.0.0.1:143", TLSStartTLS},
	} {
		if got := (IMAPConfig{Addr: tt.addr}).WithDefaults().TLS; got != tt.want {
			t.Errorf("IMAP %s: TLS %q, want %q", tt.addr, got, tt.want)
		}
		if got := (SMTPConfig{Addr: tt.addr}).WithDefaults().TLS; got != tt.want {
			t.Errorf("SMTP %s: TLS %q, want %q", tt.addr, got, tt.want)
		}
	}
	if got := (IMAPConfig{Addr: "127.0.0.1:143", TLS: TLSNone}).WithDefaults().TLS; got != TLSNone {
		t.Errorf("a set mode was replaced by %q", got)
	}
	c := IMAPConfig{}.WithDefaults()
	if c.PollInterval != time.Minute || c.Mailbox != "INBOX" || c.Processed != "Processed" || c.Rejected != "Rejected" {
		t.Errorf("IMAP defaults: %+v", c)
	}
	if got := NewPoller(IMAPConfig{}, nil, nil).cfg.PollInterval; got != time.Minute {
		t.Errorf("the poller polls every %v, want 1m", got)
	}
}

// TestConfigCAFile: a CA file must hold a certificate; a file that does
// is the only trust anchor.
func TestConfigCAFile(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "ca.pem"), filepath.Join(dir, "bad.pem")
	if err := os.WriteFile(good, testCAPEM(t), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("-----BEGIN NOTHING-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		file string
		want error
	}{
		{good, nil}, {bad, ErrBadConfig}, {filepath.Join(dir, "missing.pem"), ErrBadConfig},
	} {
		icfg := IMAPConfig{Addr: "mail.example.org:993", Username: "u", Password: "p", CAFile: tt.file}
		scfg := SMTPConfig{Addr: "mail.example.org:587", CAFile: tt.file}
		for _, err := range []error{icfg.Validate(), scfg.Validate()} {
			if !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
				t.Errorf("%s: %v, want %v", tt.file, err, tt.want)
			}
		}
	}
}
