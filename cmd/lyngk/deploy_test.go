package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The files an operator installs live in deploy/ at the repository root;
// go test runs in this package's directory.
var (
	unitFile      = filepath.Join("..", "..", "deploy", "lyngk.service")
	exampleConfig = filepath.Join("..", "..", "deploy", "lyngk.conf.example")
	containerFile = filepath.Join("..", "..", "deploy", "Containerfile")
)

// unitExecStart is the command line the unit promises; deploy/README.md and the
// install instructions in the unit's header rely on these paths.
const unitExecStart = "ExecStart=/usr/local/bin/lyngk serve -config /etc/lyngk/lyngk.conf -data /var/lib/lyngk"

// configKeys is every key of the configuration file format. The example must
// name each exactly once, so that it documents the whole format.
var configKeys = []string{
	"imap_addr", "imap_tls", "imap_user", "imap_password",
	"imap_mailbox", "imap_processed", "imap_rejected", "poll_interval",
	"smtp_addr", "smtp_tls", "smtp_user", "smtp_password",
	"server_address", "server_name", "domain", "data_dir", "templates_dir",
	"rate_per_hour", "signups_per_hour", "confirms_per_mailbox_day", "nag_after", "forfeit_after",
	"address_mails_per_hour", "mails_per_day", "dead_letter_keep", "dedupe_keep",
	"log_format", "log_level", "metrics_addr", "tls_ca_file", "robot", "robot_think", "robot_unmoved_per_hour", "trusted_authserv_id",
	"web_addr", "web_url", "web_public", "web_posts_per_game_hour", "web_streams_per_client",
	"imap_auth", "smtp_auth", "oauth2_provider", "oauth2_tenant", "oauth2_client_id",
	"oauth2_client_secret", "oauth2_token_url", "oauth2_device_url", "oauth2_scopes",
	"bounce_verp", "oauth2_auth_url",
}

// systemdAnalyze returns the path of systemd-analyze, or skips the test.
func systemdAnalyze(t *testing.T) string {
	t.Helper()
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed (Debian package: systemd), so deploy/lyngk.service is not checked")
	}
	return sa
}

// verifiableUnit copies deploy/lyngk.service into a temporary directory, as
// lyngk.service, and returns its path. systemd-analyze verify fails when the
// ExecStart binary does not exist, and /usr/local/bin/lyngk is not installed
// on a build machine, so the copy runs the test binary instead: a file that
// is certain to exist and be executable. Only the binary changes; the
// arguments stay as they are.
func verifiableUnit(t *testing.T) string {
	t.Helper()
	unit, err := os.ReadFile(unitFile)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(unit), "\n")
	var found int
	for i, l := range lines {
		if strings.HasPrefix(l, "ExecStart=") {
			found++
			if l != unitExecStart {
				t.Fatalf("%s: %q, want %q", unitFile, l, unitExecStart)
			}
			lines[i] = strings.Replace(l, "/usr/local/bin/lyngk", systemdQuote(testBinary(t)), 1)
		}
	}
	if found != 1 {
		t.Fatalf("%s: %d ExecStart= lines, want 1", unitFile, found)
	}
	path := filepath.Join(t.TempDir(), "lyngk.service")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func testBinary(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// systemdQuote quotes a path for a unit file command line: double quotes
// keep spaces in one word, backslash escapes " and \, and % starts a
// specifier unless doubled.
func systemdQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `%`, `%%`)
	return `"` + r.Replace(s) + `"`
}

// TestSystemdUnitVerifies runs `systemd-analyze verify` on the unit. It needs
// no running systemd (it works in a container whose PID 1 is something else).
// verify exits 0 even when it warns (for an unknown key, say), so any output
// line about our unit fails the test too; lines about other units (the host's
// own) are only logged.
func TestSystemdUnitVerifies(t *testing.T) {
	sa := systemdAnalyze(t)
	unit := verifiableUnit(t)
	out, err := exec.Command(sa, "verify", "--man=no", "--generators=no", unit).CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze verify %s: %v\n%s", unit, err, out)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, unit) || strings.Contains(line, "lyngk.service") {
			t.Errorf("systemd-analyze verify: %s", line)
		} else if line != "" {
			t.Logf("systemd-analyze verify (not about our unit): %s", line)
		}
	}
}

// maxExposure is the highest `systemd-analyze security` exposure (times ten,
// the unit of --threshold) the unit may have. It scores 1.1 with systemd 252;
// what remains is what a mail robot needs: Internet sockets to any mail
// server (so no PrivateNetwork= or IPAddressDeny=), the host's root file
// system, and read access to the clock device that ProtectClock= leaves.
// The margin of 0.1 absorbs a changed weight in another systemd version.
const maxExposure = 12

