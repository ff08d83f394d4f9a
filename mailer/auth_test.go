package mailer

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"
	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// tokenServer is the server side of XOAUTH2 and OAUTHBEARER for the
// in-process servers: it accepts the one initial response it expects,
// and answers any other with the JSON challenge, waits for the client's
// dummy reply, then fails, as Gmail and Dovecot do.
type tokenServer struct {
	mech, want string
	login      func() error // on success
	seen       *[]string    // initial responses received

	challenged bool
}

var errBadToken = errors.New("bad token")

func (s *tokenServer) Next(resp []byte) ([]byte, bool, error) {
	switch {
	case s.challenged:
		if (s.mech == "XOAUTH2" && len(resp) != 0) || (s.mech == sasl.OAuthBearer && string(resp) != "\x01") {
			return nil, false, errors.New("wrong reply to the error challenge")
		}
		return nil, false, errBadToken
	case resp == nil:
		return nil, false, nil // no SASL-IR: ask for the initial response
	}
	*s.seen = append(*s.seen, string(resp))
	if string(resp) == s.want {
		return nil, true, s.login()
	}
	s.challenged = true
	return []byte(`{"status":"401","schemes":"bearer","scope":"https://mail.google.com/"}`), false, nil
}

// wantIR is the initial response of each method for user "robot" with
// token "tok" to a server at 127.0.0.1:port.
func wantIR(method, port string) string {
	if method == AuthXOAuth2 {
		return "user=robot\x01auth=Bearer tok\x01\x01"
	}
	return "n,a=robot,\x01host=127.0.0.1\x01port=" + port + "\x01auth=Bearer tok\x01\x01"
}

// saslIMAPSession adds XOAUTH2 and OAUTHBEARER to imapmemserver's session.
type saslIMAPSession struct {
	imapserver.SessionIMAP4rev2
	want func(mech string) string
	seen *[]string
}

func (s saslIMAPSession) AuthenticateMechanisms() []string {
	return []string{"XOAUTH2", sasl.OAuthBearer}
}

func (s saslIMAPSession) Authenticate(mech string) (sasl.Server, error) {
	return &tokenServer{mech: mech, want: s.want(mech), seen: s.seen,
		login: func() error { return s.Login("robot", "secret") }}, nil
}

func startSASLIMAP(t *testing.T, caps imap.CapSet) (addr string, seen *[]string) {
	t.Helper()
	mem := imapmemserver.New()
	user := imapmemserver.NewUser("robot", "secret")
	user.Create("INBOX", nil)
	mem.AddUser(user)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	var mu sync.Mutex
	seen = new([]string)
	srv := imapserver.New(&imapserver.Options{
		NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			mu.Lock()
			defer mu.Unlock()
			return saslIMAPSession{
				SessionIMAP4rev2: mem.NewSession().(imapserver.SessionIMAP4rev2),
				want: func(mech string) string {
					if mech == "XOAUTH2" {
						return wantIR(AuthXOAuth2, port)
					}
					return wantIR(AuthOAuthBearer, port)
				},
				seen: seen,
			}, nil, nil
		},
		Caps:         caps,
		InsecureAuth: true,
		Logger:       newTestLogger(t),
	})
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String(), seen
}

func staticToken(tok string) TokenSource {
	return func(context.Context) (string, error) { return tok, nil }
}

// TestIMAPOAuth: CheckIMAP (the poller's own login) with each mechanism,
// with and without SASL-IR: the exact initial response; a refused token is
// ErrLogin with the server's JSON reason, answered properly (no hang); a
// failing token source is reported before any AUTHENTICATE.
func TestIMAPOAuth(t *testing.T) {
	for _, sasIR := range []bool{true, false} {
		caps := imap.CapSet{imap.CapIMAP4rev1: {}}
		if sasIR {
			caps[imap.CapSASLIR] = struct{}{}
		}
		addr, seen := startSASLIMAP(t, caps)
		_, port, _ := net.SplitHostPort(addr)
		for _, method := range []string{AuthXOAuth2, AuthOAuthBearer} {
			cfg := IMAPConfig{Addr: addr, TLS: TLSNone, Username: "robot", Auth: method, Tokens: staticToken("tok"), CommandTimeout: 5 * time.Second}
			*seen = nil
			if err := CheckIMAP(context.Background(), cfg); err != nil {
				t.Fatalf("SASL-IR %v, %s: %v", sasIR, method, err)
			}
			if len(*seen) != 1 || (*seen)[0] != wantIR(method, port) {
				t.Errorf("SASL-IR %v, %s: initial responses %q, want %q", sasIR, method, *seen, wantIR(method, port))
			}
			cfg.Tokens = staticToken("expired")
			err := CheckIMAP(context.Background(), cfg)
			if !errors.Is(err, ErrLogin) || !strings.Contains(err.Error(), `the server said {"status":"401"`) {
				t.Errorf("SASL-IR %v, %s, bad token: %v, want ErrLogin with the server's reason", sasIR, method, err)
			}
		}
	}
	addr, seen := startSASLIMAP(t, imap.CapSet{imap.CapIMAP4rev1: {}})
	cfg := IMAPConfig{Addr: addr, TLS: TLSNone, Username: "robot", Auth: AuthXOAuth2, CommandTimeout: 5 * time.Second,
		Tokens: func(context.Context) (string, error) { return "", errors.New("issuer down") }}
	if err := CheckIMAP(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "access token: issuer down") || len(*seen) != 0 {
		t.Errorf("token source failing: %v (sent %q)", err, *seen)
	}
}

