package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lyngk.example/lyngk/mailer/localmail"
)

// TestCheckConfigEveryError: -check-config reports every
// error of a file at once (it stopped at the first), names the environment
// variable of a missing password, and refuses forfeit_after <= nag_after
// (a game would be forfeited before its reminder).
func TestCheckConfigEveryError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lyngk.conf")
	conf := "imap_addr = mail.example.org:993\nimap_user = lyngk@example.org\nsmtp_addr = mail.example.org:587\n" +
		"server_address = lyngk@example.org\nthis line has no equals sign\nlog_level = loud\n" +
		"nag_after = 168h\nforfeit_after = 72h\nrate_per_hour = 60\nrate_per_hour = 61\n"
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LYNGK_IMAP_PASSWORD", "")
	var out, errb bytes.Buffer
	if code := run([]string{"serve", "-config", path, "-check-config"}, nil, &out, &errb); code != 1 {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	for _, want := range []string{
		"lyngk: config: line 5: want key = value\n",
		"lyngk: config: line 10: rate_per_hour already set on line 9\n",
		"lyngk: config: log_level must be debug, info, warn or error\n",
		"lyngk: config: forfeit_after (72h0m0s) must be longer than nag_after (168h0m0s)",
		"lyngk: config: imap_* settings: mailer: bad configuration: IMAP password missing (put the password in the environment as LYNGK_IMAP_PASSWORD, not in the file)\n",
	} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb.String())
		}
	}
	if out.Len() != 0 {
		t.Errorf("stdout %q, want nothing", out.String())
	}
}

// TestCheckConfigConnect: -check-config -connect logs in
// to the IMAP and SMTP servers (here the local mode's, a real IMAP and
// SMTP server on loopback) and reports each step of each; a refused login
// fails it after the last step done, with the server's answer. A server_address in another domain than the login's
// is warned about.
func TestCheckConfigConnect(t *testing.T) {
	local, err := localmail.StartLocal(context.Background(), localmail.LocalConfig{SMTPAddr: "127.0.0.1:0", IMAPAddr: "127.0.0.1:0",
		Server: "lyngk@localhost", Dir: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	path := filepath.Join(t.TempDir(), "lyngk.conf")
	conf := "imap_addr = " + local.IMAPAddr() + "\nimap_tls = none\nimap_user = alice@localhost\n" +
		"smtp_addr = " + local.SMTPAddr() + "\nsmtp_tls = none\nsmtp_user = alice@localhost\n" +
		"server_address = lyngk@example.org\n"
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LYNGK_IMAP_PASSWORD", "alice")
	t.Setenv("LYNGK_SMTP_PASSWORD", "alice")
	var out, errb bytes.Buffer
	if code := run([]string{"serve", "-config", path, "-check-config", "-connect"}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	imapAt, smtpAt := "IMAP "+local.IMAPAddr()+": ", "SMTP "+local.SMTPAddr()+": "
	want := imapAt + "connecting (none), then logging in as alice@localhost by password\n" +
		imapAt + "TCP connection to " + local.IMAPAddr() + ": done\n" +
		imapAt + "greeting: done\n" +
		imapAt + "LOGIN as alice@localhost: done\n" +
		imapAt + "LOGOUT: done\n" +
		imapAt + "OK\n" +
		smtpAt + "connecting (none), then logging in as alice@localhost by password\n" +
		smtpAt + "TCP connection to " + local.SMTPAddr() + ": done\n" +
		smtpAt + "EHLO example.org: done\n" +
		smtpAt + "AUTH PLAIN as alice@localhost: done\n" +
		smtpAt + "QUIT: done\n" +
		smtpAt + "OK\n" +
		"configuration OK (real mode), and the servers take the login\n"
	if out.String() != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out.String(), want)
	}
	if w := "lyngk: warning: server_address lyngk@example.org is not in the domain of the login alice@localhost"; !strings.HasPrefix(errb.String(), w) {
		t.Errorf("stderr %q, want the warning %q", errb.String(), w)
	}

	t.Setenv("LYNGK_IMAP_PASSWORD", "wrong")
	out.Reset()
	errb.Reset()
	if code := run([]string{"serve", "-config", path, "-check-config", "-connect"}, nil, &out, &errb); code != 1 {
		t.Fatalf("wrong IMAP password: exit %d, stdout %q", code, out.String())
	}
	if w := imapAt + "greeting: done\n" + imapAt + "FAILED: mailer: IMAP LOGIN: "; !strings.Contains(out.String(), w) ||
		!strings.Contains(out.String(), smtpAt+"OK\n") {
		t.Errorf("stdout:\n%s\nwant the IMAP step failed (%q) and SMTP still checked", out.String(), w)
	}
	if strings.Contains(out.String()+errb.String(), "wrong") {
		t.Error("the password was printed")
	}
}
