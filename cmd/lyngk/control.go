package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"lyngk.example/lyngk/engine/daemon"
	"lyngk.example/lyngk/mailer"
	"lyngk.example/lyngk/store"
)

// The control socket lets `lyngk backup`, `lyngk admin` and `lyngk process`
// work while the daemon runs. bbolt holds an exclusive lock on its file, so
// a second process cannot open the store; it asks the daemon instead, over
// a Unix socket beside the store that only the daemon's user may open
// (0600). So procmail may hand mail to `lyngk process` while `lyngk serve`
// runs the sender and the timers.
//
// Protocol: one request line, then for "process" the raw mail, up to the
// end of the client's half of the connection (the client shuts down its
// writing side). The daemon reads the whole request, to that end, before
// it answers: a daemon that answered and closed while the client was still
// writing would break the client's pipe (EPIPE), and one that closed with
// unread bytes would reset the connection under the client's read of the
// answer (a Unix socket does that as TCP does). It answers a status line,
// "OK" or "ERROR: text", then the output (a listing, or for "process mbox"
// the replies as an mbox) and closes.

const controlName = "lyngk.sock"

// maxControlRequest bounds a request: its line and a mail of maxReadSize.
const maxControlRequest = maxReadSize + 4096

func controlPath(dbPath string) string { return filepath.Join(filepath.Dir(dbPath), controlName) }

// listenControl starts the control socket of the daemon. A mail handed
// over by `lyngk process` is applied as the poller's are; its commit wakes
// the sender.
func listenControl(ctx context.Context, a *app) (io.Closer, error) {
	path := controlPath(a.db.Path())
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
			if errors.Is(err, net.ErrClosed) {
				return
			}
			if err != nil {
				// Out of file descriptors, say: keep the socket, as
				// net/http does, rather than refuse every later request.
				a.log.Warn("control socket: accept", "error", err)
				time.Sleep(100 * time.Millisecond)
				continue
			}
			go a.serveControl(ctx, c)
		}
	}()
	return ln, nil
}

func (a *app) serveControl(ctx context.Context, c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Minute))
	r := bufio.NewReader(io.LimitReader(c, maxControlRequest+1))
	line, err := r.ReadString('\n')
	if err != nil || len(line) > 4096 {
		return
	}
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return
	}
	// The whole request, up to the client's end of writing, before any
	// answer (see the protocol above).
	body, err := io.ReadAll(r)
	if err != nil {
		return
	}
	if len(line)+len(body) > maxControlRequest {
		fmt.Fprintf(c, "ERROR: request over %d bytes\n", maxControlRequest)
		return
	}
	var out bytes.Buffer
	var cerr error
	switch fields[0] {
	case "backup":
		// The path is the rest of the line, so it may contain spaces.
		path := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "backup"))
		if !filepath.IsAbs(path) {
			cerr = errors.New("want: backup ABSOLUTE-PATH")
			break
		}
		if cerr = a.db.BackupFile(path); cerr == nil {
			fmt.Fprintf(&out, "backup of %s written to %s\n", a.db.Path(), path)
		}
	case "admin":
		cerr = admin(a.db, a.daemon(), fields[1:], true, &out) // the daemon's store knows its limits
	case "process":
		if len(fields) > 1 && fields[1] == "mbox" {
			cerr = a.processMbox(ctx, body, &out, false)
		} else {
			_, cerr = a.apply(ctx, body, daemon.Enqueue)
		}
	default:
		cerr = fmt.Errorf("unknown request %q", fields[0])
	}
	a.log.InfoContext(ctx, "control request", "request", fields[0], "ok", cerr == nil)
	if cerr != nil {
		fmt.Fprintf(c, "ERROR: %v\n", cerr)
		return
	}
	io.WriteString(c, "OK\n")
	c.Write(out.Bytes())
}

// processMbox applies one mail and writes its replies as an mbox, after the
// commit (`lyngk process -mbox`); with reviews, then the game-over mails
// held for the robot's reviews owed, with the reviews (daemon.Reviews),
// where no daemon's worker makes them.
func (a *app) processMbox(ctx context.Context, raw []byte, w io.Writer, reviews bool) error {
	var out []daemon.Outgoing
	deliver := func(_ *store.Tx, m daemon.Outgoing, _ time.Time) error {
		out = append(out, m)
		return nil
	}
	_, err := a.apply(ctx, raw, deliver)
	if err == nil && reviews {
		err = a.daemon().Reviews(ctx, deliver)
	}
	if err != nil {
		return err
	}
	now := a.now()
	for _, m := range out {
		if err := mailer.WriteMbox(w, m.From, now, m.Data); err != nil {
			return err
		}
	}
	return nil
}

// errDaemon marks a request the running daemon refused.
var errDaemon = errors.New("daemon")

// withStore runs f on the store at dbPath, or, when a running daemon holds
// it, sends req (and body, if any) over the daemon's control socket and
// copies its output to stdout. The store's lock is tried once without
// waiting, so a command against a running daemon costs no wait; only when
// no daemon answers is the lock waited for (another command may hold the
// store for a moment). lim are the limits the store is opened with when no
// daemon holds it (what its Due and DailySent report).
func withStore(dbPath, req string, body []byte, lim store.Limits, stdout io.Writer, f func(*store.DB) error) error {
	db, err := store.Open(dbPath, store.Options{Timeout: time.Nanosecond, Upgrade: upgrade, Limits: lim})
	if errors.Is(err, store.ErrLocked) {
		c, cerr := net.DialTimeout("unix", controlPath(dbPath), 2*time.Second)
		if cerr == nil {
			defer c.Close()
			return askDaemon(c, req, body, stdout)
		}
		if db, err = store.Open(dbPath, store.Options{Timeout: 500 * time.Millisecond, Upgrade: upgrade, Limits: lim}); errors.Is(err, store.ErrLocked) {
			return fmt.Errorf("%w (and no control socket: %v)", err, cerr)
		}
	}
	if err != nil {
		return err
	}
	defer db.Close()
	return f(db)
}

// askDaemon sends one request over the control socket and copies the
// answer's output to stdout.
func askDaemon(c net.Conn, req string, body []byte, stdout io.Writer) error {
	_ = c.SetDeadline(time.Now().Add(2 * time.Minute))
	if _, err := io.WriteString(c, req+"\n"); err != nil {
		return fmt.Errorf("control socket: %w", err)
	}
	if len(body) > 0 {
		if _, err := c.Write(body); err != nil {
			return fmt.Errorf("control socket: %w", err)
		}
	}
	// The end of the request: the daemon answers once it sees it.
	if uc, ok := c.(*net.UnixConn); ok {
		if err := uc.CloseWrite(); err != nil {
			return fmt.Errorf("control socket: %w", err)
		}
	}
	r := bufio.NewReader(c)
	status, err := r.ReadString('\n')
	if err != nil {
		return fmt.Errorf("control socket: %w", err)
	}
	if msg, ok := strings.CutPrefix(strings.TrimSuffix(status, "\n"), "ERROR: "); ok {
		return fmt.Errorf("%w: %s", errDaemon, msg)
	}
	_, err = io.Copy(stdout, r)
	return err
}
