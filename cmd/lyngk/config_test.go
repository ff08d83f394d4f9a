package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseConfig(t *testing.T) {
	real := "imap_addr = mail.example.org:993\nimap_tls = implicit\nimap_user = lyngk@example.org\n" +
		"smtp_addr = mail.example.org:587\nsmtp_tls = starttls\nrobot_address = lyngk@example.org\n"
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	tests := []struct {
		name, file string
		env        func(string) string
		err        string // substring of the error; "" = valid
		check      func(c config) bool
	}{
		{name: "empty is local mode", file: "# nothing\n\n", env: env(),
			check: func(c config) bool { return c.local() && c.Robot == "lyngk@localhost" && c.PollInterval == time.Minute }},
		{name: "real mode, password from the environment", file: real, env: env("LYNGK_IMAP_PASSWORD", "s3cret"),
			check: func(c config) bool { return !c.local() && c.IMAPPassword == "s3cret" && c.IMAPMailbox == "INBOX" }},
		{name: "environment overrides the file", file: real + "imap_password = fromfile\n", env: env("LYNGK_IMAP_PASSWORD", "fromenv"),
			check: func(c config) bool { return c.IMAPPassword == "fromenv" }},
		{name: "real mode without password", file: real, env: env(), err: "imap_password"},
		{name: "smtp user without password", file: real + "smtp_user = u\n", env: env("LYNGK_IMAP_PASSWORD", "x"), err: "smtp_password"},
		{name: "only imap", file: "imap_addr = a:1\n", env: env(), err: "needs smtp_addr"},
		{name: "only smtp: mail comes through lyngk process", file: "smtp_addr = 127.0.0.1:25\nsmtp_tls = none\n", env: env(),
			check: func(c config) bool { return !c.local() && c.IMAPAddr == "" }},
		{name: "plain to a remote host", file: strings.Replace(real, "imap_tls = implicit", "imap_tls = none", 1),
			env: env("LYNGK_IMAP_PASSWORD", "x"), err: "loopback"},
		{name: "plain to loopback", file: "imap_addr = 127.0.0.1:143\nimap_tls = none\nimap_user = u\nimap_password = p\nsmtp_addr = localhost:25\nsmtp_tls = none\n",
			env: env(), check: func(c config) bool { return c.IMAPTLS == "none" }},
		{name: "bad tls mode", file: strings.Replace(real, "starttls", "ssl", 1), env: env("LYNGK_IMAP_PASSWORD", "x"), err: "smtp_tls must be"},
		{name: "unknown key", file: "colour = red\n", env: env(), err: "line 1: colour: unknown key"},
		{name: "duplicate key", file: "domain = a\ndomain = b\n", env: env(), err: "line 2: domain already set on line 1"},
		{name: "no equals sign", file: "domain\n", env: env(), err: "want key = value"},
		{name: "bad duration", file: "nag_after = 7 days\n", env: env(), err: "positive duration"},
		{name: "durations", file: "nag_after = 48h\nforfeit_after = 96h\npoll_interval = 30s\n", env: env(),
			check: func(c config) bool {
				return c.NagAfter == 48*time.Hour && c.ForfeitAfter == 96*time.Hour && c.PollInterval == 30*time.Second
			}},
		{name: "bad rate", file: "rate_per_hour = 0\n", env: env(), err: "at least 1"},
		{name: "bad robot", file: "robot_address = lyngk\n", env: env(), err: "not a mail address"},
		{name: "bad log format", file: "log_format = xml\n", env: env(), err: "log_format"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseConfig(strings.NewReader(tt.file), tt.env)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(c) {
				t.Fatalf("unexpected config: %+v", c)
			}
		})
	}
}

// TestCheckConfig runs `lyngk serve -check-config` the way an operator
// does, and checks that a password never shows in what it prints.
func TestCheckConfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "lyngk.conf")
	conf := "imap_addr = 127.0.0.1:143\nimap_tls = none\nimap_user = u\nimap_password = hunter2\n" +
		"smtp_addr = 127.0.0.1:25\nsmtp_tls = none\nrobot_address = lyngk@example.org\n"
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"serve", "-config", path, "-check-config"}, nil, &out, &errb); code != 0 ||
		out.String() != "configuration OK (real mode)\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	bad := strings.Replace(conf, "imap_addr = 127.0.0.1:143", "imap_addr = mail.example.org:143", 1)
	if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"serve", "-config", path, "-check-config"}, nil, &out, &errb); code != 1 ||
		!strings.Contains(errb.String(), "imap_tls none is allowed only to a loopback address") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	if strings.Contains(out.String()+errb.String(), "hunter2") {
		t.Fatal("a password was printed")
	}
	if code := run([]string{"serve", "-password", "x"}, nil, &out, &errb); code != 2 {
		t.Fatalf("unknown flag: exit %d, want 2", code)
	}
}
