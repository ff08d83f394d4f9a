package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"lyngk.example/lyngk/engine/daemon"
	"lyngk.example/lyngk/store"
)

// runProcess is `lyngk process -db FILE [-mbox FILE|-] [-from ADDR]`
// (SPEC §5): read one RFC 5322 mail on stdin, apply it to the store, and
// write the replies it causes to an mbox (or queue them in the store's
// outbox when -mbox is not given). Exit status 0 when the mail was applied,
// ignored or recognised as a duplicate; 1 when the store failed (nothing
// was applied: procmail may retry); 2 for bad usage. While `lyngk serve`
// holds the store, the mail is handed to it over its control socket and
// applied there (with the daemon's own address, whatever -from says); its
// sender then delivers the replies. LYNGK_TEMPLATES_DIR
// in the environment names a directory of template overrides.
func runProcess(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("process", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dbPath := fs.String("db", "", "the store `FILE` (created if missing)")
	mbox := fs.String("mbox", "", "write replies to this mbox `FILE` (- = stdout) instead of the outbox")
	from := fs.String("from", "lyngk@localhost", "the robot's own mail `ADDR`")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *dbPath == "" || fs.NArg() != 0 {
		fmt.Fprintln(stderr, "usage: lyngk process -db FILE [-mbox FILE|-] [-from ADDR]")
		return 2
	}
	raw, err := io.ReadAll(io.LimitReader(stdin, maxReadSize))
	if err != nil {
		fmt.Fprintf(stderr, "lyngk: reading stdin: %v\n", err)
		return 1
	}
	req := "process"
	if *mbox != "" {
		req = "process mbox"
	}
	var out bytes.Buffer
	err = withStore(*dbPath, req, raw, store.Limits{}, &out, func(db *store.DB) error {
		cfg := defaultConfig()
		cfg.Server = *from
		cfg.Domain = domainOf(*from)
		// The command line is a contract (SPEC §5); template overrides come
		// from the environment, as templates_dir does for serve.
		cfg.TemplatesDir = os.Getenv("LYNGK_TEMPLATES_DIR")
		eng, err := newEngine(cfg)
		if err != nil {
			return err
		}
		a := &app{db: db, eng: eng, robot: *from, log: slog.New(slog.NewTextHandler(stderr,
			&slog.HandlerOptions{Level: slog.LevelWarn})), now: time.Now}
		// Without a daemon, no worker makes the robot's review of a game
		// the mail ended (daemon.RunReviews): it is made here, after the
		// mail's commit, and the game-over mails held for it go with it.
		if *mbox != "" {
			return a.processMbox(context.Background(), raw, &out, true)
		}
		if _, err = a.apply(context.Background(), raw, daemon.Enqueue); err != nil {
			return err
		}
		return a.daemon().Reviews(context.Background(), nil)
	})
	if err != nil {
		fmt.Fprintf(stderr, "lyngk: %v\n", err)
		return 1
	}
	if *mbox == "" {
		return 0
	}
	// The transaction has committed: the replies are written after it. A
	// crash here loses those replies (the state change stands), which is
	// the nature of -mbox; the outbox mode has no such gap.
	w := stdout
	if *mbox != "-" {
		f, err := os.OpenFile(*mbox, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			fmt.Fprintf(stderr, "lyngk: %v\n", err)
			return 1
		}
		defer f.Close()
		w = f
	}
	if _, err := w.Write(out.Bytes()); err != nil {
		fmt.Fprintf(stderr, "lyngk: writing mbox: %v\n", err)
		return 1
	}
	return 0
}

// maxReadSize bounds what is read from stdin: a little over the refusal
// limit, so that an oversized mail is still recognised and answered.
const maxReadSize = maxMailSize + 64<<10