// sandbox is the hardening the unit promises, setting by setting. Several of
// these are implied by DynamicUser=yes and so do not move the exposure score;
// they are spelled out so that the unit says what it does on its own.
var sandbox = []string{
	"DynamicUser=yes",
	"StateDirectory=lyngk",
	"ConfigurationDirectory=lyngk",
	"ProtectSystem=strict",
	"ProtectHome=yes",
	"PrivateTmp=yes",
	"PrivateDevices=yes",
	"NoNewPrivileges=yes",
	"RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX",
	"CapabilityBoundingSet=",
	"SystemCallFilter=@system-service",
	"MemoryDenyWriteExecute=yes",
	"LockPersonality=yes",
	"RestrictNamespaces=yes",
	"Restart=on-failure",
	"KillSignal=SIGTERM",
	"EnvironmentFile=-/etc/lyngk/lyngk.env",
}

// TestSystemdUnitSandbox keeps the sandboxing from eroding: each promised
// setting is in the unit, and systemd's own judgement of the whole stays at
// or below maxExposure.
func TestSystemdUnitSandbox(t *testing.T) {
	unit, err := os.ReadFile(unitFile)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(unit), "\n")
	for _, want := range sandbox {
		if !slices.Contains(lines, want) {
			t.Errorf("%s: no line %q", unitFile, want)
		}
	}

	sa := systemdAnalyze(t)
	path := verifiableUnit(t)
	out, err := exec.Command(sa, "security", "--offline=yes", "--no-pager",
		"--threshold="+strconv.Itoa(maxExposure), path).CombinedOutput()
	if bytes.Contains(out, []byte("--offline")) {
		t.Skipf("this systemd-analyze cannot judge a unit file offline (systemd 250 or later can):\n%s", out)
	}
	if err != nil {
		t.Fatalf("systemd-analyze security --threshold=%d %s: %v\n%s", maxExposure, path, err, out)
	}
	if !bytes.Contains(out, []byte("Overall exposure level for lyngk.service")) {
		t.Fatalf("systemd-analyze security printed no exposure level:\n%s", out)
	}
}

// readExample parses deploy/lyngk.conf.example with its own small reader of
// the format (`key = value`, # comments, blank lines), independent of the
// daemon's parser, and returns every key with the line numbers it is on.
func readExample(t *testing.T) (values map[string]string, lines map[string][]int) {
	t.Helper()
	f, err := os.Open(exampleConfig)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	values, lines = map[string]string{}, map[string][]int{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if !ok {
			t.Errorf("%s:%d: %q is not key = value", exampleConfig, n, line)
			continue
		}
		key = strings.TrimSpace(key)
		values[key] = strings.TrimSpace(val)
		lines[key] = append(lines[key], n)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return values, lines
}

// TestExampleConfigKeys keeps the example complete: every key of the format
// exactly once, nothing else, and no password in it (they belong in the
// environment).
func TestExampleConfigKeys(t *testing.T) {
	values, lines := readExample(t)
	for _, k := range configKeys {
		if n := len(lines[k]); n != 1 {
			t.Errorf("%s: key %s is set %d times (lines %v), want once", exampleConfig, k, n, lines[k])
		}
	}
	for k, at := range lines {
		if !slices.Contains(configKeys, k) {
			t.Errorf("%s:%v: unknown key %s", exampleConfig, at, k)
		}
	}
	for _, k := range []string{"imap_password", "smtp_password"} {
		if values[k] != "" {
			t.Errorf("%s: %s = %q, want it empty: passwords come from LYNGK_IMAP_PASSWORD / LYNGK_SMTP_PASSWORD", exampleConfig, k, values[k])
		}
	}
}

// TestExampleConfigLoads feeds the example to the daemon's own parser with
// the passwords in the environment, as the unit and the container provide
// them: it must select real mode and keep the documented values.
func TestExampleConfigLoads(t *testing.T) {
	f, err := os.Open(exampleConfig)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	env := map[string]string{"LYNGK_IMAP_PASSWORD": "imap-secret", "LYNGK_SMTP_PASSWORD": "smtp-secret"}
	c, err := parseConfig(f, func(k string) string { return env[k] })
	if err != nil {
		t.Fatalf("%s: %v", exampleConfig, err)
	}
	if c.local() {
		t.Errorf("%s selects local all-in-one mode, want real mode", exampleConfig)
	}
	if c.IMAP.Password != "imap-secret" || c.SMTP.Password != "smtp-secret" {
		t.Errorf("passwords from the environment not applied: imap %q, smtp %q", c.IMAP.Password, c.SMTP.Password)
	}
}

// TestExampleConfigDefaults checks the default that the example states for
// every key (the comment line "# Default: VALUE (remark)" right above it;
// "none" when there is none): the example with every key that has a default
// removed must load, and mean the same as the example with each of those
// keys set to the stated default. The mail settings are compared as mailer
// resolves them (WithDefaults), so an unset TLS mode must follow the port,
// and the store's limits as the store resolves them.
func TestExampleConfigDefaults(t *testing.T) {
	data, err := os.ReadFile(exampleConfig)
	if err != nil {
		t.Fatal(err)
	}
	var without, withDefault []string
	documented := 0
	prev := ""
	for n, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		key, _, isKey := strings.Cut(trimmed, "=")
		if trimmed == "" || strings.HasPrefix(trimmed, "#") || !isKey {
			without, withDefault = append(without, line), append(withDefault, line)
			prev = trimmed
			continue
		}
		key = strings.TrimSpace(key)
		stated, ok := strings.CutPrefix(prev, "# Default: ")
		prev = trimmed
		if !ok {
			t.Errorf("%s:%d: %s: the line above it is not \"# Default: VALUE\"", exampleConfig, n+1, key)
			continue
		}
		value, _, _ := strings.Cut(stated, " ")
		if value == "none" {
			without, withDefault = append(without, line), append(withDefault, line)
			continue
		}
		documented++
		withDefault = append(withDefault, key+" = "+value)
	}
	if documented < 12 {
		t.Fatalf("%s: only %d keys with a stated default", exampleConfig, documented)
	}
	env := map[string]string{"LYNGK_IMAP_PASSWORD": "imap-secret", "LYNGK_SMTP_PASSWORD": "smtp-secret"}
	load := func(name string, lines []string) config {
		t.Helper()
		c, err := parseConfig(strings.NewReader(strings.Join(lines, "\n")), func(k string) string { return env[k] })
		if err != nil {
			t.Fatalf("%s %s: %v", exampleConfig, name, err)
		}
		c.IMAP, c.SMTP, c.Store = c.IMAP.WithDefaults(), c.SMTP.WithDefaults(), c.Store.WithDefaults()
		return c
	}
	got := load("without the keys that have a default", without)
	want := load("with those keys set to their stated default", withDefault)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the defaults are not the documented ones:\n got %+v\nwant %+v", got, want)
	}
}

