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
	"lyngk.example/lyngk/engine/daemon"
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
	levels, err := cfg.robotLevels()
	if err != nil {
		return nil, err
	}
	return engine.New(engine.Config{
		Games:          offered(),
		Server:         cfg.Server,
		ServerName:     cfg.ServerName,
		Domain:         cfg.Domain,
		Templates:      tpl,
		RatePerHour:    cfg.RatePerHour,
		SignupsPerHour: cfg.SignupsPerHour,
		ConfirmsPerDay: cfg.ConfirmsPerDay,
		NagAfter:       cfg.NagAfter,
		ForfeitAfter:   cfg.ForfeitAfter,
		// championship_days is a count: at least 1 (settingsTable).
		ChampionshipPause: time.Duration(cfg.ChampionshipDays) * 24 * time.Hour,
		RobotPlayer:       cfg.RobotPlayer,
		RobotLevels:       levels,
		TournamentRobot:   cfg.TournamentRobot,
		WebURL:            cfg.WebURL,
	})
}

func domainOf(addr string) string {
	if i := strings.LastIndexByte(addr, '@'); i >= 0 {
		return addr[i+1:]
	}
	return "localhost"
}

// serve runs the daemon until ctx is cancelled: wiring only. The store,
// the engine and the daemon (engine/daemon, the one writer) are made
// here; then the parts that feed it work (the poller, the password lane,
// the control socket, the timers, the robot, the web) and the parts that
// wait on its change signal (the sender, the web's live pages, the robot).
func serve(ctx context.Context, cfg config, localSMTP, localIMAP string, stdout io.Writer, log *slog.Logger) error {
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return err
	}
	db, err := store.Open(filepath.Join(cfg.DataDir, "lyngk.db"), store.Options{Limits: cfg.Store, Upgrade: upgrade})
	if err != nil {
		return err
	}
	defer db.Close()
	var stops stack
	defer stops.run()
	webLn, err := openWeb(&cfg, stdout, &stops)
	if err != nil {
		return err
	}
	eng, err := newEngine(cfg)
	if err != nil {
		return err
	}
	imapCfg, smtpCfg, err := mailServers(ctx, cfg, eng, localSMTP, localIMAP, stdout, log, &stops)
	if err != nil {
		return err
	}
	m, err := startMetrics(cfg, db, stdout, log, &stops)
	if err != nil {
		return err
	}
	a := &app{db: db, eng: eng, robot: cfg.Server, verp: cfg.VERP, log: log, metrics: m, now: time.Now, authservID: cfg.AuthservID,
		checks: newCheckPool(checkWorkers()), lane: newLane()}
	d := a.daemon()
	m.passwordChecks(a.checks, eng)
	m.pictures(eng)
	sender := newSender(smtpCfg, d, m, log)
	robot := newRobotPlayer(a, cfg.RobotThink, cfg.RobotUnmovedPerHour)
	if webLn != nil {
		stop, err := serveWeb(ctx, webLn, d, eng, cfg, m, log)
		if err != nil {
			return err
		}
		stops.push(stop)
		log.Info("web listening", "addr", webLn.Addr().String(), "url", cfg.WebURL, "public", cfg.WebPublic)
	}
	ctl, err := listenControl(ctx, a)
	if err != nil {
		return err
	}
	defer ctl.Close()
	poller := newPoller(imapCfg, a, m, log)
	tasks := []task{{"password lane", a.runLane}, {"timers", func(ctx context.Context) error { return a.timers(ctx, tickEvery) }},
		// Every commit wakes the sender (the robot and the web's live
		// pages wait on the change signal themselves).
		{"changes", func(ctx context.Context) error { d.Watch(ctx, sender.Wake); return nil }},
		// The robot's reviews of ended games, one at a time, outside the
		// mail's path, and the game-over mails held for them
		// (daemon.RunReviews).
		{"reviews", d.RunReviews}}
	if imapCfg.Addr != "" {
		tasks = append(tasks, task{"poller", poller.Run})
	} else {
		log.Info("no imap_addr: mail comes in through lyngk process", "socket", controlPath(db.Path()))
	}
	if cfg.RobotPlayer {
		log.Info("robot player on", "levels", cfg.RobotLevels, "think", cfg.RobotThink, "searches_at_once", cap(robot.slots))
		tasks = append(tasks, task{"robot", robot.run})
	}
	log.Info("lyngk serving", "server", cfg.Server, "name", eng.ServerName(), "data", cfg.DataDir, "local", cfg.local())
	if err := runTasks(ctx, sender, d.Outbox(nil), tasks); err != nil {
		return err
	}
	log.Info("stopped cleanly")
	return nil
}

// stack is what serve stops on its way out, the last started first.
type stack []func()

func (s *stack) push(f func()) { *s = append(*s, f) }

func (s *stack) run() {
	for i := len(*s) - 1; i >= 0; i-- {
		(*s)[i]()
	}
}

// openWeb opens the web listener, if web_addr says so. It is opened
// before anything else: in local mode its address is the base URL of the
// links in the mails (cfg.WebURL).
func openWeb(cfg *config, stdout io.Writer, stops *stack) (net.Listener, error) {
	if cfg.WebAddr == "" {
		return nil, nil
	}
	ln, err := listenWeb(cfg.WebAddr, cfg.local())
	if err != nil {
		return nil, err
	}
	stops.push(func() { ln.Close() })
	printListening(stdout, "web", ln.Addr().String())
	if cfg.local() && cfg.WebURL == "" {
		cfg.WebURL = "http://" + ln.Addr().String()
	}
	return ln, nil
}

