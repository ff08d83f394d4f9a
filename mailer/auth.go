package mailer

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/emersion/go-sasl"
)

// This file owns how the robot proves who it is to its mail servers: a
// password (IMAP LOGIN, SMTP AUTH PLAIN) or an OAuth2 access token in one of
// the two SASL mechanisms the providers take: XOAUTH2 (Google's, which
// Microsoft 365 and Dovecot speak too) and OAUTHBEARER (RFC 7628). Where the
// token comes from is not mailer's business: a TokenSource hands a current
// one for each login.

// Login methods of IMAPConfig.Auth and SMTPConfig.Auth.
const (
	AuthPassword    = "password"    // IMAP LOGIN, SMTP AUTH PLAIN
	AuthXOAuth2     = "xoauth2"     // SASL XOAUTH2 with an OAuth2 access token
	AuthOAuthBearer = "oauthbearer" // SASL OAUTHBEARER (RFC 7628) with an OAuth2 access token
)

// ErrLogin is returned when the server refused the robot's credentials
// (as opposed to a connection that failed).
var ErrLogin = errors.New("mailer: login refused")

// TokenSource returns a current OAuth2 access token, refreshing it when it
// has expired. It is called before each login, from one goroutine per
// connection.
type TokenSource func(ctx context.Context) (string, error)

// checkAuth validates a login method and what it needs; proto names the
// protocol in errors. optional allows no login at all (SMTP without AUTH).
func checkAuth(proto, method, user, password string, tokens TokenSource, optional bool) error {
	switch method {
	case AuthPassword:
		if optional && user == "" && password == "" {
			return nil
		}
		if user == "" {
			return fmt.Errorf("%w: %s username missing", ErrBadConfig, proto)
		}
		if password == "" {
			return fmt.Errorf("%w: %s password missing", ErrBadConfig, proto)
		}
	case AuthXOAuth2, AuthOAuthBearer:
		if user == "" {
			return fmt.Errorf("%w: %s username missing (%s logs in as that user)", ErrBadConfig, proto, method)
		}
		if tokens == nil {
			return fmt.Errorf("%w: %s login %s without an OAuth2 token source", ErrBadConfig, proto, method)
		}
	default:
		return fmt.Errorf("%w: %s login %q: want %q, %q or %q", ErrBadConfig, proto, method, AuthPassword, AuthXOAuth2, AuthOAuthBearer)
	}
	return nil
}

// oauthClient is the client side of XOAUTH2 and OAUTHBEARER. On a refused
// token both mechanisms answer with a JSON challenge to which the client
// must reply (an empty line for XOAUTH2, a single 0x01 for OAUTHBEARER,
// RFC 7628 §3.2.3) before the server says NO; go-sasl's own OAUTHBEARER
// client returns an error instead, which leaves go-imap's AUTHENTICATE
// waiting for ever. The challenge is kept for the error message.
type oauthClient struct {
	mech      string
	ir        []byte
	challenge []byte
}

var _ sasl.Client = (*oauthClient)(nil)

// newOAuthClient returns the SASL client of method for user with token;
// addr (host:port) fills OAUTHBEARER's optional host and port.
func newOAuthClient(method, user, token, addr string) *oauthClient {
	if method == AuthXOAuth2 {
		// https://developers.google.com/gmail/imap/xoauth2-protocol
		return &oauthClient{mech: "XOAUTH2", ir: []byte("user=" + user + "\x01auth=Bearer " + token + "\x01\x01")}
	}
	// RFC 7628 §3.1: gs2-header with the authzid, then key=value pairs.
	ir := "n,a=" + strings.NewReplacer("=", "=3D", ",", "=2C").Replace(user) + ","
	if host, port, err := net.SplitHostPort(addr); err == nil {
		ir += "\x01host=" + host
		if n, err := strconv.Atoi(port); err == nil {
			ir += "\x01port=" + strconv.Itoa(n)
		}
	}
	ir += "\x01auth=Bearer " + token + "\x01\x01"
	return &oauthClient{mech: sasl.OAuthBearer, ir: []byte(ir)}
}

func (c *oauthClient) Start() (string, []byte, error) { return c.mech, c.ir, nil }

func (c *oauthClient) Next(challenge []byte) ([]byte, error) {
	if c.challenge != nil {
		return nil, fmt.Errorf("mailer: %s: a second challenge", c.mech)
	}
	c.challenge = challenge
	if c.mech == sasl.OAuthBearer {
		return []byte{1}, nil
	}
	return []byte{}, nil
}

// refused wraps a refused login with the server's JSON challenge, if any
// (it says why: {"status":"401","schemes":"bearer","scope":"..."}), cut to
// printable ASCII and 200 bytes.
func (c *oauthClient) refused(err error) error {
	if len(c.challenge) == 0 {
		return fmt.Errorf("%w: %s: %v", ErrLogin, c.mech, err)
	}
	var b strings.Builder
	for _, r := range string(c.challenge) {
		if b.Len() >= 200 {
			break
		}
		if r >= ' ' && r <= '~' {
			b.WriteRune(r)
		}
	}
	return fmt.Errorf("%w: %s: %v (the server said %s)", ErrLogin, c.mech, err, b.String())
}
