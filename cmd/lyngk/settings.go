package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"lyngk.example/lyngk/engine"
)

//go:generate go test -run ^TestSettingsFiles$ -update .

// robotLevelsDefault is robot_levels' default: every level.
const robotLevelsDefault = "robot-novice,robot-club,robot,robot-max"

// robotLevelsDoc lists the levels for robot_levels' text, weakest first,
// each with its budget.
func robotLevelsDoc() string {
	var out []string
	for _, l := range engine.RobotLevels {
		budget := l.Budget()
		if l.ID == engine.RobotID {
			budget = "robot_think a move, the level of old and the default"
		}
		out = append(out, l.ID+", "+budget)
	}
	return strings.Join(out, "; ")
}

// settingsTable is every key of the configuration file, in the order and
// sections of deploy/lyngk.conf.example. It is the one place a setting is
// described: parseConfig reads the file with it, defaultConfig takes the
// defaults from it, validate checks its choices, and the example file and
// the settings table of deploy/README.md are generated from it (run
// `go generate ./cmd/lyngk`; TestSettingsFiles fails while the committed
// files differ, so an edit by hand there does not last).
//
// To add a setting: give config the field the code reads, add one entry
// to the section it belongs in (key, kind, field, def, example, doc), and
// run go generate. A secret names its environment variable in env (and has
// no example value); a default that the field's owner (mailer, store)
// applies to a zero field is owned; a word from a short list names the
// list in choices. A check that involves other settings too belongs in
// config.validate.
var settingsTable = []settingSection{
	{title: "Incoming mail (IMAP)", settings: []setting{
		{key: "imap_addr", kind: text, field: func(c *config) any { return &c.IMAP.Addr },
			example: "mail.example.org:993",
			doc: "host:port of the IMAP server; 993 is IMAP over implicit TLS. Leave it out (with the other imap_ keys) " +
				"when mail comes in through `lyngk process` from procmail instead: the daemon then only sends and runs the timers."},
		{key: "imap_tls", kind: text, field: func(c *config) any { return &c.IMAP.TLS },
			def: "implicit", defNote: "(for port 993)", owned: true, example: "implicit",
			doc: "implicit (TLS from the first byte, port 993), starttls (port 143, upgraded before login), or none " +
				"(plain text: only when set, and accepted for a loopback address only). Unset, it follows the port of " +
				"imap_addr: implicit for 993 (and 465), starttls for any other port."},
		{key: "imap_user", kind: text, field: func(c *config) any { return &c.IMAP.Username },
			example: "lyngk@example.org",
			doc:     "Login name of the server's mailbox, usually its address. Required with imap_addr."},
		{key: "imap_auth", kind: text, field: func(c *config) any { return &c.IMAP.Auth },
			def: "password", owned: true, example: "password",
			doc: "How the server logs in: password (IMAP LOGIN with imap_password), or with an OAuth2 access token: " +
				"xoauth2 (Gmail, Microsoft 365, Dovecot) or oauthbearer (RFC 7628: Gmail, Dovecot, other issuers). " +
				"OAuth2 needs the oauth2_* settings below and, once, `lyngk oauth2 login`."},
		{key: "imap_password", kind: text, field: func(c *config) any { return &c.IMAP.Password },
			env: "LYNGK_IMAP_PASSWORD",
			doc: "Better empty here, and LYNGK_IMAP_PASSWORD in the environment. Required with imap_addr."},
		{key: "imap_mailbox", kind: text, field: func(c *config) any { return &c.IMAP.Mailbox },
			def: "INBOX", owned: true, example: "INBOX",
			doc: "Folder the server reads new mail from."},
		{key: "imap_processed", kind: text, field: func(c *config) any { return &c.IMAP.Processed },
			def: "Processed", owned: true, example: "Processed",
			doc: `Folder a mail is moved to (and flagged \Seen) once it has been applied. It is created when missing.`},
		{key: "imap_rejected", kind: text, field: func(c *config) any { return &c.IMAP.Rejected },
			def: "Rejected", owned: true, example: "Rejected",
			doc: "Folder for mail the server refuses or does not answer (bounces, auto-replies, mailing lists, " +
				"oversized mail). Created when missing."},
		{key: "poll_interval", kind: duration, field: func(c *config) any { return &c.IMAP.PollInterval },
			def: "1m", owned: true, example: "1m",
			doc: "How often to check for new mail, as a Go duration (30s, 5m), when the server does not offer IDLE; " +
				"with IDLE new mail is seen at once, and this is the longest IDLE before the mailbox is searched anyway."},
	}},
	{title: "Outgoing mail (SMTP submission)", settings: []setting{
		{key: "smtp_addr", kind: text, field: func(c *config) any { return &c.SMTP.Addr },
			example: "mail.example.org:587",
			doc: "host:port of the submission server; 587 is submission with STARTTLS. Required in real mode: " +
				"the server must send its replies."},
		{key: "smtp_tls", kind: text, field: func(c *config) any { return &c.SMTP.TLS },
			def: "starttls", defNote: "(for port 587)", owned: true, example: "starttls",
			doc: "starttls (port 587), implicit (port 465), or none (plain text: only when set, and accepted for a " +
				"loopback address only). Unset, it follows the port of smtp_addr: implicit for 465 (and 993), " +
				"starttls for any other port."},
		{key: "smtp_user", kind: text, field: func(c *config) any { return &c.SMTP.Username },
			example: "lyngk@example.org",
			doc: "Login name for submission (AUTH PLAIN, always over TLS unless smtp_tls = none); often the same " +
				"account as imap_user. Empty: no authentication (a relay that trusts this host's address). Set both " +
				"smtp_user and smtp_password, or neither."},
		{key: "smtp_password", kind: text, field: func(c *config) any { return &c.SMTP.Password },
			env: "LYNGK_SMTP_PASSWORD",
			doc: "Better empty here, and LYNGK_SMTP_PASSWORD in the environment."},
		{key: "smtp_auth", kind: text, field: func(c *config) any { return &c.SMTP.Auth },
			def: "password", owned: true, example: "password",
			doc: "As imap_auth, for submission: password (AUTH PLAIN with smtp_password when smtp_user is set), " +
				"xoauth2 or oauthbearer (smtp_user required)."},
	}},
	{title: "OAuth2 (when imap_auth or smtp_auth is xoauth2 or oauthbearer)",
		intro: "The server refreshes its access tokens from a refresh token that `lyngk oauth2 login -config FILE` " +
			"obtains once by the device authorization grant (it prints a URL and a code to type on any device, as the " +
			"mailbox's owner) and keeps in data_dir/oauth2-token.json, mode 0600; or from LYNGK_OAUTH2_REFRESH_TOKEN " +
			"in the environment, which then takes its place. deploy/README.md has the steps for each provider.",
		settings: []setting{
			{key: "oauth2_provider", kind: text, field: func(c *config) any { return &c.OAuth2.Provider },
				doc: "gmail or microsoft: the issuer's endpoints and the scopes for IMAP and SMTP; empty for another " +
					"issuer (then set oauth2_token_url, and oauth2_device_url for the login)."},
			{key: "oauth2_tenant", kind: text, field: func(c *config) any { return &c.OAuth2.Tenant },
				doc: `Microsoft only: the directory (tenant) ID, or organizations. Unset, the "common" endpoint.`},
			{key: "oauth2_client_id", kind: text, field: func(c *config) any { return &c.OAuth2.ClientID },
				doc: "The application (client) ID of the server's registration at the issuer. Required with OAuth2."},
			{key: "oauth2_client_secret", kind: text, field: func(c *config) any { return &c.OAuth2.ClientSecret },
				env: "LYNGK_OAUTH2_CLIENT_SECRET",
				doc: "Its client secret, if the issuer gave one (Google does, Microsoft's public clients have none). " +
					"Prefer LYNGK_OAUTH2_CLIENT_SECRET in the environment."},
			{key: "oauth2_token_url", kind: text, field: func(c *config) any { return &c.OAuth2.TokenURL },
				doc: "The issuer's token endpoint (https; http only to loopback). Overrides the provider's."},
			{key: "oauth2_device_url", kind: text, field: func(c *config) any { return &c.OAuth2.DeviceURL },
				doc: "The issuer's device authorization endpoint (RFC 8628), for `lyngk oauth2 login`. " +
					"Overrides the provider's."},
			{key: "oauth2_auth_url", kind: text, field: func(c *config) any { return &c.OAuth2.AuthURL },
				doc: "The issuer's authorization endpoint, for `lyngk oauth2 login -browser` (the authorization code " +
					"grant with PKCE and a loopback redirect; the only way for Gmail, whose device grant does not give " +
					"the mail scope). Overrides the provider's."},
			{key: "oauth2_scopes", kind: words, field: func(c *config) any { return &c.OAuth2.Scopes },
				doc: "Scopes to ask for, separated by spaces. Overrides the provider's (gmail: https://mail.google.com/; " +
					"microsoft: IMAP.AccessAsUser.All, SMTP.Send and offline_access at https://outlook.office.com/)."},
		}},
	{title: "Bounces", settings: []setting{
		{key: "bounce_verp", kind: boolean, field: func(c *config) any { return &c.VERP },
			def: "false", example: "false",
			doc: "true: each mail to a player leaves with the envelope sender SERVER+b-TAG@domain (VERP), TAG " +
				"an HMAC of the player's address under a secret kept in the store, so that a bounce names the address whatever it says. Only where " +
				"the provider delivers SERVER+anything to the server's mailbox AND lets it send with such a sender " +
				"(self-hosted Postfix, Fastmail); Gmail and Microsoft 365 refuse or rewrite it. false: a bounce is " +
				"matched by the Message-ID of the mail that bounced. Either way, a bounce counts only when it names a mail sent to that very address, and hard bounces of 3 different mails " +
				`within 14 days mark the address bouncing (deploy/README.md, "Bounces").`},
	}},
	{title: "TLS", settings: []setting{
		// One file for both: parseConfig copies it to the SMTP side.
		{key: "tls_ca_file", kind: text, field: func(c *config) any { return &c.IMAP.CAFile },
			doc: "PEM file of the certificate authorities the IMAP and SMTP servers' certificates must chain to, for " +
				"servers with certificates from a private CA. Empty: the system's CA pool (/etc/ssl/certs). The file " +
				"is read for every connection, so a renewed one needs no restart. Certificates are always verified, " +
				"host name included."},
	}},
	{title: "Identity", settings: []setting{
		{key: "server_address", kind: text, field: func(c *config) any { return &c.Server },
			def: "lyngk@localhost", defNote: "(only good for the local mode)", example: "lyngk@example.org",
			doc: "The server's own address: From: of every reply; players write to it. (The older name of this " +
				`key, robot_address, is still read, with a warning: "robot" means only the computer player.)`},
		{key: "server_name", kind: text, field: func(c *config) any { return &c.ServerName },
			defNote: "(unset: PBeM Server, as gamerz's)", example: "PBeM Server",
			doc: "The server's name, as players know it: the display name of its mails' sender, the start of the " +
				`subjects of every mail that belongs to no game ("PBeM Server help", "PBeM Server error", "Confirm ` +
				`PBeM Server signup bob") and the web's header. A game's mails keep their game's name ("Yinsh Board ` +
				`101"). At most 40 bytes; no quote, <, > or @.`},
		// Unset, parseConfig derives it from server_address.
		{key: "domain", kind: text, field: func(c *config) any { return &c.Domain },
			defNote: "(unset: the domain of server_address)", example: "example.org",
			doc: "Domain used in the Message-IDs and picture cids of outgoing mail (<...@domain>); also the name in " +
				"SMTP's EHLO. Unset, it is the domain of server_address (spam filters mark a Message-ID ending in " +
				"@localhost)."},
	}},
	{title: "Files", settings: []setting{
		{key: "data_dir", kind: text, field: func(c *config) any { return &c.DataDir },
			def: "lyngk-data", example: "/var/lib/lyngk",
			doc: "Directory of the bbolt store. The -data flag, which the systemd unit and the container pass, takes " +
				"precedence. A relative path is relative to the working directory."},
		{key: "templates_dir", kind: text, field: func(c *config) any { return &c.TemplatesDir },
			doc: "Directory of *.tmpl files that replace the built-in reply texts of the same name (copy one from the " +
				"source tree's templates/ and edit it). Empty: use the built-in texts only."},
	}},
	{title: "Limits and timers", settings: []setting{
		{key: "rate_per_hour", kind: count, field: func(c *config) any { return &c.RatePerHour },
			def: "60", example: "60",
			doc: "Commands a sender may send per hour; beyond that the sender is throttled, so a mail loop or a flood " +
				"cannot keep the server busy or make it send mail without end."},
		{key: "trusted_authserv_id", kind: text, field: func(c *config) any { return &c.AuthservID },
			doc: "The authserv-id of your provider's Authentication-Results header (RFC 8601: the first word of the " +
				"field, such as mx.google.com or mx.example.org). When set, a mail from an address that is no " +
				"player's, whose field of that id says SPF failed and DKIM did not pass, gets no answer at all: its " +
				"sender is forged. Empty: trust no such header."},
		{key: "signups_per_hour", kind: count, field: func(c *config) any { return &c.SignupsPerHour },
			def: "60", example: "60",
			doc: "New accounts per hour in all, from any senders: a signup beyond it is refused, with the time to " +
				"send it again, and costs no password hash. It keeps a flood of forged signups from holding the " +
				"password checks."},
		{key: "confirms_per_mailbox_day", kind: count, field: func(c *config) any { return &c.ConfirmsPerDay },
			def: "3", example: "3",
			doc: "Confirmation mails (signup, change address, add) one mailbox gets in 24 hours: whatever its +tag, " +
				"case, or dots at gmail.com, it is one mailbox. Past it the request is refused and nothing is sent: " +
				"forged signups cannot turn the server into a cannon against one person."},
		{key: "nag_after", kind: duration, field: func(c *config) any { return &c.NagAfter },
			def: "168h", defNote: "(7 days)", example: "168h",
			doc: "A player who has not moved for this long gets one reminder mail. Go duration."},
		{key: "forfeit_after", kind: duration, field: func(c *config) any { return &c.ForfeitAfter },
			def: "504h", defNote: "(21 days)", example: "504h",
			doc: "A player who has not moved for this long loses the game by forfeit. Go duration, longer than " +
				"nag_after."},
		{key: "championship_days", kind: count, field: func(c *config) any { return &c.ChampionshipDays },
			def: "7", example: "7",
			doc: "Days between the last game of a championship's edition and the start of the next, and from " +
				"`lyngk admin championship GAME on` to the first edition (the time to enrol). A championship is " +
				"per game and off until the operator switches it on."},
		{key: "address_mails_per_hour", kind: number, field: func(c *config) any { return &c.Store.MailsPerHour },
			def: "200", owned: true, example: "200",
			doc: "At most this many mails go to one address within an hour (counted from the first); the rest wait " +
				"in the outbox, in order, and go out as the hour allows. Nothing is dropped."},
		{key: "mails_per_day", kind: number, field: func(c *config) any { return &c.Store.MailsPerDay },
			def: "0", owned: true, example: "0",
			doc: "At most this many recipients in any 24 hours, all mails together: your provider's daily sending " +
				"cap, past which it refuses mail or locks the account (Gmail about 500, Google Workspace 2,000, " +
				`Microsoft 365 10,000; deploy/README.md, "Sending caps"). A player's mail past it waits in the ` +
				"outbox, in order, and goes as the 24 hours slide; it is never dropped (a stranger's is, past " +
				"stranger_share). lyngk admin outbox and the metrics lyngk_mails_sent_24h / " +
				"lyngk_mails_per_day_cap show it. 0: no cap."},
		{key: "stranger_share", kind: percent, field: func(c *config) any { return &c.Store.StrangerShare },
			def: "10", owned: true, example: "10",
			doc: "The share of mails_per_day that mail to strangers may take, in percent: answers to addresses no " +
				"player has confirmed (help, list, signup, confirmations, hints). In any 24 hours strangers get at " +
				"most this share of mails_per_day, and in any hour this share of a 24th of it (at least one each): " +
				"with mails_per_day = 500 and 10, 50 a day and 3 an hour. A stranger's mail past it is dropped, never " +
				"held for later, and counted (lyngk admin outbox, lyngk_stranger_mails_dropped_total). Players' mail " +
				"always goes first and may use the whole cap. Only with mails_per_day."},
		{key: "dead_letter_keep", kind: duration, field: func(c *config) any { return &c.Store.DeadLetterKeep },
			def: "720h", defNote: "(30 days)", owned: true, example: "720h",
			doc: "How long a mail given up on (a dead letter: header, size and error, not the body) is kept. " +
				"Go duration."},
		{key: "dedupe_keep", kind: duration, field: func(c *config) any { return &c.Store.SeenKeep },
			def: "2160h", defNote: "(90 days)", owned: true, example: "2160h",
			doc: "How long the Message-ID of an applied mail is kept, so that a mail delivered twice is applied once. " +
				"Go duration, at least 168h."},
	}},
	{title: "The robot player", settings: []setting{
		{key: "robot", kind: boolean, field: func(c *config) any { return &c.RobotPlayer },
			def: "true", example: "true",
			doc: `true: the robot players of robot_levels play anybody who challenges them ("lyngk challenge alice ` +
				`robot", or "robot alice" to let it start). Each is an account without password or mail, rated ` +
				`in the standings; the daemon thinks for them, one search per core at a time, and they never time ` +
				`out. false: their userids are unknown, and games they already play wait until they are turned on again.`},
		{key: "robot_levels", kind: text, field: func(c *config) any { return &c.RobotLevels },
			def: robotLevelsDefault, example: robotLevelsDefault,
			doc: "The robot players that play, separated by commas, among (weakest first) " + robotLevelsDoc() + `. "help robot" describes them. ` +
				"A level's account is made on its first challenge, unless a human holds the userid: he keeps it, " +
				"and that level is not offered. A level left out is refused by name; games it already plays wait " +
				"until it is back."},
		{key: "robot_think", kind: duration, field: func(c *config) any { return &c.RobotThink },
			def: robotThink.String(), example: robotThink.String(),
			doc: `The think time per move of the level "robot", a Go duration; it answers within about this plus ` +
				"a second when a core is free."},
		{key: "robot_unmoved_per_hour", kind: count, field: func(c *config) any { return &c.RobotUnmovedPerHour },
			def: "30", example: "30",
			doc: `Searches of the level robot (robot_think a move) the robots make per hour in games no human has ` +
				`moved in yet (anybody may start one: "lyngk challenge robot alice"), in a window that opens with ` +
				"the first. Another level's search counts for its stated CPU against robot's: at the default " +
				"robot_think a robot-max search counts as five, a robot-novice one as a twenty-second. The first " +
				"search of a window always runs; beyond the bound they wait for the next hour. Games a human has " +
				"moved in are never held back."},
		{key: "robot_tournaments", kind: boolean, field: func(c *config) any { return &c.TournamentRobot },
			def: "false", example: "false",
			doc: `true (with robot true): a tournament's creator may enter the robot player ("lyngk tournament ` +
				`robot NAME USERID PASSWORD"), so that a small community fills a group; it plays its games as ` +
				"any, and counts against no player's bounds. false: the robot enters no tournament."},
	}},
	{title: "The web", settings: []setting{
		{key: "web_addr", kind: text, field: func(c *config) any { return &c.WebAddr },
			defNote: "(no listener)", example: "127.0.0.1:8080",
			doc: "host:port of the web part's HTTP listener: the game archive, live boards and moving by click " +
				`(engine/README.md, "The web"). Empty: no web part. Plain HTTP: put it behind a reverse proxy with ` +
				"TLS (nginx, Caddy) and keep it on loopback. In local mode the -local-web flag sets it " +
				"(127.0.0.1:8080)."},
		{key: "web_url", kind: text, field: func(c *config) any { return &c.WebURL },
			example: "https://lyngk.example.org",
			doc: "The public base URL of the web pages as players reach them (the reverse proxy's): a host name's " +
				"root, or a path on it (https://example.org/lyngk: the pages are then served under /lyngk/, and the " +
				"proxy must pass the path on as it came). The board mails carry WEB_URL/play/TOKEN. Empty: no links " +
				"in mails (in local mode: http:// and the local listener)."},
		{key: "web_public", kind: boolean, field: func(c *config) any { return &c.WebPublic },
			def: "true", example: "true",
			doc: "true: the games, the players and the standings are public, as on gamerz. false: only the /play/ " +
				"pages a board mail links to; every other path is 404."},
		{key: "web_posts_per_game_hour", kind: count, field: func(c *config) any { return &c.WebPostsPerGameHour },
			def: "60", example: "60",
			doc: "Moves sent from the /play/ pages of one game per hour, in a window that opens with the first; " +
				"beyond it a move is refused (HTTP 429) until the hour is over, and a reply by mail still moves."},
		{key: "web_streams_per_client", kind: count, field: func(c *config) any { return &c.WebStreamsPerClient },
			def: "16", example: "16",
			doc: "Game pages open at once from one client address that follow the game live (their event streams); " +
				"beyond it a page still works by reload. The address is the peer's, or, for a reverse proxy on this " +
				"machine, the last of its X-Forwarded-For. All clients together have at most 512."},
	}},
	{title: "Logging and monitoring", settings: []setting{
		{key: "log_format", kind: text, field: func(c *config) any { return &c.LogFormat },
			def: "text", example: "text", choices: []string{"text", "json"},
			doc: "text (readable in a terminal or the journal) or json (one object per line, for a log collector). " +
				"Logs go to standard error; never passwords or tokens."},
		{key: "log_level", kind: text, field: func(c *config) any { return &c.LogLevel },
			def: "info", example: "info", choices: []string{"debug", "info", "warn", "error"},
			doc: "debug, info, warn or error. info logs one line per processed mail."},
		{key: "metrics_addr", kind: text, field: func(c *config) any { return &c.MetricsAddr },
			defNote: "(no listener)", example: "127.0.0.1:9368",
			doc: "host:port of the HTTP listener for /healthz, /metrics (Prometheus) and /debug/pprof/ (Go's " +
				"profiles: /debug/pprof/profile?seconds=30 is a CPU profile of the daemon). Empty: no listener. Keep " +
				"it on loopback, or firewall it: it has no authentication, and a profile costs CPU."},
	}},
}

