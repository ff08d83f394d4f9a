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

// ErrNoAnswer is returned when a server did not answer a command in time.
var ErrNoAnswer = errors.New("mailer: no answer from server")

// dialTimeout bounds the TCP connection and the TLS handshake.
const dialTimeout = 10 * time.Second

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
