package localmail

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base32"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"lyngk.example/lyngk/mailer"
	"lyngk.example/lyngk/mailer/internal/idle"
)

// localMaxMessage is the largest mail the local SMTP server takes.
const localMaxMessage = 2 << 20

// Local is the all-in-one mail service of local mode (SPEC §5): an SMTP
// server taking mail for NAME@localhost and an IMAP server where each such
// address has a mailbox (login: the address, password: NAME). The robot's
// mailbox is the exception: its subjects carry every signup password, so
// its password is random, made at each start (see RobotPassword).
// Mailboxes are created on first use (mail or login), each with INBOX,
// Drafts, Sent and Trash, and live on disk in LocalConfig.Dir/mail.db
// (localbox.go): they survive restarts with their UIDs and UIDVALIDITY.
type Local struct {
	log    *slog.Logger
	smtp   *smtp.Server
	imap   *imapserver.Server
	smtpLn net.Listener
	imapLn net.Listener
	wg     sync.WaitGroup

	robot         string // lower-cased
	robotPassword string

	boxes   *localBoxes
	changes *idle.Changes

	// conns are the IMAP connections open, to tell each BYE at Close;
	// closing refuses new ones meanwhile.
	connsMu sync.Mutex
	conns   map[*imapserver.Conn]struct{}
	closing bool

	closed    atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

// LocalConfig configures the local mail service.
type LocalConfig struct {
	// SMTPAddr and IMAPAddr are the listeners, loopback addresses only
	// (port 0 picks a free port, see SMTPAddr and IMAPAddr).
	SMTPAddr, IMAPAddr string
	// Server is the server's own address, e.g. "lyngk@localhost".
	Server string
	// Dir is where the mailboxes are kept (the file mail.db).
	Dir string
}

// LocalMailFile is the name of the mailboxes' file in LocalConfig.Dir.
const LocalMailFile = "mail.db"

// StartLocal opens the mailboxes and starts the SMTP and IMAP servers.
func StartLocal(ctx context.Context, cfg LocalConfig, log *slog.Logger) (*Local, error) {
	if _, ok := localName(cfg.Server); !ok {
		return nil, fmt.Errorf("%w: local server address %q: want NAME@localhost", mailer.ErrBadConfig, cfg.Server)
	}
	if cfg.Dir == "" {
		return nil, fmt.Errorf("%w: local mode needs a directory for its mailboxes", mailer.ErrBadConfig)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	pw, err := randomPassword()
	if err != nil {
		return nil, err
	}
	boxes, err := openBoxes(filepath.Join(cfg.Dir, LocalMailFile))
	if err != nil {
		return nil, err
	}
	l := &Local{log: log, robot: strings.ToLower(cfg.Server), robotPassword: pw, boxes: boxes, changes: idle.NewChanges(),
		conns: make(map[*imapserver.Conn]struct{})}
	if err := boxes.ensureUser(l.robot); err != nil {
		boxes.close()
		return nil, fmt.Errorf("localmail: local mailboxes: %w", err)
	}
	if l.smtpLn, err = listenLoopback(ctx, cfg.SMTPAddr); err != nil {
		boxes.close()
		return nil, fmt.Errorf("localmail: local SMTP: %w", err)
	}
	if l.imapLn, err = listenLoopback(ctx, cfg.IMAPAddr); err != nil {
		l.smtpLn.Close()
		boxes.close()
		return nil, fmt.Errorf("localmail: local IMAP: %w", err)
	}

	l.smtp = smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		return &localSMTPSession{l: l, helo: c.Hostname()}, nil
	}))
	l.smtp.Domain = "localhost"
	l.smtp.MaxMessageBytes = localMaxMessage
	l.smtp.MaxRecipients = 100
	l.smtp.AllowInsecureAuth = true // loopback only
	l.smtp.ReadTimeout = 5 * time.Minute
	l.smtp.WriteTimeout = time.Minute
	l.smtp.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelWarn)

	l.imap = imapserver.New(&imapserver.Options{
		NewSession: func(c *imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			if !l.addConn(c) {
				return nil, nil, errShuttingDown
			}
			return &localIMAPSession{l: l, x: l.boxes, conn: c}, nil, nil
		},
		// IDLE, UNSELECT and others come with IMAP4rev1; the rest must be
		// named.
		Caps: imap.CapSet{imap.CapIMAP4rev1: {}, imap.CapMove: {}, imap.CapUIDPlus: {}, imap.CapNamespace: {},
			imap.CapSpecialUse: {}, imap.CapCreateSpecialUse: {}, imap.CapUnauthenticate: {}},
		InsecureAuth: true, // loopback only
		Logger:       slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	})

	l.wg.Go(func() {
		if err := l.smtp.Serve(l.smtpLn); err != nil && !l.closed.Load() {
			log.Error("local SMTP server stopped", "err", err)
		}
	})
	l.wg.Go(func() {
		if err := l.imap.Serve(l.imapLn); err != nil && !l.closed.Load() {
			log.Error("local IMAP server stopped", "err", err)
		}
	})
	log.Info("local mail service started", "smtp", l.SMTPAddr(), "imap", l.IMAPAddr(), "server", cfg.Server,
		"mailboxes", filepath.Join(cfg.Dir, LocalMailFile))
	return l, nil
}

