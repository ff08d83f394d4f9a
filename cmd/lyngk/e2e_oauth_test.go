package main

import (
	"bufio"
	"net"
	"os/exec"
	"regexp"
	"testing"
	"time"

	"lyngk.example/lyngk/mailer/oauth/oauthtest"
)

// TestE2EOAuth2 runs `lyngk serve` with OAuth2 logins against the real
// Dovecot and Postfix: IMAP by XOAUTH2 to Dovecot, submission by
// OAUTHBEARER to Postfix, which hands the SASL exchange to Dovecot; Dovecot
// checks each access token with the test's issuer (RFC 7662 introspection,
// mailservers.sh's passdb oauth2). The operator's way: the daemon starts
// without a token and says to log in; `lyngk oauth2 login` (the device
// grant against the same issuer) saves one; the daemon then logs in on its
// next attempt and answers a signup. The access tokens live 5 s, below
// x/oauth2's margin of 10 s, so every login refreshes one. Revoked, the
// daemon's next login says to log in again.
func TestE2EOAuth2(t *testing.T) {
	e := e2eSetup(t)
	ln, err := net.Listen("tcp", e.oauthAddr)
	if err != nil {
		t.Fatalf("the issuer's port, where Dovecot asks: %v", err)
	}
	iss := oauthtest.Start(ln, e.robot(), "lyngk-e2e")
	defer iss.Close()
	iss.Lifetime = 5 * time.Second

	srv := e.startServer(t, e2eStartTLS,
		"imap_auth = xoauth2", "imap_password =",
		"smtp_auth = oauthbearer", "smtp_password =",
		"oauth2_client_id = lyngk-e2e", "oauth2_scopes = mail",
		"oauth2_token_url = http://"+e.oauthAddr+"/token",
		"oauth2_device_url = http://"+e.oauthAddr+"/device")
	srv.awaitLog("no refresh token", 1, e2eMoveWait)

	login := exec.Command(srv.bin, "oauth2", "login", "-config", srv.config)
	out, err := login.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := login.Start(); err != nil {
		t.Fatal(err)
	}
	code := regexp.MustCompile(`^Open \S+/verify and type the code (\S+)$`)
	approved := false
	for sc := bufio.NewScanner(out); sc.Scan(); {
		t.Logf("lyngk oauth2 login: %s", sc.Text())
		if m := code.FindStringSubmatch(sc.Text()); m != nil {
			approved = iss.Approve(m[1])
		}
	}
	if err := login.Wait(); err != nil || !approved {
		t.Fatalf("lyngk oauth2 login: %v (code approved: %v)", err, approved)
	}

	srv.awaitLog("IMAP mailbox selected", 1, e2eMoveWait)
	alice := &e2ePlayer{user: "alice", password: "alice-pw", addr: e.addr("alice"),
		box: e.watch(t, "alice", "INBOX", 25*time.Millisecond)}
	if err := e.signup(alice, e2eMoveWait); err != nil {
		t.Fatal(err)
	}
	// One refresh for IMAP, at least one for submission; Dovecot asked
	// about each token it was shown.
	if r, n := iss.Refreshes(), iss.Introspections(); r < 2 || n < 2 {
		t.Errorf("%d refreshes, %d introspections: want at least 2 of each (IMAP and submission)", r, n)
	}
	srv.checkRunning()

	iss.Revoke()
	e.ctl(t, "restart-imap")
	srv.awaitLog("refresh token refused", 1, e2eMoveWait)
	srv.checkRunning()
}