// settingSection is a heading of the example file and of the guide's
// table, with the settings under it.
type settingSection struct {
	title    string
	intro    string // a paragraph about the whole section, or ""
	settings []setting
}

// setting is one key of the configuration file.
type setting struct {
	key  string
	kind kind
	// field points into a config at the value the key sets: a *string,
	// *[]string, *time.Duration, *bool or *int, after kind.
	field func(c *config) any
	// def is what a missing key stands for, written as in the file; ""
	// is none. defNote follows it in the docs.
	def, defNote string
	// owned: the package the field belongs to (mailer, store) applies the
	// default to an unset (zero) field itself, and checks the value; def
	// only states it for the reader. TestExampleConfigDefaults holds
	// both to it.
	owned bool
	// example is the value deploy/lyngk.conf.example sets.
	example string
	// env names the environment variable that overrides the file: the
	// secrets, which are better kept out of it.
	env string
	// choices, when set, are the only values allowed, checked once the
	// whole file is read (config.validate).
	choices []string
	doc     string
}

// kind is how a value is written in the file, and what is accepted.
type kind int

const (
	text     kind = iota // as written
	words                // a list separated by spaces
	duration             // a positive Go duration
	boolean              // true or false
	count                // a whole number of at least 1
	number               // a whole number; the owner checks its range
	percent              // a whole number from 1 to 100, a trailing % allowed
)