func listenLoopback(ctx context.Context, addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%w: %q: want host:port", mailer.ErrBadConfig, addr)
	}
	if !mailer.IsLoopback(host) {
		return nil, fmt.Errorf("%w: refusing to listen on %q", mailer.ErrNotLoopback, addr)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	// "localhost" might resolve elsewhere: check what was bound.
	if ta, ok := ln.Addr().(*net.TCPAddr); !ok || !ta.IP.IsLoopback() {
		ln.Close()
		return nil, fmt.Errorf("%w: %q is bound to %v", mailer.ErrNotLoopback, addr, ln.Addr())
	}
	return ln, nil
}

// SMTPAddr is the address the SMTP server listens on.
func (l *Local) SMTPAddr() string { return l.smtpLn.Addr().String() }

// IMAPAddr is the address the IMAP server listens on.
func (l *Local) IMAPAddr() string { return l.imapLn.Addr().String() }

// byeWait bounds how long Close waits for its BYEs to be written: a client
// that does not read gets its connection closed without one.
const byeWait = time.Second

// errShuttingDown is the greeting of a connection that comes during Close.
var errShuttingDown = &imap.Error{Type: imap.StatusResponseTypeBye, Text: "Server shutting down"}

// addConn records a new IMAP connection, unless Close has begun.
func (l *Local) addConn(c *imapserver.Conn) bool {
	l.connsMu.Lock()
	defer l.connsMu.Unlock()
	if l.closing {
		return false
	}
	l.conns[c] = struct{}{}
	return true
}

func (l *Local) dropConn(c *imapserver.Conn) {
	l.connsMu.Lock()
	delete(l.conns, c)
	l.connsMu.Unlock()
}

// bye sends "* BYE" to every IMAP connection (logged in or not, selected,
// idling) and closes it, as a server shutting down does (RFC 9051 §7.1.5),
// so that clients show a connection closed by the server rather than
// whatever they make of a dropped one (NeoMutt showed an empty mailbox). It
// returns once all are written or byeWait has passed, with a function that
// waits for the writers left (call it after the server is closed).
func (l *Local) bye() (wait func()) {
	l.connsMu.Lock()
	l.closing = true
	conns := make([]*imapserver.Conn, 0, len(l.conns))
	for c := range l.conns {
		conns = append(conns, c)
	}
	l.connsMu.Unlock()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() { c.Bye("Server shutting down") })
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	t := time.NewTimer(byeWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
	return func() { <-done }
}

