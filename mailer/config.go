package mailer

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"time"
)

// This file owns the settings of the mail connections: their defaults
// (WithDefaults) and their validation (Validate). The daemon's configuration
// file only maps its keys onto these fields, so there is one place that says
// what an unset value means.

// TLS modes of IMAPConfig.TLS and SMTPConfig.TLS.
const (
	TLSImplicit = "implicit" // TLS from the first byte (IMAPS 993, submissions 465)
	TLSStartTLS = "starttls" // plain greeting, then STARTTLS (IMAP 143, submission 587)
	TLSNone     = "none"     // no encryption: only when asked for, loopback addresses only
)

var (
	// ErrNotLoopback is returned for a plain connection or a local listener
	// whose address is not a loopback address.
	ErrNotLoopback = errors.New("mailer: not a loopback address")
	// ErrBadConfig is returned for an unusable IMAPConfig or SMTPConfig.
	ErrBadConfig = errors.New("mailer: bad configuration")
)

// Defaults of the settings left at their zero value.
const (
	DefaultMailbox        = "INBOX"
	DefaultProcessed      = "Processed"
	DefaultRejected       = "Rejected"
	DefaultPollInterval   = time.Minute
	DefaultCommandTimeout = time.Minute
	DefaultHeloName       = "localhost"
)

// DefaultTLS is the TLS mode of a server address whose mode is not set: the
// port says it. 993 (IMAPS) and 465 (submissions, RFC 8314) speak TLS from
// the first byte; every other port (143, 587, 25, ...) is upgraded with
// STARTTLS. Plain text is never a default: it must be asked for.
func DefaultTLS(addr string) string {
	_, port, _ := net.SplitHostPort(addr)
	switch port {
	case "993", "465":
		return TLSImplicit
	}
	return TLSStartTLS
}

// IMAPConfig says where the robot's mail is read.
type IMAPConfig struct {
	Addr     string // host:port
	Username string
	Password string
	// Auth is AuthPassword (LOGIN with Password, the default),
	// AuthXOAuth2 or AuthOAuthBearer (a token of Tokens).
	Auth   string
	Tokens TokenSource
	// TLS is TLSImplicit, TLSStartTLS or TLSNone (loopback addresses only);
	// unset, DefaultTLS of Addr.
	TLS string
	// CAFile, if set, is a PEM file of the certificate authorities that
	// the server's certificate must chain to (a private CA), instead of the
	// system's pool. It is read for each connection, so a renewed file
	// needs no restart.
	CAFile string
	// Mailbox is read (default "INBOX"); handled mail is moved to Processed
	// (default "Processed") or Rejected (default "Rejected"), which are
	// created when missing.
	Mailbox, Processed, Rejected string
	// PollInterval is how often the mailbox is searched when the server has
	// no IDLE, and the longest IDLE before a check (default 1 minute).
	PollInterval time.Duration
	// InsecureSkipVerify accepts any server certificate (self-signed test
	// servers only).
	InsecureSkipVerify bool
	// CommandTimeout is the longest wait for the answer to one command
	// before the connection is dropped (default 1 minute).
	CommandTimeout time.Duration
}

// WithDefaults returns cfg with every unset setting at its default.
func (cfg IMAPConfig) WithDefaults() IMAPConfig {
	if cfg.TLS == "" {
		cfg.TLS = DefaultTLS(cfg.Addr)
	}
	if cfg.Auth == "" {
		cfg.Auth = AuthPassword
	}
	if cfg.Mailbox == "" {
		cfg.Mailbox = DefaultMailbox
	}
	if cfg.Processed == "" {
		cfg.Processed = DefaultProcessed
	}
	if cfg.Rejected == "" {
		cfg.Rejected = DefaultRejected
	}
	if cfg.PollInterval == 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	if cfg.CommandTimeout == 0 {
		cfg.CommandTimeout = DefaultCommandTimeout
	}
	return cfg
}

// Validate reports a configuration Run would refuse.
func (cfg IMAPConfig) Validate() error {
	cfg = cfg.WithDefaults()
	if err := checkTransport("IMAP", cfg.Addr, cfg.TLS); err != nil {
		return err
	}
	if err := checkAuth("IMAP", cfg.Auth, cfg.Username, cfg.Password, cfg.Tokens, false); err != nil {
		return err
	}
	if cfg.PollInterval < 0 || cfg.CommandTimeout < 0 {
		return fmt.Errorf("%w: IMAP negative interval", ErrBadConfig)
	}
	_, err := cfg.tlsConfig()
	return err
}