// allSettings yields the settings of every section, in order.
func allSettings(yield func(setting) bool) {
	for _, sec := range settingsTable {
		for _, s := range sec.settings {
			if !yield(s) {
				return
			}
		}
	}
}

// settingByKey finds a key's entry.
func settingByKey(key string) (setting, bool) {
	for s := range allSettings {
		if s.key == key {
			return s, true
		}
	}
	return setting{}, false
}

// set parses val after the setting's kind and stores it in c.
func (s setting) set(c *config, val string) error {
	ok := false
	switch f := s.field(c); s.kind {
	case text:
		var p *string
		if p, ok = f.(*string); ok {
			*p = val
		}
	case words:
		var p *[]string
		if p, ok = f.(*[]string); ok {
			*p = strings.Fields(val)
		}
	case duration:
		d, err := time.ParseDuration(val)
		if err != nil || d <= 0 {
			return fmt.Errorf("want a positive duration such as 90s or 168h, got %q", val)
		}
		var p *time.Duration
		if p, ok = f.(*time.Duration); ok {
			*p = d
		}
	case boolean:
		if val != "true" && val != "false" {
			return fmt.Errorf("want true or false, got %q", val)
		}
		var p *bool
		if p, ok = f.(*bool); ok {
			*p = val == "true"
		}
	case count, number, percent:
		n, err := strconv.Atoi(strings.TrimSuffix(val, "%"))
		if s.kind == percent && (err != nil || n < 1 || n > 100) {
			return fmt.Errorf("want a percentage from 1 to 100, got %q", val)
		}
		if s.kind == count && (err != nil || n < 1) {
			return fmt.Errorf("want a whole number of at least 1, got %q", val)
		}
		if err != nil {
			return fmt.Errorf("want a whole number, got %q", val)
		}
		var p *int
		if p, ok = f.(*int); ok {
			*p = n
		}
	}
	if !ok {
		return fmt.Errorf("%w: %s: kind %d cannot be stored in a %T", errConfig, s.key, s.kind, s.field(c))
	}
	return nil
}

