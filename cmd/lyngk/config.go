package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/mailer"
	"lyngk.example/lyngk/mailer/oauth"
	"lyngk.example/lyngk/store"
)

// config is the daemon's configuration. The file format is deliberately
// small: `key = value` lines, `#` comments and blank lines; its keys, their
// defaults and documentation are the settings table (settings.go), which
// maps each key onto a field here. Secrets may come
// from the file or from the environment (LYNGK_IMAP_PASSWORD,
// LYNGK_SMTP_PASSWORD, LYNGK_OAUTH2_CLIENT_SECRET,
// LYNGK_OAUTH2_REFRESH_TOKEN), never from the command line, where any user
// of the machine could read them in the process list.
type config struct {
	// The mail settings are mailer's own: it owns their defaults and their
	// validation, and the settings table only maps keys onto them.
	IMAP mailer.IMAPConfig
	SMTP mailer.SMTPConfig
	// OAuth2 is the client registration at the issuer when imap_auth or
	// smtp_auth is xoauth2 or oauthbearer; OAuth2Refresh a refresh token
	// from the environment, used instead of the data directory's file.
	OAuth2        oauth.Config
	OAuth2Refresh string

	// Server is the server's own address (server_address; the older key
	// robot_address is still read, with a warning): the mailbox it reads
	// and the From of its mails. ServerName is the name players know it by
	// (server_name, engine.Config.ServerName); "robot" is only the
	// computer player (RobotPlayer).
	Server       string
	ServerName   string
	Domain       string
	DataDir      string
	TemplatesDir string
	RatePerHour  int
	// SignupsPerHour bounds the new accounts per hour in all
	// (engine.Config.SignupsPerHour).
	SignupsPerHour int
	// ConfirmsPerDay bounds the confirmation mails to one mailbox a day
	// (engine.Config.ConfirmsPerDay).
	ConfirmsPerDay int
	NagAfter       time.Duration
	ForfeitAfter   time.Duration
	// ChampionshipDays is the pause of the championships in days
	// (engine.Config.ChampionshipPause).
	ChampionshipDays int
	LogFormat        string
	LogLevel         string
	MetricsAddr      string

	// Store bounds the mail let out per address and how long records are
	// kept; the store owns their defaults (a zero field) and validation.
	Store store.Limits
	// RobotPlayer turns the robot players on; RobotLevels names the
	// levels that play (engine.RobotLevels, config.robotLevels);
	// RobotThink is the think time per move of the default level,
	// engine.RobotID.
	RobotPlayer bool
	RobotLevels string
	RobotThink  time.Duration
	// TournamentRobot lets a tournament's creator enter the robot player
	// (engine.Config.TournamentRobot).
	TournamentRobot bool
	// RobotUnmovedPerHour bounds the robots' searches per hour for games
	// no human has moved in, in searches of RobotThink
	// (robotPlayer.unmovedBudget).
	RobotUnmovedPerHour int
	// AuthservID is the authserv-id of the Authentication-Results the
	// server trusts (app.authservID); "" trusts none.
	AuthservID string

	// WebAddr is the web part's listener (engine/web): "" = none in real
	// mode; in local mode the -local-web flag sets it. WebURL is the
	// public base URL of the pages, as players reach them (behind a
	// reverse proxy, the proxy's): it goes into the mails. WebPublic
	// serves the games and standings to anybody; false only /play/.
	WebAddr   string
	WebURL    string
	WebPublic bool
	// WebPostsPerGameHour bounds the moves from the /play/ pages of one
	// game per hour (web.Config.PostsPerGameHour).
	WebPostsPerGameHour int
	// WebStreamsPerClient bounds the event streams open at once from one
	// client address (web.Config.StreamsPerClient).
	WebStreamsPerClient int

	// VERP sends each mail to a confirmed address with the envelope
	// sender server+b-TOKEN@domain, so that its bounce names the address
	// (engine/bounce.go); for providers that deliver plus addresses to
	// the server's mailbox and let it send as them.
	VERP bool

	// deprecated are the warnings of keys read under an old name.
	deprecated []string
}

