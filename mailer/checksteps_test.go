package mailer

import (
	"context"
	"slices"
	"testing"

	"github.com/emersion/go-smtp"
)

// TestCheckSteps: CheckIMAPSteps and CheckSMTPSteps, what
// `lyngk serve -check-config -connect` prints, report each step done over
// implicit TLS and STARTTLS with a private CA; a refused login stops after
// the last step that worked.
func TestCheckSteps(t *testing.T) {
	pki := newTestPKI(t)
	for _, mode := range []string{TLSImplicit, TLSStartTLS} {
		t.Run(mode, func(t *testing.T) {
			srv := newIMAPTestServer(t, nil, pki.server, mode == TLSImplicit)
			cfg := testIMAPConfig(srv.addr)
			cfg.TLS, cfg.CAFile = mode, pki.caFile
			tlsStep := map[string]string{TLSImplicit: "TLS handshake, the server's certificate verified",
				TLSStartTLS: "STARTTLS, the server's certificate verified"}[mode]
			var got []string
			if err := CheckIMAPSteps(context.Background(), cfg, func(s string) { got = append(got, s) }); err != nil {
				t.Fatal(err)
			}
			if want := []string{"TCP connection to " + srv.addr, tlsStep, "greeting", "LOGIN as robot", "LOGOUT"}; !slices.Equal(got, want) {
				t.Errorf("IMAP steps %q, want %q", got, want)
			}
			got = nil
			cfg.Password = "wrong"
			if err := CheckIMAPSteps(context.Background(), cfg, func(s string) { got = append(got, s) }); err == nil ||
				!slices.Equal(got, []string{"TCP connection to " + srv.addr, tlsStep, "greeting"}) {
				t.Errorf("wrong password: %v after %q", err, got)
			}

			rec := &smtpRecorder{log: &eventLog{}, rcptErr: map[string]*smtp.SMTPError{}, user: "robot", password: "secret"}
			addr, _ := startSMTPRecorder(t, rec, "127.0.0.1:0", pki.server, mode == TLSImplicit)
			got = nil
			scfg := SMTPConfig{Addr: addr, TLS: mode, CAFile: pki.caFile, Username: "robot", Password: "secret", HeloName: "example.org"}
			if err := CheckSMTPSteps(context.Background(), scfg, func(s string) { got = append(got, s) }); err != nil {
				t.Fatal(err)
			}
			if mode == TLSStartTLS {
				tlsStep = "greeting, STARTTLS, the server's certificate verified"
			}
			if want := []string{"TCP connection to " + addr, tlsStep, "EHLO example.org", "AUTH PLAIN as robot", "QUIT"}; !slices.Equal(got, want) {
				t.Errorf("SMTP steps %q, want %q", got, want)
			}
		})
	}
}
