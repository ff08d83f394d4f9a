// Package oauth gives the robot's mail logins their OAuth2 access tokens
// (mailer speaks SASL XOAUTH2 and OAUTHBEARER with them). It holds the
// provider presets (Gmail, Microsoft 365) and the settings for any other
// issuer, obtains a refresh token once by the device authorization grant
// (RFC 8628: the operator opens a URL on any device and types a code), or
// by the authorization code grant with PKCE and a loopback redirect (RFC
// 8252 §7.3: what Google asks of command-line tools, since its device grant
// does not give the Gmail scope), and then refreshes the short-lived access
// token from it with golang.org/x/oauth2.
//
// On disk: one file, TokenFile in the data directory, mode 0600, holding
// the token as JSON ({"access_token", "token_type", "refresh_token",
// "expiry"}). It is written whole (a temporary file renamed over it) by
// Login and whenever the issuer hands out a new refresh token on a refresh
// (Microsoft rotates them). A refresh token given in the environment
// (LYNGK_OAUTH2_REFRESH_TOKEN) is used instead of the file and never
// written anywhere.
package oauth

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/endpoints"
)

// TokenFile is the name of the token's file in the data directory.
const TokenFile = "oauth2-token.json"

// httpTimeout bounds each request to the issuer.
const httpTimeout = 30 * time.Second

var (
	// ErrBadConfig is returned for unusable settings.
	ErrBadConfig = errors.New("oauth: bad configuration")
	// ErrNoToken is returned when there is no refresh token yet: the
	// operator has to run `lyngk oauth2 login` first.
	ErrNoToken = errors.New("oauth: no refresh token")
	// ErrRevoked is returned when the issuer refused the refresh token
	// (revoked, expired, password changed): log in again.
	ErrRevoked = errors.New("oauth: refresh token refused")
)

// Preset is what a provider needs beyond the operator's own client
// registration: where its issuer is and which scopes give IMAP and SMTP.
type Preset struct {
	Endpoint oauth2.Endpoint
	Scopes   []string
}

// Presets by the name of the oauth2_provider setting. Microsoft's endpoint
// depends on the tenant (Config.Tenant).
var Presets = map[string]func(tenant string) Preset{
	// https://developers.google.com/gmail/imap/xoauth2-protocol: the one
	// scope for IMAP and SMTP.
	"gmail": func(string) Preset {
		return Preset{Endpoint: endpoints.Google, Scopes: []string{"https://mail.google.com/"}}
	},
	// https://learn.microsoft.com/exchange/client-developer/legacy-protocols/how-to-authenticate-an-imap-pop-smtp-application-by-using-oauth:
	// offline_access is what yields a refresh token.
	"microsoft": func(tenant string) Preset {
		return Preset{Endpoint: endpoints.AzureAD(tenant), Scopes: []string{
			"https://outlook.office.com/IMAP.AccessAsUser.All",
			"https://outlook.office.com/SMTP.Send",
			"offline_access",
		}}
	},
}

// Config is the operator's client registration at the issuer. With a
// Provider the endpoints and scopes come from its preset; TokenURL,
// DeviceURL and Scopes, when set, override them (and are needed for any
// other issuer).
type Config struct {
	Provider     string // "gmail", "microsoft" or "" (another issuer)
	Tenant       string // Microsoft: the directory (tenant) ID or "organizations"; default "common"
	ClientID     string
	ClientSecret string // Google asks for one even for desktop clients; Microsoft's public clients have none
	TokenURL     string
	DeviceURL    string
	AuthURL      string // the authorization endpoint, for LoginBrowser
	Scopes       []string
}

// Validate reports settings no token can come from.
func (c Config) Validate() error {
	if c.Provider != "" && Presets[c.Provider] == nil {
		return fmt.Errorf("%w: oauth2_provider %q: want gmail, microsoft, or none with oauth2_token_url for another issuer", ErrBadConfig, c.Provider)
	}
	if c.ClientID == "" {
		return fmt.Errorf("%w: oauth2_client_id missing (the ID of the application registered at the issuer)", ErrBadConfig)
	}
	o := c.oauth2()
	if o.Endpoint.TokenURL == "" {
		return fmt.Errorf("%w: oauth2_token_url missing (or set oauth2_provider)", ErrBadConfig)
	}
	for _, u := range []string{o.Endpoint.TokenURL, o.Endpoint.DeviceAuthURL, o.Endpoint.AuthURL} {
		if u != "" && !strings.HasPrefix(u, "https://") && !isLoopbackHTTP(u) {
			return fmt.Errorf("%w: %q: the issuer's URLs must be https (http only to loopback)", ErrBadConfig, u)
		}
	}
	return nil
}

