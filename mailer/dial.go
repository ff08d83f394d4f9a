package mailer

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"time"
)

// TLS modes of IMAPConfig.TLS and SMTPConfig.TLS.
const (
	TLSImplicit = "implicit" // TLS from the first byte (IMAPS 993, submissions 465); the default
	TLSStartTLS = "starttls" // plain greeting, then STARTTLS (IMAP 143, submission 587)
	TLSNone     = "none"     // no encryption: loopback addresses only
)

var (
	// ErrNotLoopback is returned for a plain connection or a local listener
	// whose address is not a loopback address.
	ErrNotLoopback = errors.New("mailer: not a loopback address")
	// ErrBadConfig is returned for an unusable IMAPConfig or SMTPConfig.
	ErrBadConfig = errors.New("mailer: bad configuration")
	// ErrNoAnswer is returned when a server did not answer a command in time.
	ErrNoAnswer = errors.New("mailer: no answer from server")
)

// dialTimeout bounds the TCP connection and the TLS handshake.
const dialTimeout = 10 * time.Second

// checkTransport validates a server address and a TLS mode; proto names the
// protocol in errors.
func checkTransport(proto, addr, mode string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" || port == "" {
		return fmt.Errorf("%w: %s address %q: want host:port", ErrBadConfig, proto, addr)
	}
	switch mode {
	case "", TLSImplicit, TLSStartTLS:
		return nil
	case TLSNone:
		if !isLoopback(host) {
			return fmt.Errorf("%w: %s TLS %q refused for %q (use %q or %q)", ErrNotLoopback, proto, TLSNone, addr, TLSImplicit, TLSStartTLS)
		}
		return nil
	}
	return fmt.Errorf("%w: %s TLS mode %q: want %q, %q or %q", ErrBadConfig, proto, mode, TLSImplicit, TLSStartTLS, TLSNone)
}

// isLoopback accepts "localhost" and loopback IP addresses. It checks the
// name only; loopbackConn checks where a connection really went.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// loopbackConn refuses a connection whose peer is not on loopback, in case
// "localhost" resolves somewhere else.
func loopbackConn(conn net.Conn) error {
	ap, err := netip.ParseAddrPort(conn.RemoteAddr().String())
	if err != nil || !ap.Addr().IsLoopback() {
		return fmt.Errorf("%w: connected to %v", ErrNotLoopback, conn.RemoteAddr())
	}
	return nil
}

// dialTCP connects within dialTimeout, and checks the peer is on loopback
// when the connection is to stay unencrypted.
func dialTCP(ctx context.Context, addr, mode string) (net.Conn, error) {
	d := net.Dialer{Timeout: dialTimeout}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if mode == TLSNone {
		if err := loopbackConn(conn); err != nil {
			conn.Close()
			return nil, err
		}
	}
	return conn, nil
}

// tlsConfig verifies the server's certificate against the host name of addr
// unless insecure is set (a self-signed test server).
func tlsConfig(addr string, insecure bool) *tls.Config {
	host, _, _ := net.SplitHostPort(addr)
	return &tls.Config{ServerName: host, InsecureSkipVerify: insecure, MinVersion: tls.VersionTLS12}
}

// handshake runs the TLS handshake of an implicit-TLS connection now, so
// that a certificate problem is reported as such rather than on the first
// command.
func handshake(ctx context.Context, conn net.Conn, cfg *tls.Config) (net.Conn, error) {
	tc := tls.Client(conn, cfg)
	hctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	if err := tc.HandshakeContext(hctx); err != nil {
		conn.Close()
		return nil, fmt.Errorf("TLS handshake: %w", err)
	}
	return tc, nil
}

// guard runs fn and closes the connection (through closeFn) when fn takes
// longer than timeout: go-imap v2 sets no read deadline while it waits for
// an answer, and go-smtp's greeting waits minutes, so a silent peer would
// block forever.
func guard(timeout time.Duration, closeFn func() error, what string, fn func() error) error {
	t := time.AfterFunc(timeout, func() { closeFn() })
	err := fn()
	if !t.Stop() {
		return fmt.Errorf("%w to %s within %v", ErrNoAnswer, what, timeout)
	}
	return err
}