// defaultConfig is what an empty file means: local all-in-one mode. The
// defaults are the settings table's, but for the settings whose owner
// (mailer, store) fills in an unset field itself.
func defaultConfig() config {
	var c config
	for s := range allSettings {
		if s.def == "" || s.owned {
			continue
		}
		// TestSettingsTable parses every default: a bad one is a mistake
		// in the table, caught before it ships.
		if err := s.set(&c, s.def); err != nil {
			panic(fmt.Sprintf("lyngk: the default of %s: %v", s.key, err))
		}
	}
	c.Domain = strings.ToLower(domainOf(c.Server))
	return c
}

// local reports whether no mail service is configured, which selects the
// local all-in-one mode of SPEC §5.
func (c *config) local() bool { return c.IMAP.Addr == "" && c.SMTP.Addr == "" }

var errConfig = errors.New("config")

// parseConfig reads the key = value format on top of the defaults and then
// applies the environment's secrets. It reports every error it finds, bad
// lines and bad combinations, at once (errors.Join), so that an operator
// fixes the file in one go.
func parseConfig(r io.Reader, getenv func(string) string) (config, error) {
	c := defaultConfig()
	var errs []error
	seen := map[string]int{}
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if !ok {
			errs = append(errs, fmt.Errorf("%w: line %d: want key = value", errConfig, n))
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		setting := key
		if key == "robot_address" {
			// One setting under two names: either, once.
			setting = "server_address"
		}
		if prev, dup := seen[setting]; dup {
			errs = append(errs, fmt.Errorf("%w: line %d: %s already set on line %d", errConfig, n, key, prev))
			continue
		}
		seen[setting] = n
		if err := c.set(key, val); err != nil {
			errs = append(errs, fmt.Errorf("%w: line %d: %s: %v", errConfig, n, key, err))
		}
	}
	if err := sc.Err(); err != nil {
		return c, fmt.Errorf("%w: %v", errConfig, err)
	}
	for s := range allSettings {
		if s.env == "" {
			continue
		}
		if v := getenv(s.env); v != "" {
			if err := s.set(&c, v); err != nil {
				errs = append(errs, fmt.Errorf("%w: %s: %v", errConfig, s.env, err))
			}
		}
	}
	c.SMTP.CAFile = c.IMAP.CAFile // tls_ca_file is one file for both
	c.OAuth2Refresh = getenv("LYNGK_OAUTH2_REFRESH_TOKEN")
	if _, set := seen["domain"]; !set {
		// The Message-IDs, picture cids and the EHLO name the server's
		// domain: "localhost" there is a spam sign (rspamd
		// MID_RHS_NOT_FQDN) once the mail leaves the machine.
		c.Domain = strings.ToLower(domainOf(c.Server))
	}
	c.wireTokens()
	return c, errors.Join(append(errs, c.validate())...)
}

// set sets one key of the file.
func (c *config) set(key, val string) error {
	if key == "robot_address" {
		// The server's address under its older name: "robot" is the
		// computer player now.
		c.deprecated = append(c.deprecated, "robot_address is the old name of server_address: rename the key "+
			"(\"robot\" now means only the computer player)")
		key = "server_address"
	}
	s, ok := settingByKey(key)
	if !ok {
		return errors.New("unknown key")
	}
	return s.set(c, val)
}

