package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"

	"lyngk.example/lyngk/mailer/oauth"
)

// runOAuth2 is `lyngk oauth2 login`: it obtains the refresh token of the
// robot's mailbox and saves it in the data directory, where `lyngk serve`
// refreshes its access tokens from: by the device authorization grant (RFC
// 8628: a URL and a code to type on any device), or with -browser (always
// for Gmail, whose device grant does not give the mail scope) by the
// authorization code grant with a loopback redirect. Run it as the user the
// daemon runs as, once, and again when the issuer revoked the token (the
// daemon's log says so).
func runOAuth2(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "login" {
		fmt.Fprintln(stderr, oauth2Usage)
		return 2
	}
	fs := flag.NewFlagSet("oauth2 login", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgPath := fs.String("config", "", "configuration `FILE` with the oauth2_* settings")
	dataDir := fs.String("data", "", "state `DIR` (default data_dir of the config)")
	browser := fs.Bool("browser", false, "log in through a browser (loopback redirect) instead of the device grant; always for oauth2_provider = gmail")
	listen := fs.String("listen", "127.0.0.1:0", "with -browser: the loopback `ADDR` the browser is sent back to (a fixed port to forward with ssh -L)")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if fs.NArg() != 0 || *cfgPath == "" {
		fmt.Fprintln(stderr, oauth2Usage)
		return 2
	}
	cfg, err := loadConfig(*cfgPath)
	if err != nil {
		fmt.Fprintf(stderr, "lyngk: %v\n", err)
		return 1
	}
	if *dataDir != "" {
		cfg.DataDir = *dataDir
	}
	if !cfg.usesOAuth2() {
		fmt.Fprintln(stderr, "lyngk: neither imap_auth nor smtp_auth is xoauth2 or oauthbearer: nothing to log in for")
		return 1
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	ctx, stop := signalContext(log)
	defer stop()
	fmt.Fprintf(stdout, "Logging in %s at %s.\n", cfg.loginUser(), cfg.issuer())
	login := func() error { return oauth.Login(ctx, cfg.OAuth2, cfg.tokenFile(), stdout) }
	if *browser || cfg.OAuth2.Provider == "gmail" {
		login = func() error { return oauth.LoginBrowser(ctx, cfg.OAuth2, cfg.tokenFile(), *listen, stdout) }
	}
	if err := login(); err != nil {
		fmt.Fprintf(stderr, "lyngk: %v\n", err)
		return 1
	}
	return 0
}

const oauth2Usage = "usage: lyngk oauth2 login -config FILE [-data DIR] [-browser [-listen ADDR]]"

// loginUser is the mailbox the token is for, as the operator must choose
// it on the issuer's page.
func (c *config) loginUser() string {
	if c.IMAP.Username != "" {
		return c.IMAP.Username
	}
	return c.SMTP.Username
}

// issuer names the issuer for the operator.
func (c *config) issuer() string {
	if c.OAuth2.Provider != "" {
		return c.OAuth2.Provider
	}
	return c.OAuth2.TokenURL
}
