package main

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"lyngk.example/lyngk/mailer/oauth/oauthtest"
)

// TestOAuth2Login runs `lyngk oauth2 login` as an operator does, against a
// fake issuer on loopback: it prints the URL and the code, waits for the
// approval, and leaves the refresh token in the data directory, mode 0600.
func TestOAuth2Login(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	iss := oauthtest.Start(ln, "lyngk@example.org", "lyngk-client")
	defer iss.Close()
	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "lyngk.conf")
	conf := "imap_addr = mail.example.org:993\nimap_user = lyngk@example.org\nimap_auth = xoauth2\n" +
		"smtp_addr = mail.example.org:465\nsmtp_user = lyngk@example.org\nsmtp_auth = xoauth2\n" +
		"server_address = lyngk@example.org\noauth2_client_id = lyngk-client\n" +
		"oauth2_token_url = " + iss.URL + "/token\noauth2_device_url = " + iss.URL + "/device\noauth2_scopes = mail\n"
	if err := os.WriteFile(cfgFile, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"oauth2", "login", "-config", cfgFile, "-data", data}, nil, pw, &stderr)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	var lines []string
	code := regexp.MustCompile(`^Open \S+/verify and type the code (\S+)$`)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if m := code.FindStringSubmatch(sc.Text()); m != nil && !iss.Approve(m[1]) {
			t.Errorf("code %q unknown to the issuer", m[1])
		}
	}
	if rc := <-done; rc != 0 {
		t.Fatalf("exit %d: %s", rc, stderr.String())
	}
	if len(lines) != 4 || lines[0] != "Logging in lyngk@example.org at "+iss.URL+"/token." ||
		lines[3] != "Saved the refresh token to "+filepath.Join(data, "oauth2-token.json")+"." {
		t.Errorf("output:\n%q", lines)
	}
	fi, err := os.Stat(filepath.Join(data, "oauth2-token.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi, err)
	}

	// -browser: the URL to open, the browser sent back to the loopback
	// listener with the code.
	os.Remove(filepath.Join(data, "oauth2-token.json"))
	os.WriteFile(cfgFile, []byte(conf+"oauth2_auth_url = "+iss.URL+"/authorize\n"), 0o600)
	pr, pw = io.Pipe()
	go func() {
		done <- run([]string{"oauth2", "login", "-config", cfgFile, "-data", data, "-browser"}, nil, pw, &stderr)
		pw.Close()
	}()
	lines = nil
	for sc := bufio.NewScanner(pr); sc.Scan(); {
		lines = append(lines, sc.Text())
		if strings.HasPrefix(sc.Text(), iss.URL+"/authorize?") {
			back, err := iss.Authorize(sc.Text())
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.Get(back)
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("the browser's return: %v %v", resp, err)
			}
		}
	}
	if rc := <-done; rc != 0 || lines[len(lines)-1] != "Saved the refresh token to "+filepath.Join(data, "oauth2-token.json")+"." {
		t.Fatalf("-browser: exit %d, %q: %s", rc, lines, stderr.String())
	}

	// Without an OAuth2 login in the file there is nothing to do.
	os.WriteFile(cfgFile, []byte("server_address = lyngk@example.org\n"), 0o600)
	stderr.Reset()
	if rc := run([]string{"oauth2", "login", "-config", cfgFile}, nil, io.Discard, &stderr); rc != 1 {
		t.Errorf("no OAuth2 login configured: exit %d, %s", rc, stderr.String())
	}
	if rc := run([]string{"oauth2"}, nil, io.Discard, io.Discard); rc != 2 {
		t.Errorf("no subcommand: exit %d, want 2", rc)
	}
}