// mailServers returns the IMAP and SMTP servers the daemon talks to: the
// configured ones, or in local mode its own (mailer/localmail), started
// here, with the help printed on stdout.
func mailServers(ctx context.Context, cfg config, eng *engine.Engine, localSMTP, localIMAP string, stdout io.Writer, log *slog.Logger, stops *stack) (mailer.IMAPConfig, mailer.SMTPConfig, error) {
	imapCfg, smtpCfg := cfg.IMAP, cfg.SMTP
	smtpCfg.HeloName = cfg.Domain
	if !cfg.local() {
		return imapCfg, smtpCfg, nil
	}
	local, err := localmail.StartLocal(ctx, localmail.LocalConfig{SMTPAddr: localSMTP, IMAPAddr: localIMAP,
		Server: cfg.Server, Dir: cfg.DataDir}, log)
	if err != nil {
		return imapCfg, smtpCfg, err
	}
	stops.push(func() { local.Close() })
	printListening(stdout, "smtp", local.SMTPAddr())
	printListening(stdout, "imap", local.IMAPAddr())
	imapCfg.Addr, imapCfg.Username, imapCfg.Password, imapCfg.TLS = local.IMAPAddr(), cfg.Server, local.RobotPassword(), mailer.TLSNone
	smtpCfg.Addr, smtpCfg.TLS = local.SMTPAddr(), mailer.TLSNone
	printLocalHelp(stdout, eng, cfg, local.SMTPAddr(), local.IMAPAddr(), local.RobotPassword(), cfg.WebURL)
	return imapCfg, smtpCfg, nil
}

// startMetrics serves the metrics, if metrics_addr says so; nil metrics
// (every method a no-op) when not.
func startMetrics(cfg config, db *store.DB, stdout io.Writer, log *slog.Logger, stops *stack) (*metrics, error) {
	if cfg.MetricsAddr == "" {
		return nil, nil
	}
	m := newMetrics(db)
	srv, addr, err := m.serve(cfg.MetricsAddr, log)
	if err != nil {
		return nil, err
	}
	stops.push(func() { srv.Close() })
	printListening(stdout, "metrics", addr.String())
	log.Info("metrics listening", "addr", addr.String())
	return m, nil
}

// newSender is the SMTP sender draining the daemon's outbox.
func newSender(smtpCfg mailer.SMTPConfig, d *daemon.Daemon, m *metrics, log *slog.Logger) *mailer.Sender {
	sender := mailer.NewSender(smtpCfg, d.Outbox(m.strangerDrops), log)
	// A reply is queued with the time its mail was taken in hand (the batch
	// start), so from then to the SMTP server's acceptance is the server's
	// own share of it.
	sender.OnSent = func(q mailer.QueuedMail, accepted time.Time) {
		d := accepted.Sub(q.Queued)
		m.reply(d)
		log.Debug("reply accepted", "id", q.ID, "server_share", d)
	}
	return sender
}

// newPoller is the IMAP poller handing each batch of mails to the app
// (its password lane asks it to look again).
func newPoller(imapCfg mailer.IMAPConfig, a *app, m *metrics, log *slog.Logger) *mailer.Poller {
	poller := mailer.NewPoller(imapCfg, func(ctx context.Context, raws [][]byte) ([]mailer.Outcome, error) {
		res, err := a.handle(ctx, raws)
		out := make([]mailer.Outcome, len(res))
		for i, r := range res {
			out[i] = mailerOutcome(r)
		}
		return out, err
	}, log)
	a.lane.recheck = poller.Recheck
	if m != nil {
		poller.OnReconnect = m.imapReconnects.Inc
		poller.OnMail = m.inbox
	}
	return poller
}

// task is one of the daemon's goroutines.
type task struct {
	name string
	run  func(context.Context) error
}

// runTasks runs the sender and tasks until ctx is done or one fails,
// which stops the others too. The tasks stop first (the poller finishing
// the mail in hand); the sender gets shutdownGrace to flush what was just
// queued (outbox.Flush).
func runTasks(ctx context.Context, sender *mailer.Sender, outbox daemon.Outbox, tasks []task) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	senderCtx, stopSender := context.WithCancel(context.WithoutCancel(ctx))
	defer stopSender()
	var wg sync.WaitGroup
	errs := make(chan error, len(tasks)+1)
	start := func(ctx context.Context, t task) {
		wg.Go(func() {
			if err := t.run(ctx); err != nil && !errors.Is(err, context.Canceled) {
				errs <- fmt.Errorf("%s: %w", t.name, err)
			}
		})
	}
	start(senderCtx, task{"sender", sender.Run})
	for _, t := range tasks {
		start(ctx, t)
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
	outbox.Flush(shutdownGrace)
	stopSender()
	wg.Wait()
	return nil
}

// shutdownGrace is how long the sender may go on flushing after a signal.
const shutdownGrace = 5 * time.Second

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

// robotHelp is the local help's lines on the robot player: robot, the
// default level, and the levels on.
func robotHelp(cfg config) string {
	levels, err := cfg.robotLevels()
	if !cfg.RobotPlayer || err != nil || len(levels) == 0 {
		return ""
	}
	var ids []string
	for _, l := range levels {
		ids = append(ids, l.ID)
	}
	return "  The robot player:     userid robot, the computer opponent (\"lyngk challenge alice robot\")\n" +
		"  Its levels:           " + strings.Join(ids, ", ") + " (\"help robot\")\n"
}

// timers runs the engine's timers (reminders, forfeits) every period, each
// run one unit of work of the daemon, like a mail.
func (a *app) timers(ctx context.Context, every time.Duration) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if err := a.tick(); err != nil {
			a.log.Error("timers", "error", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

func (a *app) tick() error {
	failed, err := a.daemon().Tick(context.Background(), a.now())
	if failed != nil {
		// The other games' timers ran; these are tried again at the
		// next tick.
		a.log.Error("timers failed for some games", "error", failed.Error())
	}
	return err
}