// TestDeployCommandLines runs the command lines of the unit and of the
// container's ENTRYPOINT, with -check-config added, through runServe: the
// flags they pass must exist and, with the example configuration, be
// accepted.
func TestDeployCommandLines(t *testing.T) {
	entry := containerEntrypoint(t)
	unitArgs := strings.Fields(strings.TrimPrefix(unitExecStart, "ExecStart="))
	t.Setenv("LYNGK_IMAP_PASSWORD", "imap-secret")
	t.Setenv("LYNGK_SMTP_PASSWORD", "smtp-secret")
	for _, tc := range []struct {
		name string
		argv []string
	}{
		{"systemd unit", unitArgs},
		{"Containerfile", entry},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.argv) < 2 || tc.argv[1] != "serve" {
				t.Fatalf("command line %q does not run lyngk serve", tc.argv)
			}
			args := slices.Clone(tc.argv[2:])
			i := slices.Index(args, "-config")
			j := slices.Index(args, "-data")
			if i < 0 || i+1 >= len(args) || j < 0 || j+1 >= len(args) {
				t.Fatalf("command line %q lacks -config FILE or -data DIR", tc.argv)
			}
			args[i+1], args[j+1] = exampleConfig, t.TempDir()
			args = append(args, "-check-config")
			var stdout, stderr bytes.Buffer
			if code := runServe(args, &stdout, &stderr); code != 0 {
				t.Fatalf("lyngk serve %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
			}
			if got, want := stdout.String(), "configuration OK (real mode)\n"; got != want {
				t.Errorf("lyngk serve %s printed %q, want %q", strings.Join(args, " "), got, want)
			}
		})
	}
}

// containerEntrypoint returns the exec-form ENTRYPOINT of deploy/Containerfile.
func containerEntrypoint(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(containerFile)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "ENTRYPOINT ")
		if !ok {
			continue
		}
		if found != nil {
			t.Fatalf("%s: more than one ENTRYPOINT", containerFile)
		}
		// The exec form is a JSON array; the shell form would make /bin/sh
		// PID 1, which neither exists in the image nor passes on SIGTERM.
		if err := json.Unmarshal([]byte(rest), &found); err != nil {
			t.Fatalf("%s: ENTRYPOINT %s is not the exec form: %v", containerFile, rest, err)
		}
	}
	if found == nil {
		t.Fatalf("%s: no ENTRYPOINT", containerFile)
	}
	return found
}
