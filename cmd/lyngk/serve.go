package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/mailer"
	"lyngk.example/lyngk/mailer/localmail"
	"lyngk.example/lyngk/store"
	"lyngk.example/lyngk/templates"
)

// defaultLocalWeb is the local mode's web listener.
const defaultLocalWeb = "127.0.0.1:8080"

// tickEvery is how often the daemon runs the game timers (reminders and
// forfeits). Their periods are days, so a minute is precise enough.
const tickEvery = time.Minute

// runServe is `lyngk serve`: the daemon. With no mail configuration it runs
// the local all-in-one mode of SPEC §5.
func runServe(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgPath := fs.String("config", "", "configuration `FILE` (none: local all-in-one mode)")
	dataDir := fs.String("data", "", "state `DIR` (default data_dir of the config, else ./lyngk-data)")
	localSMTP := fs.String("local-smtp", "127.0.0.1:2525", "local mode: SMTP listener `ADDR`")
	localIMAP := fs.String("local-imap", "127.0.0.1:1143", "local mode: IMAP listener `ADDR`")
	localWeb := fs.String("local-web", defaultLocalWeb, "local mode: web listener `ADDR` (\"\": none)")
	check := fs.Bool("check-config", false, "validate the configuration and exit")
	connect := fs.Bool("connect", false, "with -check-config: also log in to the IMAP and SMTP servers")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 0 {
		fmt.Fprintln(stderr, "lyngk serve: unexpected arguments:", strings.Join(fs.Args(), " "))
		return 2
	}
	if *connect && !*check {
		fmt.Fprintln(stderr, "lyngk serve: -connect goes with -check-config")
		return 2
	}
	cfg, err := loadConfig(*cfgPath)
	if err != nil {
		// Every error on a line of its own (parseConfig joins them all).
		for _, line := range strings.Split(err.Error(), "\n") {
			fmt.Fprintf(stderr, "lyngk: %s\n", line)
		}
		return 1
	}
	if *dataDir != "" {
		cfg.DataDir = *dataDir
		cfg.wireTokens()
	}
	// In local mode the web part is on: at web_addr when the file sets
	// it, else (or when the flag is given) at -local-web.
	if cfg.local() {
		set := false
		fs.Visit(func(f *flag.Flag) { set = set || f.Name == "local-web" })
		if set || cfg.WebAddr == "" {
			cfg.WebAddr = *localWeb
		}
	}
	if *check {
		return checkConfig(cfg, *connect, stdout, stderr)
	}
	log := newLogger(cfg, stderr)
	for _, w := range cfg.warnings() {
		log.Warn("configuration: " + w)
	}
	ctx, stop := signalContext(log)
	defer stop()
	if err := serve(ctx, cfg, *localSMTP, *localIMAP, stdout, log); err != nil {
		log.Error("serve stopped", "error", err)
		return 1
	}
	return 0
}