// Close says BYE to the IMAP clients, stops both servers, drops their
// connections and closes the mailboxes' file.
func (l *Local) Close() error {
	l.closeOnce.Do(func() {
		l.closed.Store(true)
		waitBye := l.bye()
		l.closeErr = errors.Join(l.smtp.Close(), l.imap.Close())
		waitBye()
		// A server closed before its Serve began has not seen its
		// listener yet.
		l.smtpLn.Close()
		l.imapLn.Close()
		l.wg.Wait()
		l.closeErr = errors.Join(l.closeErr, l.boxes.close())
	})
	return l.closeErr
}

// localName returns NAME for "NAME@localhost" (any case). NAME is limited to
// characters that are safe everywhere a mailbox name goes.
func localName(addr string) (string, bool) {
	name, domain, ok := strings.Cut(strings.ToLower(addr), "@")
	if !ok || domain != "localhost" || name == "" {
		return "", false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("._+-", r)) {
			return "", false
		}
	}
	return name, true
}

// RobotPassword is the password of the robot's mailbox, random for each
// start: anybody on the machine may read the players' local mailboxes, but
// the robot's holds every signup password in its subjects.
func (l *Local) RobotPassword() string { return l.robotPassword }

// randomPassword returns 128 bits from crypto/rand, base32 without padding.
func randomPassword() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("localmail: robot password: %w", err)
	}
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b)), nil
}

// login checks NAME@localhost / NAME, and the robot's random password.
func (l *Local) login(username, password string) bool {
	name, ok := localName(username)
	if !ok {
		return false
	}
	want, got := name, strings.ToLower(password)
	if strings.ToLower(username) == l.robot {
		want, got = l.robotPassword, password
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// deliver puts a mail into the INBOX of each recipient, with the
// Return-Path and Received lines a delivering MTA adds (RFC 5321 §4.4).
func (l *Local) deliver(from string, rcpts []string, helo string, data []byte) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Return-Path: <%s>\r\n", from)
	fmt.Fprintf(&b, "Received: from %s by localhost (lyngk local mode) with ESMTP;\r\n\t%s\r\n", helo, time.Now().Format(time.RFC1123Z))
	b.Write(data)
	msg := b.Bytes()
	defer l.changes.Notify()
	for _, r := range rcpts {
		r = strings.ToLower(r)
		if err := l.boxes.ensureUser(r); err != nil {
			return err
		}
		if _, err := l.boxes.appendMail(r, "INBOX", msg, nil, time.Time{}); err != nil {
			return err
		}
	}
	l.log.Debug("local delivery", "from", from, "to", rcpts, "size", len(msg))
	return nil
}

// localSMTPSession takes mail for NAME@localhost from anybody. AUTH PLAIN
// is offered (NAME@localhost / NAME) for mail clients that insist, never
// required.
type localSMTPSession struct {
	l     *Local
	helo  string
	from  string
	rcpts []string
}

var _ smtp.AuthSession = (*localSMTPSession)(nil)

func (s *localSMTPSession) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *localSMTPSession) Auth(mech string) (sasl.Server, error) {
	if mech != sasl.Plain {
		return nil, smtp.ErrAuthUnknownMechanism
	}
	return sasl.NewPlainServer(func(identity, username, password string) error {
		if !s.l.login(username, password) || (identity != "" && identity != username) {
			return smtp.ErrAuthFailed
		}
		return nil
	}), nil
}

func (s *localSMTPSession) Mail(from string, _ *smtp.MailOptions) error {
	s.from = from
	return nil
}

func (s *localSMTPSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	if _, ok := localName(to); !ok {
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1},
			Message: "this local server only delivers to NAME@localhost"}
	}
	to = strings.ToLower(to)
	for _, r := range s.rcpts {
		if r == to {
			return nil
		}
	}
	s.rcpts = append(s.rcpts, to)
	return nil
}

func (s *localSMTPSession) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if err := s.l.deliver(s.from, s.rcpts, s.helo, data); err != nil {
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "delivery failed: " + err.Error()}
	}
	return nil
}

func (s *localSMTPSession) Reset() {
	s.from, s.rcpts = "", nil
}

func (s *localSMTPSession) Logout() error { return nil }
