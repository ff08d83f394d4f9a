package oauth

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"lyngk.example/lyngk/mailer/oauth/oauthtest"
)

func issuer(t *testing.T) (*oauthtest.Issuer, Config) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	iss := oauthtest.Start(ln, "robot@example.org", "lyngk-test")
	t.Cleanup(iss.Close)
	return iss, Config{ClientID: "lyngk-test", TokenURL: iss.URL + "/token", DeviceURL: iss.URL + "/device", Scopes: []string{"mail"}}
}

// TestLoginDevice: the device grant as the operator goes through it: the
// URL and code printed, the code typed on the issuer's page, the refresh
// token saved with mode 0600; the source then refreshes from the file.
func TestLoginDevice(t *testing.T) {
	iss, cfg := issuer(t)
	file := filepath.Join(t.TempDir(), "data", TokenFile)
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Login(context.Background(), cfg, file, pw)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	if !sc.Scan() {
		t.Fatal("no output")
	}
	m := regexp.MustCompile(`^Open (http://\S+/verify) and type the code (\S+)$`).FindStringSubmatch(sc.Text())
	if m == nil || !strings.HasPrefix(m[1], iss.URL) {
		t.Fatalf("first line %q: want the URL and the code", sc.Text())
	}
	if !iss.Approve(m[2]) {
		t.Fatalf("code %q unknown to the issuer", m[2])
	}
	var rest []string
	for sc.Scan() {
		rest = append(rest, sc.Text())
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := rest[len(rest)-1]; got != "Saved the refresh token to "+file+"." {
		t.Errorf("last line %q", got)
	}
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", fi.Mode().Perm())
	}
	// The saved access token is still valid: no refresh needed.
	src := NewSource(cfg, file, "")
	if _, err := src.Token(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := iss.Refreshes(); n != 0 {
		t.Errorf("%d refreshes with a valid access token, want 0", n)
	}
}

// TestLoginNoApproval: a code nobody approves ends when ctx ends, and nothing
// is saved.
func TestLoginNoApproval(t *testing.T) {
	_, cfg := issuer(t)
	file := filepath.Join(t.TempDir(), TokenFile)
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Login(ctx, cfg, file, pw); pw.Close() }()
	bufio.NewReader(pr).ReadString('\n')
	cancel()
	go io.Copy(io.Discard, pr)
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Login = %v, want context.Canceled", err)
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("token file written without approval: %v", err)
	}
}

// TestSourceRefresh: an expired access token is refreshed; a rotated
// refresh token is saved (mode 0600) and the next start uses it; a revoked
// one says to log in again; a missing file says to log in first.
func TestSourceRefresh(t *testing.T) {
	iss, cfg := issuer(t)
	iss.Lifetime = 5 * time.Second // below x/oauth2's 10 s margin: every Token refreshes
	iss.Rotate = true
	dir := t.TempDir()
	file := filepath.Join(dir, TokenFile)
	ctx := context.Background()

	if _, err := NewSource(cfg, file, "").Token(ctx); !errors.Is(err, ErrNoToken) {
		t.Fatalf("no file: %v, want ErrNoToken", err)
	}
	rt := iss.NewRefreshToken()
	env := NewSource(cfg, file, rt)
	a1, err := env.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refresh token from the environment was written to disk: %v", err)
	}
	// The issuer rotated rt away: the environment's token is spent, but
	// the source keeps the new one in memory.
	a2, err := env.Token(ctx)
	if err != nil || a2 == a1 {
		t.Fatalf("second token %q, %v: want a new one", a2, err)
	}

	if err := save(file, mustToken(iss.NewRefreshToken())); err != nil {
		t.Fatal(err)
	}
	src := NewSource(cfg, file, "")
	if _, err := src.Token(ctx); err != nil {
		t.Fatal(err)
	}
	after, err := load(file)
	if err != nil {
		t.Fatal(err)
	}
	// The file holds the rotated token: a new source refreshes from it.
	if _, err := NewSource(cfg, file, "").Token(ctx); err != nil {
		t.Fatalf("refresh from the rotated token saved: %v", err)
	}
	if n := iss.Refreshes(); n != 4 {
		t.Errorf("%d refreshes, want 4", n)
	}
	if after.RefreshToken == "" {
		t.Error("saved token has no refresh token")
	}
	fi, _ := os.Stat(file)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v after a rotation, want 0600", fi.Mode().Perm())
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".oauth2-token-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}

	iss.Revoke()
	_, err = NewSource(cfg, file, "").Token(ctx)
	if !errors.Is(err, ErrRevoked) || !strings.Contains(err.Error(), "lyngk oauth2 login") {
		t.Fatalf("revoked: %v, want ErrRevoked saying what to run", err)
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string // "" valid
	}{
		{Config{Provider: "gmail", ClientID: "x"}, ""},
		{Config{Provider: "microsoft", ClientID: "x", Tenant: "organizations"}, ""},
		{Config{ClientID: "x", TokenURL: "https://id.example.org/token"}, ""},
		{Config{ClientID: "x", TokenURL: "http://127.0.0.1:8/token"}, ""},
		{Config{Provider: "yahoo", ClientID: "x"}, `oauth2_provider "yahoo"`},
		{Config{Provider: "gmail"}, "oauth2_client_id missing"},
		{Config{ClientID: "x"}, "oauth2_token_url missing"},
		{Config{ClientID: "x", TokenURL: "http://id.example.org/token"}, "must be https"},
		{Config{ClientID: "x", TokenURL: "https://id.example.org/token", DeviceURL: "http://id.example.org/d"}, "must be https"},
	} {
		err := tc.cfg.Validate()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: %v, want %q", tc.cfg, err, tc.want)
		}
	}
	// The Microsoft preset follows the tenant.
	if u := (Config{Provider: "microsoft", Tenant: "contoso.onmicrosoft.com"}).oauth2().Endpoint.DeviceAuthURL; u != "https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/devicecode" {
		t.Errorf("microsoft device URL %s", u)
	}
}

func mustToken(refresh string) *oauth2.Token { return &oauth2.Token{RefreshToken: refresh} }

// TestLoginBrowser: the authorization code grant with PKCE and a loopback
// redirect, as for Gmail: the URL printed carries the challenge and a
// state; the browser comes back with the code, which is exchanged with the
// verifier; the token is saved 0600. An answer with another state is
// refused and changes nothing.
func TestLoginBrowser(t *testing.T) {
	iss, cfg := issuer(t)
	cfg.AuthURL = iss.URL + "/authorize"
	file := filepath.Join(t.TempDir(), TokenFile)
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- LoginBrowser(context.Background(), cfg, file, "127.0.0.1:0", pw)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	var authURL string
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), iss.URL+"/authorize?") {
			authURL = sc.Text()
			break
		}
	}
	back, err := iss.Authorize(authURL)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(back, "http://127.0.0.1:") {
		t.Fatalf("redirect %q: want loopback", back)
	}
	forged := regexp.MustCompile(`state=[^&]+`).ReplaceAllString(back, "state=forged")
	if resp, err := http.Get(forged); err != nil || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("a forged state: %v %v", resp, err)
	}
	resp, err := http.Get(back)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the browser's return: %v %v", resp, err)
	}
	go io.Copy(io.Discard, pr)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi, err)
	}
	if _, err := NewSource(cfg, file, "").Token(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := LoginBrowser(context.Background(), cfg, file, "0.0.0.0:0", io.Discard); !errors.Is(err, ErrBadConfig) {
		t.Errorf("listening beyond loopback: %v", err)
	}
}
