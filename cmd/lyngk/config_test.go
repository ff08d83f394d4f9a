package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/mailer"
	"lyngk.example/lyngk/store"
)

func TestParseConfig(t *testing.T) {
	real := "imap_addr = mail.example.org:993\nimap_user = lyngk@example.org\n" +
		"smtp_addr = mail.example.org:587\nserver_address = lyngk@example.org\n"
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
	dir := t.TempDir()
	caFile, notCA := filepath.Join(dir, "ca.pem"), filepath.Join(dir, "not-ca.pem")
	writeTestCA(t, caFile)
	if err := os.WriteFile(notCA, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, file string
		env        func(string) string
		err        string // substring of the error; "" = valid
		check      func(c config) bool
	}{
		{name: "empty is local mode", file: "# nothing\n\n", env: env(),
			check: func(c config) bool {
				return c.local() && c.Server == "lyngk@localhost" && c.IMAP.WithDefaults().PollInterval == time.Minute
			}},
		// domain was "localhost" unless set, so real
		// mode's Message-IDs and picture cids ended in @localhost (rspamd
		// MID_RHS_NOT_FQDN) and the EHLO said localhost.
		{name: "domain defaults to server_address's", file: strings.Replace(real, "server_address = lyngk@example.org", "server_address = lyngk@Games.Example.org", 1),
			env: env("LYNGK_IMAP_PASSWORD", "s3cret"), check: func(c config) bool { return c.Domain == "games.example.org" }},
		{name: "domain as set", file: real + "domain = mail.example.org\n",
			env: env("LYNGK_IMAP_PASSWORD", "s3cret"), check: func(c config) bool { return c.Domain == "mail.example.org" }},
		{name: "real mode, password from the environment", file: real, env: env("LYNGK_IMAP_PASSWORD", "s3cret"),
			check: func(c config) bool {
				return !c.local() && c.IMAP.Password == "s3cret" && c.IMAP.WithDefaults().Mailbox == "INBOX"
			}},
		// An unset TLS mode follows the port (it was read as "none" here and
		// refused for a remote host).
		{name: "unset TLS modes follow the ports", file: real, env: env("LYNGK_IMAP_PASSWORD", "s3cret"),
			check: func(c config) bool {
				return c.IMAP.WithDefaults().TLS == mailer.TLSImplicit && c.SMTP.WithDefaults().TLS == mailer.TLSStartTLS
			}},
		{name: "unset TLS modes follow the ports: 143 and 465", file: strings.NewReplacer(":993", ":143", ":587", ":465").Replace(real),
			env: env("LYNGK_IMAP_PASSWORD", "s3cret"),
			check: func(c config) bool {
				return c.IMAP.WithDefaults().TLS == mailer.TLSStartTLS && c.SMTP.WithDefaults().TLS == mailer.TLSImplicit
			}},
		{name: "plain text is never the default, even on loopback", file: "smtp_addr = 127.0.0.1:25\n", env: env(),
			check: func(c config) bool { return c.SMTP.WithDefaults().TLS == mailer.TLSStartTLS }},
		{name: "CA file for both", file: "smtp_addr = 127.0.0.1:25\nsmtp_tls = none\ntls_ca_file = " + caFile + "\n", env: env(),
			check: func(c config) bool { return c.SMTP.CAFile == caFile && c.IMAP.CAFile == caFile }},
		{name: "CA file without a certificate", file: "smtp_addr = 127.0.0.1:25\ntls_ca_file = " + notCA + "\n", env: env(),
			err: "no PEM certificate"},
		{name: "CA file missing", file: "smtp_addr = 127.0.0.1:25\ntls_ca_file = " + notCA + ".missing\n", env: env(),
			err: "no such file"},
		{name: "environment overrides the file", file: real + "imap_password = fromfile\n", env: env("LYNGK_IMAP_PASSWORD", "fromenv"),
			check: func(c config) bool { return c.IMAP.Password == "fromenv" }},
		{name: "real mode without password", file: real, env: env(), err: "imap_* settings: mailer: bad configuration: IMAP password missing"},
		{name: "smtp user without password", file: real + "smtp_user = u\n", env: env("LYNGK_IMAP_PASSWORD", "x"), err: "SMTP username and password"},
		{name: "only imap", file: "imap_addr = a:1\n", env: env(), err: "needs smtp_addr"},
		{name: "only smtp: mail comes through lyngk process", file: "smtp_addr = 127.0.0.1:25\nsmtp_tls = none\n", env: env(),
			check: func(c config) bool { return !c.local() && c.IMAP.Addr == "" }},
		{name: "plain to a remote host", file: real + "imap_tls = none\n",
			env: env("LYNGK_IMAP_PASSWORD", "x"), err: "loopback"},
		{name: "plain to loopback", file: "imap_addr = 127.0.0.1:143\nimap_tls = none\nimap_user = u\nimap_password = p\nsmtp_addr = localhost:25\nsmtp_tls = none\n",
			env: env(), check: func(c config) bool { return c.IMAP.TLS == mailer.TLSNone }},
		{name: "bad tls mode", file: real + "smtp_tls = ssl\n", env: env("LYNGK_IMAP_PASSWORD", "x"), err: `smtp_* settings: mailer: bad configuration: SMTP TLS mode "ssl"`},
		{name: "unknown key", file: "colour = red\n", env: env(), err: "line 1: colour: unknown key"},
		{name: "duplicate key", file: "domain = a\ndomain = b\n", env: env(), err: "line 2: domain already set on line 1"},
		{name: "no equals sign", file: "domain\n", env: env(), err: "want key = value"},
		{name: "bad duration", file: "nag_after = 7 days\n", env: env(), err: "positive duration"},
		{name: "durations", file: "nag_after = 48h\nforfeit_after = 96h\npoll_interval = 30s\n", env: env(),
			check: func(c config) bool {
				return c.NagAfter == 48*time.Hour && c.ForfeitAfter == 96*time.Hour && c.IMAP.PollInterval == 30*time.Second
			}},
		{name: "bad rate", file: "rate_per_hour = 0\n", env: env(), err: "at least 1"},
		{name: "store limits", file: "address_mails_per_hour = 20\ndead_letter_keep = 24h\ndedupe_keep = 168h\n", env: env(),
			check: func(c config) bool {
				return c.Store == store.Limits{MailsPerHour: 20, DeadLetterKeep: 24 * time.Hour, SeenKeep: 168 * time.Hour}
			}},
		{name: "negative hourly cap", file: "address_mails_per_hour = -1\n", env: env(), err: "store: bad limits"},
		{name: "dedupe records kept too briefly", file: "dedupe_keep = 24h\n", env: env(), err: "store: bad limits: dedupe keep"},
		{name: "bad server address", file: "server_address = lyngk\n", env: env(), err: "server_address \"lyngk\" is not a mail address"},
		// The server's address under its old key, robot_address: read,
		// with a warning to rename it; both keys at once are refused.
		{name: "robot_address still read", file: strings.Replace(real, "server_address", "robot_address", 1),
			env: env("LYNGK_IMAP_PASSWORD", "s3cret"), check: func(c config) bool {
				w := c.warnings()
				return c.Server == "lyngk@example.org" && len(w) == 1 && strings.HasPrefix(w[0], "robot_address is the old name of server_address")
			}},
		{name: "server address twice", file: real + "robot_address = other@example.org\n", env: env("LYNGK_IMAP_PASSWORD", "s3cret"),
			err: "line 5: robot_address already set on line 4"},
		{name: "server name", file: "server_name = Club Kris\n", env: env(), check: func(c config) bool { return c.ServerName == "Club Kris" }},
		{name: "bad server name", file: "server_name = Kris <kris@example.org>\n", env: env(), err: "server_name: engine: server name"},
		{name: "bad log format", file: "log_format = xml\n", env: env(), err: "log_format"},
		{name: "robot player on by default, 2s", file: "", env: env(),
			check: func(c config) bool { return c.RobotPlayer && c.RobotThink == 2*time.Second }},
		{name: "robot player off, think 500ms", file: "robot = false\nrobot_think = 500ms\n", env: env(),
			check: func(c config) bool { return !c.RobotPlayer && c.RobotThink == 500*time.Millisecond }},
		{name: "bad robot switch", file: "robot = yes\n", env: env(), err: "line 1: robot: want true or false"},
		{name: "bad robot think", file: "robot_think = 0s\n", env: env(), err: "positive duration"},
		// robot_levels: every level by default, weakest first whatever
		// the order written; "robot" thinks robot_think.
		{name: "every robot level by default", file: "", env: env(), check: func(c config) bool {
			ls, err := c.robotLevels()
			return err == nil && slices.Equal(robotIDs(ls), robotIDs(engine.RobotLevels))
		}},
		{name: "robot levels chosen", file: "robot_levels = robot-max, robot ROBOT-NOVICE\nrobot_think = 3s\n", env: env(),
			check: func(c config) bool {
				ls, err := c.robotLevels()
				return err == nil && slices.Equal(robotIDs(ls), []string{"robot-novice", "robot", "robot-max"}) &&
					ls[1].Think.Time == 3*time.Second && ls[1].CPU == engine.ThinkCPU(3*time.Second) && ls[0].Think.Playouts > 0
			}},
		{name: "unknown robot level", file: "robot_levels = robot, robot-god\n", env: env(),
			err: `robot_levels: no level "robot-god": choose among robot-novice robot-club robot robot-max`},
		{name: "robot level twice", file: "robot_levels = robot robot\n", env: env(), err: `robot_levels: "robot" twice`},
		{name: "web off, public by default", file: "", env: env(),
			check: func(c config) bool { return c.WebAddr == "" && c.WebURL == "" && c.WebPublic }},
		{name: "web on, private, URL without its last slash",
			file: "web_addr = 127.0.0.1:8081\nweb_url = https://lyngk.example.org/\nweb_public = false\n", env: env(),
			check: func(c config) bool {
				return c.WebAddr == "127.0.0.1:8081" && c.WebURL == "https://lyngk.example.org" && !c.WebPublic
			}},
		// The web part may live under a path of a site.
		{name: "web URL under a path", file: "web_url = https://example.org/lyngk/\n", env: env(),
			check: func(c config) bool { return c.WebURL == "https://example.org/lyngk" && c.webBase() == "/lyngk" }},
		{name: "web URL at the root", file: "web_url = https://lyngk.example.org\n", env: env(),
			check: func(c config) bool { return c.webBase() == "" }},
		{name: "web URL under an unclean path", file: "web_url = https://example.org/a/../lyngk\n", env: env(), err: "web_url"},
		{name: "bad web address", file: "web_addr = 8080\n", env: env(), err: "web_addr"},
		{name: "web URL without scheme", file: "web_url = lyngk.example.org\n", env: env(), err: "web_url"},
		{name: "web URL with a query", file: "web_url = https://lyngk.example.org/?x=1\n", env: env(), err: "web_url"},
		{name: "web URL of another scheme", file: "web_url = ftp://lyngk.example.org\n", env: env(), err: "web_url"},
		{name: "bad web_public", file: "web_public = yes\n", env: env(), err: "line 1: web_public: want true or false"},
		// OAuth2: no password needed, the secrets from the environment, one
		// token source for both logins, refreshed from the data directory.
		{name: "OAuth2 with the Microsoft preset", file: real + "imap_auth = xoauth2\nsmtp_auth = xoauth2\nsmtp_user = lyngk@example.org\n" +
			"oauth2_provider = microsoft\noauth2_client_id = 0a1b\noauth2_scopes = a b\n",
			env: env("LYNGK_OAUTH2_CLIENT_SECRET", "cs", "LYNGK_OAUTH2_REFRESH_TOKEN", "rt"),
			check: func(c config) bool {
				return c.IMAP.Auth == mailer.AuthXOAuth2 && c.IMAP.Tokens != nil && c.SMTP.Tokens != nil &&
					c.OAuth2.ClientSecret == "cs" && c.OAuth2Refresh == "rt" && len(c.OAuth2.Scopes) == 2 &&
					c.tokenFile() == filepath.Join("lyngk-data", "oauth2-token.json")
			}},
		{name: "OAuth2 for SMTP only", file: real + "smtp_auth = oauthbearer\nsmtp_user = lyngk@example.org\n" +
			"oauth2_client_id = x\noauth2_token_url = https://id.example.org/token\n", env: env("LYNGK_IMAP_PASSWORD", "s3cret"),
			check: func(c config) bool { return c.IMAP.Tokens == nil && c.SMTP.Tokens != nil }},
		{name: "OAuth2 without a client", file: real + "imap_auth = xoauth2\noauth2_provider = gmail\n", env: env(),
			err: "oauth2_client_id missing"},
		{name: "OAuth2 of an unknown provider", file: real + "imap_auth = oauthbearer\noauth2_provider = yahoo\noauth2_client_id = x\n", env: env(),
			err: `oauth2_provider "yahoo"`},
		{name: "unknown login method", file: real + "imap_auth = cram-md5\n", env: env(), err: `IMAP login "cram-md5"`},
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
		"smtp_addr = 127.0.0.1:25\nsmtp_tls = none\nserver_address = lyngk@example.org\n"
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
		!strings.Contains(errb.String(), `imap_* settings: mailer: not a loopback address: IMAP TLS "none" refused for "mail.example.org:143"`) {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	if strings.Contains(out.String()+errb.String(), "hunter2") {
		t.Fatal("a password was printed")
	}
	if code := run([]string{"serve", "-password", "x"}, nil, &out, &errb); code != 2 {
		t.Fatalf("unknown flag: exit %d, want 2", code)
	}
}

// writeTestCA writes a self-signed CA certificate in PEM to path.
func writeTestCA(t *testing.T, path string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "lyngk test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// robotIDs are the userids of levels, in order.
func robotIDs(ls []engine.RobotLevel) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.ID)
	}
	return out
}
