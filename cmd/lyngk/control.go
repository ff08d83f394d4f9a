package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"lyngk.example/lyngk/store"
)

// The control socket lets `lyngk backup` and `lyngk admin` work while the
// daemon runs. bbolt holds an exclusive lock on its file, so a second
// process cannot open the store; it asks the daemon instead, over a Unix
// socket beside the store that only the daemon's user may open (0600).
//
// Protocol: one request line ("backup PATH" or "admin ARGS…"), then the
// daemon writes the output and closes. A last line "ERROR: text" marks a
// failure.

const controlName = "lyngk.sock"

func controlPath(dbPath string) string { return filepath.Join(filepath.Dir(dbPath), controlName) }

// listenControl starts the control socket of the daemon.
func listenControl(ctx context.Context, db *store.DB, log *slog.Logger) (io.Closer, error) {
	path := controlPath(db.Path())
	_ = os.Remove(path) // left over from a killed daemon; the store lock proves we are the only one
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serveControl(ctx, c, db, log)
		}
	}()
	return ln, nil
}

func serveControl(ctx context.Context, c net.Conn, db *store.DB, log *slog.Logger) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Minute))
	line, err := bufio.NewReader(io.LimitReader(c, 4096)).ReadString('\n')
	if err != nil {
		return
	}
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return
	}
	w := bufio.NewWriter(c)
	defer w.Flush()
	var cerr error
	switch fields[0] {
	case "backup":
		// The path is the rest of the line, so it may contain spaces.
		path := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "backup"))
		if !filepath.IsAbs(path) {
			cerr = errors.New("want: backup ABSOLUTE-PATH")
			break
		}
		if cerr = db.BackupFile(path); cerr == nil {
			fmt.Fprintf(w, "backup of %s written to %s\n", db.Path(), path)
		}
	case "admin":
		cerr = admin(db, fields[1:], w)
	default:
		cerr = fmt.Errorf("unknown request %q", fields[0])
	}
	log.InfoContext(ctx, "control request", "request", fields[0], "ok", cerr == nil)
	if cerr != nil {
		fmt.Fprintf(w, "ERROR: %v\n", cerr)
	}
}

// withStore runs f on the store at dbPath, or, when a running daemon holds
// it, sends req over the daemon's control socket and copies the answer.
func withStore(dbPath string, req string, stdout io.Writer, f func(*store.DB) error) error {
	db, err := store.Open(dbPath, store.Options{Timeout: 500 * time.Millisecond})
	if err == nil {
		defer db.Close()
		return f(db)
	}
	if !errors.Is(err, store.ErrLocked) {
		return err
	}
	c, cerr := net.DialTimeout("unix", controlPath(dbPath), 2*time.Second)
	if cerr != nil {
		return fmt.Errorf("%w (and no control socket: %v)", err, cerr)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Minute))
	if _, err := io.WriteString(c, req+"\n"); err != nil {
		return err
	}
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		if msg, ok := strings.CutPrefix(sc.Text(), "ERROR: "); ok {
			return errors.New(msg)
		}
		fmt.Fprintln(stdout, sc.Text())
	}
	return sc.Err()
}