// checkConfig is `lyngk serve -check-config [-connect]`: the settings have
// parsed and validated; it loads the templates, prints the warnings and,
// with connect, logs in to the IMAP and SMTP servers as the daemon would
// (password or OAuth2, whatever the settings say), reporting each server's
// steps. Exit 0 only when all of it succeeded.
func checkConfig(cfg config, connect bool, stdout, stderr io.Writer) int {
	if _, err := templates.Load(cfg.TemplatesDir); err != nil {
		fmt.Fprintf(stderr, "lyngk: %v\n", err)
		return 1
	}
	for _, w := range cfg.warnings() {
		fmt.Fprintf(stderr, "lyngk: warning: %s\n", w)
	}
	mode := "real mode"
	if cfg.local() {
		mode = "local all-in-one mode"
	}
	if !connect {
		fmt.Fprintf(stdout, "configuration OK (%s)\n", mode)
		return 0
	}
	if cfg.local() {
		fmt.Fprintln(stdout, "configuration OK (local all-in-one mode: it runs its own mail servers, there is nothing to connect to)")
		return 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	failed := false
	step := func(proto, addr, tlsMode, auth, user string, check func(step func(string)) error) {
		fmt.Fprintf(stdout, "%s %s: connecting (%s), then logging in as %s by %s\n", proto, addr, tlsMode, user, auth)
		if err := check(func(s string) { fmt.Fprintf(stdout, "%s %s: %s: done\n", proto, addr, s) }); err != nil {
			fmt.Fprintf(stdout, "%s %s: FAILED: %v\n", proto, addr, err)
			failed = true
			return
		}
		fmt.Fprintf(stdout, "%s %s: OK\n", proto, addr)
	}
	if cfg.IMAP.Addr != "" {
		ic := cfg.IMAP.WithDefaults()
		step("IMAP", ic.Addr, ic.TLS, ic.Auth, ic.Username, func(s func(string)) error { return mailer.CheckIMAPSteps(ctx, cfg.IMAP, s) })
	} else {
		fmt.Fprintln(stdout, "IMAP: no imap_addr (mail comes in through lyngk process): nothing to connect to")
	}
	sc := cfg.SMTP.WithDefaults()
	user := sc.Username
	if user == "" && sc.Auth == mailer.AuthPassword {
		user, sc.Auth = "nobody", "no login (none set)"
	}
	smtpCfg := cfg.SMTP
	smtpCfg.HeloName = cfg.Domain
	step("SMTP", sc.Addr, sc.TLS, sc.Auth, user, func(s func(string)) error { return mailer.CheckSMTPSteps(ctx, smtpCfg, s) })
	if failed {
		return 1
	}
	fmt.Fprintf(stdout, "configuration OK (%s), and the servers take the login\n", mode)
	return 0
}

// signalContext is cancelled by the first SIGINT or SIGTERM, which starts a
// graceful shutdown (finish the mail in hand, flush the outbox, close the
// store). A second signal exits at once: bbolt commits are atomic, so this
// can never corrupt the store, at worst a reply waits for the next start.
func signalContext(log *slog.Logger) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		s := <-ch
		log.Info("shutting down; a second signal stops at once", "signal", s.String())
		cancel()
		s = <-ch
		log.Warn("second signal: stopping now", "signal", s.String())
		os.Exit(1)
	}()
	return ctx, func() { signal.Stop(ch); cancel() }
}

func newLogger(cfg config, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel)) // validated by parseConfig
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

func newEngine(cfg config) (*engine.Engine, error) {
	tpl, err := templates.Load(cfg.TemplatesDir)
	if err != nil {
		return nil, err
	}
	return engine.New(engine.Config{
		Games:          offered(),
		Robot:          cfg.Server,
		ServerName:     cfg.ServerName,
		Domain:         cfg.Domain,
		Templates:      tpl,
		RatePerHour:    cfg.RatePerHour,
		SignupsPerHour: cfg.SignupsPerHour,
		ConfirmsPerDay: cfg.ConfirmsPerDay,
		NagAfter:       cfg.NagAfter,
		ForfeitAfter:   cfg.ForfeitAfter,
		RobotPlayer:    cfg.RobotPlayer,
		WebURL:         cfg.WebURL,
	})
}

func domainOf(addr string) string {
	if i := strings.LastIndexByte(addr, '@'); i >= 0 {
		return addr[i+1:]
	}
	return "localhost"
}