// checkChoices reports a setting whose value is not one of its choices.
func (s setting) checkChoices(c *config) error {
	if s.choices == nil {
		return nil
	}
	v := *s.field(c).(*string)
	for _, ch := range s.choices {
		if v == ch {
			return nil
		}
	}
	return fmt.Errorf("%w: %s must be %s", errConfig, s.key, orList(s.choices))
}

// orList writes a, b or c.
func orList(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}

// exampleHeader opens deploy/lyngk.conf.example.
const exampleHeader = `# lyngk.conf.example: configuration of ` + "`lyngk serve`" + ` in real mode.
#
# Copy to /etc/lyngk/lyngk.conf and edit. Format: one ` + "`key = value`" + ` per line;
# lines starting with # are comments; blank lines are ignored; an empty value
# means "not set". Every key is listed here once; the last line of the
# comment above it gives its default: the value a missing key (or an empty
# value) stands for, or "none" when there is none.
#
# Passwords: better NOT here. Leave imap_password and smtp_password empty and
# set LYNGK_IMAP_PASSWORD and LYNGK_SMTP_PASSWORD in the environment (the same
# for oauth2_client_secret: LYNGK_OAUTH2_CLIENT_SECRET) (under
# systemd: /etc/lyngk/lyngk.env, mode 0600, see lyngk.service); the
# environment overrides this file. Passwords are never taken from the
# command line, where every local user could read them.
#
# Without any IMAP/SMTP settings, ` + "`lyngk serve`" + ` starts its local all-in-one
# mail service on loopback instead (for trying it out).
#
# This file is generated from the settings table in cmd/lyngk/settings.go
# (go generate ./cmd/lyngk): change a setting's text there.
`