func (cfg IMAPConfig) tlsConfig() (*tls.Config, error) {
	return tlsConfig("IMAP", cfg.Addr, cfg.CAFile, cfg.InsecureSkipVerify)
}

// SMTPConfig says where outgoing mail is submitted.
type SMTPConfig struct {
	Addr     string // host:port
	Username string // AUTH PLAIN when set
	Password string
	// Auth is AuthPassword (AUTH PLAIN when Username is set, the
	// default), AuthXOAuth2 or AuthOAuthBearer (a token of Tokens).
	Auth   string
	Tokens TokenSource
	// TLS is TLSImplicit, TLSStartTLS or TLSNone (loopback addresses only);
	// unset, DefaultTLS of Addr.
	TLS string
	// CAFile is as IMAPConfig.CAFile.
	CAFile string
	// InsecureSkipVerify accepts any server certificate (self-signed test
	// servers only).
	InsecureSkipVerify bool
	// HeloName is the name given in EHLO (default "localhost").
	HeloName string
}

// WithDefaults returns cfg with every unset setting at its default.
func (cfg SMTPConfig) WithDefaults() SMTPConfig {
	if cfg.TLS == "" {
		cfg.TLS = DefaultTLS(cfg.Addr)
	}
	if cfg.HeloName == "" {
		cfg.HeloName = DefaultHeloName
	}
	if cfg.Auth == "" {
		cfg.Auth = AuthPassword
	}
	return cfg
}

// Validate reports a configuration Run would refuse.
func (cfg SMTPConfig) Validate() error {
	cfg = cfg.WithDefaults()
	if err := checkTransport("SMTP", cfg.Addr, cfg.TLS); err != nil {
		return err
	}
	if cfg.Auth == AuthPassword && (cfg.Username == "") != (cfg.Password == "") {
		return fmt.Errorf("%w: SMTP username and password go together (AUTH PLAIN), or neither is set", ErrBadConfig)
	}
	if err := checkAuth("SMTP", cfg.Auth, cfg.Username, cfg.Password, cfg.Tokens, true); err != nil {
		return err
	}
	_, err := cfg.tlsConfig()
	return err
}

func (cfg SMTPConfig) tlsConfig() (*tls.Config, error) {
	return tlsConfig("SMTP", cfg.Addr, cfg.CAFile, cfg.InsecureSkipVerify)
}

// checkTransport validates a server address and a TLS mode; proto names the
// protocol in errors.
func checkTransport(proto, addr, mode string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" || port == "" {
		return fmt.Errorf("%w: %s address %q: want host:port", ErrBadConfig, proto, addr)
	}
	switch mode {
	case TLSImplicit, TLSStartTLS:
		return nil
	case TLSNone:
		if !IsLoopback(host) {
			return fmt.Errorf("%w: %s TLS %q refused for %q (use %q or %q)", ErrNotLoopback, proto, TLSNone, addr, TLSImplicit, TLSStartTLS)
		}
		return nil
	}
	return fmt.Errorf("%w: %s TLS mode %q: want %q, %q or %q", ErrBadConfig, proto, mode, TLSImplicit, TLSStartTLS, TLSNone)
}

// IsLoopback accepts "localhost" and loopback IP addresses. It checks the
// name only; loopbackConn checks where a connection really went.
func IsLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// tlsConfig verifies the server's certificate against the host name of addr
// and against the CAs of caFile, or the system's pool when caFile is empty,
// unless insecure is set (a self-signed test server).
func tlsConfig(proto, addr, caFile string, insecure bool) (*tls.Config, error) {
	host, _, _ := net.SplitHostPort(addr)
	cfg := &tls.Config{ServerName: host, InsecureSkipVerify: insecure, MinVersion: tls.VersionTLS12}
	if caFile == "" {
		return cfg, nil
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("%w: %s CA file: %v", ErrBadConfig, proto, err)
	}
	cfg.RootCAs = x509.NewCertPool()
	if !cfg.RootCAs.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%w: %s CA file %s: no PEM certificate in it", ErrBadConfig, proto, caFile)
	}
	return cfg, nil
}