// serve runs the daemon until ctx is cancelled.
func serve(ctx context.Context, cfg config, localSMTP, localIMAP string, stdout io.Writer, log *slog.Logger) error {
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return err
	}
	db, err := store.Open(filepath.Join(cfg.DataDir, "lyngk.db"), store.Options{Limits: cfg.Store, Upgrade: upgrade})
	if err != nil {
		return err
	}
	defer db.Close()
	// The web listener is opened first: in local mode its address is the
	// base URL of the links in the mails.
	var webLn net.Listener
	if cfg.WebAddr != "" {
		if webLn, err = listenWeb(cfg.WebAddr, cfg.local()); err != nil {
			return err
		}
		defer webLn.Close()
		printListening(stdout, "web", webLn.Addr().String())
		if cfg.local() && cfg.WebURL == "" {
			cfg.WebURL = "http://" + webLn.Addr().String()
		}
	}
	eng, err := newEngine(cfg)
	if err != nil {
		return err
	}
	imapCfg, smtpCfg := cfg.IMAP, cfg.SMTP
	smtpCfg.HeloName = cfg.Domain
	if cfg.local() {
		local, err := localmail.StartLocal(ctx, localmail.LocalConfig{SMTPAddr: localSMTP, IMAPAddr: localIMAP,
			Server: cfg.Server, Dir: cfg.DataDir}, log)
		if err != nil {
			return err
		}
		defer local.Close()
		printListening(stdout, "smtp", local.SMTPAddr())
		printListening(stdout, "imap", local.IMAPAddr())
		imapCfg.Addr, imapCfg.Username, imapCfg.Password, imapCfg.TLS = local.IMAPAddr(), cfg.Server, local.RobotPassword(), mailer.TLSNone
		smtpCfg.Addr, smtpCfg.TLS = local.SMTPAddr(), mailer.TLSNone
		printLocalHelp(stdout, eng, cfg, local.SMTPAddr(), local.IMAPAddr(), local.RobotPassword(), cfg.WebURL)
	}

	var m *metrics
	if cfg.MetricsAddr != "" {
		m = newMetrics(db)
		srv, addr, err := m.serve(cfg.MetricsAddr, log)
		if err != nil {
			return err
		}
		defer srv.Close()
		printListening(stdout, "metrics", addr.String())
		log.Info("metrics listening", "addr", addr.String())
	}

	a := &app{db: db, eng: eng, robot: cfg.Server, verp: cfg.VERP, log: log, metrics: m, now: time.Now, authservID: cfg.AuthservID,
		checks: newCheckPool(checkWorkers()), lane: newLane()}
	m.passwordChecks(a.checks, eng)
	m.pictures(eng)
	sender := mailer.NewSender(smtpCfg, &outboxQueue{db: db, log: log, metrics: m}, log)
	// The web part tells its open game pages of every change.
	webChanged := func() {}
	robot := newRobotPlayer(a, cfg.RobotThink, cfg.RobotUnmovedPerHour, func() {
		sender.Wake()
		webChanged()
	})
	if webLn != nil {
		// A move on a play page wakes the sender and the robot; the
		// handler tells its game pages itself.
		mover := webMover{a: a, wake: func() {
			sender.Wake()
			robot.Wake()
		}}
		h, stop, err := serveWeb(ctx, webLn, db, eng, cfg, m, mover, log)
		if err != nil {
			return err
		}
		defer stop()
		webChanged = h.Changed
		log.Info("web listening", "addr", webLn.Addr().String(), "url", cfg.WebURL, "public", cfg.WebPublic)
	}
	// Whatever changed the store may have made a game wait for the robot.
	changed := func() {
		sender.Wake()
		robot.Wake()
		webChanged()
	}
	ctl, err := listenControl(ctx, a, changed)
	if err != nil {
		return err
	}
	defer ctl.Close()
	// A reply is queued with the time its mail was taken in hand (the batch
	// start), so from then to the SMTP server's acceptance is the server's
	// own share of it.
	sender.OnSent = func(q mailer.QueuedMail, accepted time.Time) {
		d := accepted.Sub(q.Queued)
		m.reply(d)
		log.Debug("reply accepted", "id", q.ID, "server_share", d)
	}
	poller := mailer.NewPoller(imapCfg, func(ctx context.Context, raws [][]byte) ([]mailer.Outcome, error) {
		res, err := a.handle(ctx, raws)
		changed()
		out := make([]mailer.Outcome, len(res))
		for i, r := range res {
			out[i] = mailerOutcome(r)
		}
		return out, err
	}, log)
	a.lane.recheck, a.lane.wake = poller.Recheck, changed
	if m != nil {
		poller.OnReconnect = m.imapReconnects.Inc
		poller.OnMail = m.inbox
	}

	log.Info("lyngk serving", "server", cfg.Server, "name", eng.ServerName(), "data", cfg.DataDir, "local", cfg.local())
	// A failing task stops the others too.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	runTask := func(name string, f func(context.Context) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(ctx); err != nil && !errors.Is(err, context.Canceled) {
				errs <- fmt.Errorf("%s: %w", name, err)
			}
		}()
	}
	// The poller stops first (finishing the mail in hand); the sender gets
	// a short grace period to flush what was just queued.
	senderCtx, stopSender := context.WithCancel(context.WithoutCancel(ctx))
	defer stopSender()
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := sender.Run(senderCtx); err != nil && !errors.Is(err, context.Canceled) {
			errs <- fmt.Errorf("sender: %w", err)
		}
	}()
	if imapCfg.Addr != "" {
		runTask("poller", poller.Run)
	} else {
		log.Info("no imap_addr: mail comes in through lyngk process", "socket", controlPath(db.Path()))
	}
	runTask("password lane", a.runLane)
	runTask("timers", func(ctx context.Context) error {
		return a.timers(ctx, tickEvery, func() {
			sender.Wake()
			webChanged()
		})
	})
	if cfg.RobotPlayer {
		log.Info("robot player on", "think", cfg.RobotThink, "searches_at_once", cap(robot.slots))
		runTask("robot", robot.run)
	}

	select {
	case <-ctx.Done():
	case err := <-errs:
		cancel()
		stopSender()
		wg.Wait()
		return err
	}
	sender.Wake()
	flush(db, shutdownGrace)
	stopSender()
	wg.Wait()
	log.Info("stopped cleanly")
	return nil
}