// validate checks the combination of settings, every one of them, and
// returns all it finds (errors.Join); mailer checks its own (a plain-text
// mail protocol, for one, only to loopback: a password must never cross a
// network in clear). A missing secret is named with the environment
// variable it belongs in.
func (c *config) validate() error {
	var errs []error
	bad := func(err error) { errs = append(errs, err) }
	if err := c.Store.Validate(); err != nil {
		bad(fmt.Errorf("%w: %v", errConfig, err))
	}
	if !strings.Contains(c.Server, "@") {
		bad(fmt.Errorf("%w: server_address %q is not a mail address", errConfig, c.Server))
	}
	if err := engine.CheckServerName(c.ServerName); err != nil {
		bad(fmt.Errorf("%w: server_name: %v", errConfig, err))
	}
	for s := range allSettings {
		if err := s.checkChoices(c); err != nil {
			bad(err)
		}
	}
	if _, err := c.robotLevels(); err != nil {
		bad(err)
	}
	// A reminder after the forfeit would never be sent: the game is gone.
	if c.ForfeitAfter <= c.NagAfter {
		bad(fmt.Errorf("%w: forfeit_after (%v) must be longer than nag_after (%v): a game would be forfeited before its player is reminded",
			errConfig, c.ForfeitAfter, c.NagAfter))
	}
	if err := c.validateWeb(); err != nil {
		bad(err)
	}
	if c.local() {
		return errors.Join(errs...)
	}
	if c.SMTP.Addr == "" {
		bad(fmt.Errorf("%w: real mode needs smtp_addr to send its replies", errConfig))
	}
	if c.usesOAuth2() {
		if err := c.OAuth2.Validate(); err != nil {
			bad(fmt.Errorf("%w: oauth2_* settings: %w%s", errConfig, err, envHint(c.OAuth2.ClientSecret, "LYNGK_OAUTH2_CLIENT_SECRET", "client secret")))
		}
	}
	if c.SMTP.Addr != "" {
		if err := c.SMTP.Validate(); err != nil {
			bad(fmt.Errorf("%w: smtp_* settings: %w%s", errConfig, err, passwordHint(c.SMTP.Auth, c.SMTP.Username, c.SMTP.Password, "LYNGK_SMTP_PASSWORD")))
		}
	}
	// Without imap_addr the daemon reads no mailbox: mail comes in through
	// `lyngk process` (procmail), which hands it over the control socket.
	if c.IMAP.Addr != "" {
		if err := c.IMAP.Validate(); err != nil {
			bad(fmt.Errorf("%w: imap_* settings: %w%s", errConfig, err, passwordHint(c.IMAP.Auth, c.IMAP.Username, c.IMAP.Password, "LYNGK_IMAP_PASSWORD")))
		}
	}
	return errors.Join(errs...)
}

// passwordHint names the environment variable of a password that a
// password login (auth "" or password, with a user) lacks.
func passwordHint(auth, user, pw, env string) string {
	if (auth == "" || auth == mailer.AuthPassword) && user != "" {
		return envHint(pw, env, "password")
	}
	return ""
}

// envHint tells where a missing secret goes.
func envHint(value, env, what string) string {
	if value != "" {
		return ""
	}
	return fmt.Sprintf(" (put the %s in the environment as %s, not in the file)", what, env)
}

// warnings are settings that work but that a provider will likely refuse
// or mark: `lyngk serve -check-config` prints them, serve logs them.
func (c *config) warnings() []string {
	w := slices.Clone(c.deprecated)
	if c.local() {
		return w
	}
	login := c.SMTP.Username
	if !strings.Contains(login, "@") {
		login = c.IMAP.Username
	}
	robot := strings.ToLower(domainOf(c.Server))
	if strings.Contains(login, "@") && strings.ToLower(domainOf(login)) != robot {
		w = append(w, fmt.Sprintf("server_address %s is not in the domain of the login %s: providers refuse or rewrite a From: "+
			"they do not host for that login, and SPF, DKIM and DMARC fail for it (use the login's own address, or an alias "+
			"the provider lets it send as)", c.Server, login))
	}
	return w
}

// usesOAuth2 reports whether a login takes an OAuth2 access token.
func (c *config) usesOAuth2() bool { return isOAuth2(c.IMAP.Auth) || isOAuth2(c.SMTP.Auth) }