// isLoopbackHTTP accepts plain http to 127.0.0.1, [::1] and localhost
// only: a test issuer on this machine.
func isLoopbackHTTP(u string) bool {
	for _, p := range []string{"http://127.0.0.1:", "http://[::1]:", "http://localhost:"} {
		if strings.HasPrefix(u, p) {
			return true
		}
	}
	return false
}

func (c Config) oauth2() *oauth2.Config {
	var p Preset
	if f := Presets[c.Provider]; f != nil {
		p = f(c.Tenant)
	}
	if c.TokenURL != "" {
		p.Endpoint.TokenURL = c.TokenURL
	}
	if c.DeviceURL != "" {
		p.Endpoint.DeviceAuthURL = c.DeviceURL
	}
	if c.AuthURL != "" {
		p.Endpoint.AuthURL = c.AuthURL
	}
	if len(c.Scopes) > 0 {
		p.Scopes = c.Scopes
	}
	return &oauth2.Config{ClientID: c.ClientID, ClientSecret: c.ClientSecret, Endpoint: p.Endpoint, Scopes: p.Scopes}
}

// withClient bounds the issuer's answers in time.
func withClient(ctx context.Context) context.Context {
	return context.WithValue(ctx, oauth2.HTTPClient, &http.Client{Timeout: httpTimeout})
}

// Login obtains a refresh token by the device authorization grant (RFC
// 8628): it prints where to go and the code to type to out, waits until the
// operator has approved (or the code expired, or ctx ended) and saves the
// token to file.
func Login(ctx context.Context, c Config, file string, out io.Writer) error {
	if err := c.Validate(); err != nil {
		return err
	}
	o := c.oauth2()
	if o.Endpoint.DeviceAuthURL == "" {
		return fmt.Errorf("%w: oauth2_device_url missing: the issuer's device authorization endpoint", ErrBadConfig)
	}
	ctx = withClient(ctx)
	da, err := o.DeviceAuth(ctx)
	if err != nil {
		return fmt.Errorf("oauth: device authorization: %w", err)
	}
	if da.VerificationURIComplete != "" {
		fmt.Fprintf(out, "Open %s\n(or %s and type the code %s)\n", da.VerificationURIComplete, da.VerificationURI, da.UserCode)
	} else {
		fmt.Fprintf(out, "Open %s and type the code %s\n", da.VerificationURI, da.UserCode)
	}
	if !da.Expiry.IsZero() {
		fmt.Fprintf(out, "The code is valid until %s. Waiting for the approval...\n", da.Expiry.Format("15:04:05"))
	}
	tok, err := o.DeviceAccessToken(ctx, da)
	if err != nil {
		return fmt.Errorf("oauth: waiting for the approval: %w", err)
	}
	return keep(tok, file, out)
}

// keep saves the token of a finished login.
func keep(tok *oauth2.Token, file string, out io.Writer) error {
	if tok.RefreshToken == "" {
		return fmt.Errorf("oauth: the issuer gave no refresh token (Microsoft: the scope offline_access is needed)")
	}
	if err := save(file, tok); err != nil {
		return err
	}
	fmt.Fprintf(out, "Saved the refresh token to %s.\n", file)
	return nil
}

// LoginBrowser obtains a refresh token by the authorization code grant
// with PKCE (RFC 7636) and a loopback redirect (RFC 8252 §7.3): it listens
// on listen (host:port on loopback; port 0 for any), prints the URL to
// open in a browser on this machine (or on another, with the port
// forwarded: ssh -L PORT:127.0.0.1:PORT), waits for the issuer to send the
// browser back with the code, and exchanges it. The state parameter ties
// the answer to this login.
func LoginBrowser(ctx context.Context, c Config, file, listen string, out io.Writer) error {
	if err := c.Validate(); err != nil {
		return err
	}
	o := c.oauth2()
	if o.Endpoint.AuthURL == "" {
		return fmt.Errorf("%w: oauth2_auth_url missing: the issuer's authorization endpoint", ErrBadConfig)
	}
	host, _, err := net.SplitHostPort(listen)
	if ip, perr := netip.ParseAddr(host); err != nil || perr != nil || !ip.IsLoopback() {
		return fmt.Errorf("%w: -listen %q: want a loopback address and port, such as 127.0.0.1:8765", ErrBadConfig, listen)
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("oauth: %w", err)
	}
	defer ln.Close()
	o.RedirectURL = "http://" + ln.Addr().String() + "/"
	state, verifier := rand.Text(), oauth2.GenerateVerifier()
	codes := make(chan string, 1)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if r.URL.Path != "/" || q.Get("state") != state {
			http.Error(w, "Not the answer to this login.", http.StatusBadRequest)
			return
		}
		if e := q.Get("error"); e != "" || q.Get("code") == "" {
			http.Error(w, "The issuer refused: "+e, http.StatusForbidden)
			select {
			case codes <- "":
			default:
			}
			return
		}
		fmt.Fprintln(w, "Done: lyngk has the code. You may close this page.")
		select {
		case codes <- q.Get("code"):
		default:
		}
	})}
	go srv.Serve(ln)
	defer srv.Close()
	fmt.Fprintf(out, "Open in a browser on this machine (elsewhere: ssh -L %s:%s first):\n%s\n",
		portOf(ln.Addr()), ln.Addr(), o.AuthCodeURL(state, oauth2.AccessTypeOffline, oauth2.S256ChallengeOption(verifier),
			oauth2.SetAuthURLParam("prompt", "consent")))
	var code string
	select {
	case <-ctx.Done():
		return fmt.Errorf("oauth: waiting for the browser: %w", ctx.Err())
	case code = <-codes:
	}
	if code == "" {
		return errors.New("oauth: the issuer refused the authorization")
	}
	tok, err := o.Exchange(withClient(ctx), code, oauth2.VerifierOption(verifier))
	if err != nil {
		return fmt.Errorf("oauth: exchanging the code: %w", err)
	}
	return keep(tok, file, out)
}