// defaultText is a setting's default as the docs state it.
func (s setting) defaultText() string {
	d := s.def
	if d == "" {
		d = "none"
	}
	if s.defNote != "" {
		d += " " + s.defNote
	}
	return d
}

// exampleConfigText is deploy/lyngk.conf.example: every key once, under
// its documentation, whose last line states the default.
func exampleConfigText() string {
	var b strings.Builder
	b.WriteString(exampleHeader)
	for _, sec := range settingsTable {
		rule := "# --- " + sec.title + " "
		b.WriteString("\n" + rule + strings.Repeat("-", max(3, 78-len(rule))) + "\n")
		if sec.intro != "" {
			b.WriteString("#\n" + comment(sec.intro))
		}
		for _, s := range sec.settings {
			b.WriteString("\n" + comment(s.doc) + "# Default: " + s.defaultText() + "\n")
			if s.example == "" {
				b.WriteString(s.key + " =\n")
			} else {
				b.WriteString(s.key + " = " + s.example + "\n")
			}
		}
	}
	return b.String()
}

// comment wraps text into # lines of at most 78 characters.
func comment(text string) string {
	var b strings.Builder
	line := "#"
	for _, w := range strings.Fields(text) {
		if len(line)+1+len(w) > 78 && line != "#" {
			b.WriteString(line + "\n")
			line = "#"
		}
		line += " " + w
	}
	b.WriteString(line + "\n")
	return b.String()
}