// shutdownGrace is how long the sender may go on flushing after a signal.
const shutdownGrace = 5 * time.Second

// flush waits until nothing in the outbox is due any more, or grace has
// passed. Mail left over stays queued for the next start.
func flush(db *store.DB, grace time.Duration) {
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		var due int
		err := db.View(func(tx *store.Tx) error {
			ms, _, err := tx.Due(time.Now(), 1)
			due = len(ms)
			return err
		})
		if err != nil || due == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// printListening writes the line that tells where a listener of the
// daemon is: "listening NAME HOST:PORT" (NAME web, smtp, imap, metrics),
// one for each, the address as bound. Any address may ask for port 0 (the
// kernel picks a free one: "-local-smtp 127.0.0.1:0"); whoever started the
// daemon (a test, a script) reads the port here, instead of picking a free
// one itself and hoping nobody takes it before the daemon listens.
func printListening(w io.Writer, name, addr string) {
	fmt.Fprintf(w, "listening %s %s\n", name, addr)
}

// printLocalHelp tells how to connect. The password of the server's
// mailbox goes to stdout, the terminal of whoever started the daemon, never
// to the log. It says "the server's address" for the mailbox the daemon
// reads and "the robot player" for the computer opponent, as the README
// does: "the robot" alone meant both.
func printLocalHelp(w io.Writer, eng *engine.Engine, cfg config, smtpAddr, imapAddr, robotPassword, webURL string) {
	var challenges []string
	for _, g := range eng.Games() {
		challenges = append(challenges, fmt.Sprintf("%q", g.Name()+" challenge alice bob"))
	}
	host, smtpPort, _ := net.SplitHostPort(smtpAddr)
	_, imapPort, _ := net.SplitHostPort(imapAddr)
	fmt.Fprintf(w, `%s, local all-in-one mode (loopback only)

  Outgoing mail (SMTP): %s port %s, no TLS, no authentication
  Incoming mail (IMAP): %s port %s, no TLS
  Mailboxes:            any NAME@localhost; login NAME@localhost, password NAME
  The server's address: %s (its mailbox: password %s, new at each start)
%s%s
  To start: from alice@localhost, send "signup alice SECRET" to the
  server's address and reply to the Confirm mail that comes back; likewise
  bob; then %s. Games are kept in %s.
  Stop with Ctrl-C.

`, eng.ServerName(), host, smtpPort, host, imapPort, cfg.Server, robotPassword, robotHelp(cfg), webHelp(webURL), strings.Join(challenges, " or "), cfg.DataDir)
}

// webHelp is the local help's line on the web pages.
func webHelp(webURL string) string {
	if webURL == "" {
		return ""
	}
	return fmt.Sprintf("  Web pages:            %s/\n", webURL)
}

// robotHelp is the local help's line on the robot player.
func robotHelp(cfg config) string {
	if !cfg.RobotPlayer {
		return ""
	}
	return "  The robot player:     userid robot, the computer opponent (\"lyngk challenge alice robot\")\n"
}

// timers runs the engine's timers (reminders, forfeits) every period, each
// run in one transaction like a mail.
func (a *app) timers(ctx context.Context, every time.Duration, wake func()) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if err := a.tick(); err != nil {
			a.log.Error("timers", "error", err)
		} else {
			wake()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

func (a *app) tick() error {
	now := a.now()
	return a.db.Update(func(tx *store.Tx) error {
		if _, err := tx.Expire(now); err != nil {
			return err
		}
		mails, failed, err := a.eng.Tick(tx, now)
		if err != nil {
			return err
		}
		if failed != nil {
			// The other games' timers ran; these are tried again at the
			// next tick.
			a.log.Error("timers failed for some games", "error", failed.Error())
		}
		for _, m := range mails {
			data, err := a.compose(m, now)
			if err != nil {
				a.log.Warn("reminder dropped", "to", m.To, "error", err)
				continue
			}
			if err := a.enqueue(tx, m.To, data, m.Unasked, enqueue, now); err != nil {
				return err
			}
		}
		return nil
	})
}

// outboxQueue lets the mailer's sender drain the store's outbox.
type outboxQueue struct {
	db      *store.DB
	log     *slog.Logger
	metrics *metrics // nil when metrics are off
}

var _ mailer.Queue = (*outboxQueue)(nil)

// Due reads the due mails; the strangers' mails past their share, which
// the store names with them, are dropped in a transaction of their own
// (rare: a flood of strangers), so a round that drops nothing writes
// nothing.
func (q *outboxQueue) Due(now time.Time, max int) ([]mailer.QueuedMail, error) {
	var out []mailer.QueuedMail
	var drop []uint64
	err := q.db.View(func(tx *store.Tx) error {
		ms, d, err := tx.Due(now, max)
		for _, m := range ms {
			out = append(out, mailer.QueuedMail{ID: m.ID, From: m.From, To: m.To, Data: m.Data, Attempts: m.Attempts,
				Queued: m.Queued})
		}
		drop = d
		return err
	})
	if err != nil || len(drop) == 0 {
		return out, err
	}
	dropped := 0
	err = q.db.Update(func(tx *store.Tx) error {
		dropped = 0
		for _, id := range drop {
			// Gone already (an operator's hand, say) is as good as done.
			switch err := tx.Drop(id, now); {
			case err == nil:
				dropped++
			case !errors.Is(err, store.ErrNotFound):
				return err
			}
		}
		return nil
	})
	if err == nil {
		q.metrics.strangerDrops(dropped)
		q.log.Info("strangers' mails dropped past their share of mails_per_day", "mails", dropped)
	}
	return out, err
}

// Begin and Finish each write a whole round in one transaction: one fsync
// for all its mails rather than one per mail.
func (q *outboxQueue) Begin(as []mailer.Attempt) error {
	return q.db.Update(func(tx *store.Tx) error {
		for _, a := range as {
			if err := tx.RecordAttempt(a.ID, a.Next); err != nil {
				return err
			}
		}
		return nil
	})
}

func (q *outboxQueue) Finish(now time.Time, rs []mailer.Result) error {
	return q.db.Update(func(tx *store.Tx) error {
		for _, r := range rs {
			var err error
			switch r.Status {
			case mailer.Accepted:
				err = tx.Sent(r.ID, now)
			case mailer.Deferred:
				err = tx.Failed(r.ID, r.Err)
			case mailer.Refused:
				err = tx.Dead(r.ID, r.Err, now)
			case mailer.RelayDown:
				err = tx.RelayFailed(r.ID, r.Err, now)
			}
			// Gone already (an operator's hand, say) is as good as done.
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
		return nil
	})
}