func portOf(a net.Addr) string {
	_, p, _ := net.SplitHostPort(a.String())
	return p
}

// Source hands out current access tokens (mailer.TokenSource).
type Source struct {
	conf *oauth2.Config
	file string // "" when the refresh token came from the environment

	mu  sync.Mutex
	tok *oauth2.Token // nil until first needed
	env string        // refresh token from the environment
}

// NewSource returns a source that refreshes from refreshToken when it is
// set, else from the token saved in file. Nothing is read before the first
// Token.
func NewSource(c Config, file, refreshToken string) *Source {
	s := &Source{conf: c.oauth2(), env: refreshToken}
	if refreshToken == "" {
		s.file = file
	}
	return s
}

// Token returns a valid access token, refreshing it (and saving a rotated
// refresh token) when it has expired.
func (s *Source) Token(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tok == nil {
		if s.file == "" {
			s.tok = &oauth2.Token{RefreshToken: s.env}
		} else {
			tok, err := load(s.file)
			if err != nil {
				return "", err
			}
			s.tok = tok
		}
	}
	if s.tok.Valid() {
		return s.tok.AccessToken, nil
	}
	// A TokenSource built on the token at hand refreshes it once; x/oauth2
	// keeps the old refresh token when the answer carries none.
	nt, err := s.conf.TokenSource(withClient(ctx), s.tok).Token()
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && re.ErrorCode == "invalid_grant" {
			return "", fmt.Errorf("%w (%s): run lyngk oauth2 login again", ErrRevoked, re.ErrorDescription)
		}
		return "", fmt.Errorf("oauth: refresh: %w", err)
	}
	if s.file != "" && nt.RefreshToken != s.tok.RefreshToken {
		if err := save(s.file, nt); err != nil {
			return "", err
		}
	}
	s.tok = nt
	return nt.AccessToken, nil
}

// load reads the token file; a missing file or one without a refresh token
// is ErrNoToken.
func load(file string) (*oauth2.Token, error) {
	b, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w in %s: run lyngk oauth2 login first", ErrNoToken, file)
	}
	if err != nil {
		return nil, fmt.Errorf("oauth: %w", err)
	}
	var tok oauth2.Token
	if err := json.Unmarshal(b, &tok); err != nil || tok.RefreshToken == "" {
		return nil, fmt.Errorf("%w in %s (unreadable or empty): run lyngk oauth2 login again", ErrNoToken, file)
	}
	return &tok, nil
}

// save writes the token whole, mode 0600: a temporary file in the same
// directory, synced, then renamed over the old one, so that a crash leaves
// the old token or the new one, never half of either.
func save(file string, tok *oauth2.Token) error {
	b, err := json.MarshalIndent(tok, "", "  ")
	if err != nil {
		return fmt.Errorf("oauth: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return fmt.Errorf("oauth: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(file), ".oauth2-token-*")
	if err != nil {
		return fmt.Errorf("oauth: %w", err)
	}
	defer os.Remove(f.Name()) // fails harmlessly after the rename
	err = f.Chmod(0o600)
	if err == nil {
		_, err = f.Write(append(b, '\n'))
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), file)
	}
	if err != nil {
		return fmt.Errorf("oauth: saving the token: %w", err)
	}
	return nil
}