// Markers of the generated settings table in deploy/README.md.
const (
	settingsBegin = "<!-- settings table: generated from cmd/lyngk/settings.go by go generate ./cmd/lyngk; do not edit -->\n"
	settingsEnd   = "<!-- end of the settings table -->\n"
)

// settingsMarkdown writes the guide's table of settings, one table per
// section of the example file.
func settingsMarkdown() string {
	var b strings.Builder
	b.WriteString(settingsBegin)
	for _, sec := range settingsTable {
		b.WriteString("\n### " + sec.title + "\n\n")
		if sec.intro != "" {
			b.WriteString(markdownCell(sec.intro) + "\n\n")
		}
		b.WriteString("| Key | Default | |\n|---|---|---|\n")
		for _, s := range sec.settings {
			def := "none"
			if s.def != "" {
				def = "`" + s.def + "`"
			}
			if s.defNote != "" {
				def += " " + markdownCell(s.defNote)
			}
			doc := markdownCell(s.doc)
			if s.env != "" {
				doc += " Environment: `" + s.env + "`."
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", s.key, def, doc)
		}
	}
	b.WriteString("\n" + settingsEnd)
	return b.String()
}

// markdownCell escapes what Markdown would read as a table's edge,
// emphasis or HTML.
func markdownCell(s string) string {
	return strings.NewReplacer("|", `\|`, "*", `\*`, "<", "&lt;", ">", "&gt;").Replace(s)
}

// withSettingsTable returns the guide with its settings table, between
// the markers, regenerated.
func withSettingsTable(guide string) (string, error) {
	i := strings.Index(guide, settingsBegin)
	j := strings.Index(guide, settingsEnd)
	if i < 0 || j < i {
		return "", fmt.Errorf("%w: no settings table between %q and %q", errConfig, settingsBegin, settingsEnd)
	}
	return guide[:i] + settingsMarkdown() + guide[j+len(settingsEnd):], nil
}