func isOAuth2(method string) bool {
	return method == mailer.AuthXOAuth2 || method == mailer.AuthOAuthBearer
}

// tokenFile is where the refresh token lives: in the data directory.
func (c *config) tokenFile() string { return filepath.Join(c.DataDir, oauth.TokenFile) }

// wireTokens gives the OAuth2 logins their token source, one for both (the
// providers' scopes cover IMAP and SMTP together). Called again when -data
// moves the data directory.
func (c *config) wireTokens() {
	c.IMAP.Tokens, c.SMTP.Tokens = nil, nil
	if !c.usesOAuth2() {
		return
	}
	src := oauth.NewSource(c.OAuth2, c.tokenFile(), c.OAuth2Refresh)
	if isOAuth2(c.IMAP.Auth) {
		c.IMAP.Tokens = src.Token
	}
	if isOAuth2(c.SMTP.Auth) {
		c.SMTP.Tokens = src.Token
	}
}

func loadConfig(path string) (config, error) {
	if path == "" {
		return defaultConfig(), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return config{}, err
	}
	defer f.Close()
	return parseConfig(f, os.Getenv)
}

// validateWeb checks web_addr (host:port) and web_url: an http or https
// URL of a host's root, since the pages link each other by absolute paths
// (/game/1); a trailing slash is dropped, so that WebURL+"/game/1" is a
// good link.
func (c *config) validateWeb() error {
	if c.WebAddr != "" {
		if _, _, err := net.SplitHostPort(c.WebAddr); err != nil {
			return fmt.Errorf("%w: web_addr %q: want host:port, such as 127.0.0.1:8080", errConfig, c.WebAddr)
		}
	}
	if c.WebURL == "" {
		return nil
	}
	u, err := url.Parse(c.WebURL)
	if err != nil {
		u = &url.URL{}
	}
	p := strings.TrimRight(u.EscapedPath(), "/")
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" ||
		u.Fragment != "" || u.User != nil || u.ForceQuery || (p != "" && path.Clean(p) != p) || u.Path != u.EscapedPath() {
		return fmt.Errorf("%w: web_url %q: want the http or https URL the pages are at, such as https://lyngk.example.org or https://example.org/lyngk",
			errConfig, c.WebURL)
	}
	c.WebURL = strings.TrimRight(c.WebURL, "/")
	return nil
}

// webBase is the path of web_url, without its trailing slash: the web part
// serves under it ("" at the root).
func (c *config) webBase() string {
	u, err := url.Parse(c.WebURL)
	if err != nil {
		return ""
	}
	return strings.TrimRight(u.Path, "/")
}

// robotLevels are the robot players of robot_levels (userids separated by
// commas or spaces), weakest first
// whatever the order written: the levels of engine.RobotLevels named, the
// default one (engine.RobotID) thinking robot_think a move.
func (c *config) robotLevels() ([]engine.RobotLevel, error) {
	var ids []string
	for _, l := range engine.RobotLevels {
		ids = append(ids, l.ID)
	}
	words := strings.FieldsFunc(c.RobotLevels, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
	for i, w := range words {
		if !slices.ContainsFunc(ids, func(id string) bool { return strings.EqualFold(id, w) }) {
			return nil, fmt.Errorf("%w: robot_levels: no level %q: choose among %s", errConfig, w, strings.Join(ids, " "))
		}
		if slices.ContainsFunc(words[:i], func(v string) bool { return strings.EqualFold(v, w) }) {
			return nil, fmt.Errorf("%w: robot_levels: %q twice", errConfig, w)
		}
	}
	var out []engine.RobotLevel
	for _, l := range engine.RobotLevels {
		if !slices.ContainsFunc(words, func(w string) bool { return strings.EqualFold(w, l.ID) }) {
			continue
		}
		if l.ID == engine.RobotID {
			l.Think.Time, l.CPU = c.RobotThink, engine.ThinkCPU(c.RobotThink)
		}
		out = append(out, l)
	}
	return out, nil
}