// oauthSMTPBackend is a go-smtp backend taking XOAUTH2 and OAUTHBEARER
// and recording what was delivered.
type oauthSMTPBackend struct {
	mechs []string
	port  string
	mu    sync.Mutex
	seen  []string
	got   []string
}

func (b *oauthSMTPBackend) NewSession(*smtp.Conn) (smtp.Session, error) {
	return &oauthSMTPSession{b: b}, nil
}

type oauthSMTPSession struct {
	b      *oauthSMTPBackend
	authed bool
}

func (s *oauthSMTPSession) AuthMechanisms() []string { return s.b.mechs }

func (s *oauthSMTPSession) Auth(mech string) (sasl.Server, error) {
	method := AuthXOAuth2
	if mech == sasl.OAuthBearer {
		method = AuthOAuthBearer
	}
	return &tokenServer{mech: mech, want: wantIR(method, s.b.port), seen: &s.b.seen,
		login: func() error { s.authed = true; return nil }}, nil
}

func (s *oauthSMTPSession) Mail(string, *smtp.MailOptions) error {
	if !s.authed {
		return smtp.ErrAuthRequired
	}
	return nil
}
func (s *oauthSMTPSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.b.mu.Lock()
	s.b.got = append(s.b.got, to)
	s.b.mu.Unlock()
	return nil
}
func (s *oauthSMTPSession) Data(r io.Reader) error { _, err := io.Copy(io.Discard, r); return err }
func (s *oauthSMTPSession) Reset()                 {}
func (s *oauthSMTPSession) Logout() error          { return nil }

// TestSMTPOAuth: the sender submits after XOAUTH2 or OAUTHBEARER with the
// exact initial response; a refused token is ErrLogin with the server's
// reason and nothing is sent; a server without the mechanism is named.
func TestSMTPOAuth(t *testing.T) {
	for _, method := range []string{AuthXOAuth2, AuthOAuthBearer} {
		b := &oauthSMTPBackend{mechs: []string{"XOAUTH2", sasl.OAuthBearer}}
		srv := smtp.NewServer(b)
		srv.Domain = "localhost"
		srv.AllowInsecureAuth = true
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		_, b.port, _ = net.SplitHostPort(ln.Addr().String())
		go srv.Serve(ln)
		t.Cleanup(func() { srv.Close() })
		cfg := SMTPConfig{Addr: ln.Addr().String(), TLS: TLSNone, Username: "robot", Auth: method, Tokens: staticToken("tok")}

		q := newFakeQueue(&eventLog{})
		q.add("hello", "alice@example.org")
		NewSender(cfg, q, nil).round(context.Background())
		if len(b.got) != 1 || b.got[0] != "alice@example.org" {
			t.Errorf("%s: delivered to %q, want alice", method, b.got)
		}
		if len(b.seen) != 1 || b.seen[0] != wantIR(method, b.port) {
			t.Errorf("%s: initial responses %q, want %q", method, b.seen, wantIR(method, b.port))
		}

		cfg.Tokens = staticToken("expired")
		err = CheckSMTP(context.Background(), cfg)
		if !errors.Is(err, ErrLogin) || !strings.Contains(err.Error(), `the server said {"status":"401"`) {
			t.Errorf("%s, bad token: %v, want ErrLogin with the server's reason", method, err)
		}
		b.mechs = []string{sasl.Plain}
		cfg.Tokens = staticToken("tok")
		if err := CheckSMTP(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "does not offer AUTH") {
			t.Errorf("%s, server without it: %v", method, err)
		}
	}
}

func TestAuthConfig(t *testing.T) {
	tok := staticToken("t")
	for _, tc := range []struct {
		imap IMAPConfig
		want string
	}{
		{IMAPConfig{Addr: "h:993", Username: "u", Password: "p"}, ""},
		{IMAPConfig{Addr: "h:993", Username: "u", Auth: AuthXOAuth2, Tokens: tok}, ""},
		{IMAPConfig{Addr: "h:993", Username: "u", Auth: AuthOAuthBearer, Tokens: tok}, ""},
		{IMAPConfig{Addr: "h:993", Username: "u"}, "IMAP password missing"},
		{IMAPConfig{Addr: "h:993", Auth: AuthXOAuth2, Tokens: tok}, "IMAP username missing"},
		{IMAPConfig{Addr: "h:993", Username: "u", Auth: AuthXOAuth2}, "without an OAuth2 token source"},
		{IMAPConfig{Addr: "h:993", Username: "u", Auth: "cram-md5"}, `IMAP login "cram-md5"`},
	} {
		err := tc.imap.Validate()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: %v, want %q", tc.imap, err, tc.want)
		}
		s := SMTPConfig{Addr: tc.imap.Addr, Username: tc.imap.Username, Password: tc.imap.Password, Auth: tc.imap.Auth, Tokens: tc.imap.Tokens}
		err = s.Validate()
		want := strings.ReplaceAll(tc.want, "IMAP", "SMTP")
		if want == "SMTP password missing" {
			want = "go together"
		}
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("SMTP %+v: %v, want %q", s, err, want)
		}
	}
	// SMTP without any login stays allowed (a relay that trusts the host).
	if err := (SMTPConfig{Addr: "h:25"}).Validate(); err != nil {
		t.Error(err)
	}
}
