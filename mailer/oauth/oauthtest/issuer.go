// Package oauthtest is a fake OAuth2 issuer for tests: the device
// authorization grant (RFC 8628), the authorization code grant with PKCE
// (RFC 7636), the refresh grant, and a token
// introspection endpoint (RFC 7662) such as Dovecot's oauth2 passdb asks.
// It serves on a loopback listener the test gives it.
package oauthtest

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// Issuer is the fake issuer. Its paths: /device, /token, /introspect;
// /verify and /authorize are the pages the operator would open (Approve
// and Authorize stand for them).
type Issuer struct {
	// User is the username the tokens are for (introspection's
	// "username").
	User string
	// ClientID is the only client the issuer knows.
	ClientID string
	// Lifetime is the access tokens' expires_in (default 1 hour).
	Lifetime time.Duration
	// Rotate hands out a new refresh token on each refresh.
	Rotate bool

	URL string // http://127.0.0.1:PORT

	srv *http.Server
	mu  sync.Mutex
	// state
	devices   map[string]*device  // by device code
	codes     map[string]authCode // authorization codes
	refresh   map[string]bool     // valid refresh tokens
	access    map[string]bool     // valid access tokens
	refreshes int
	intro     int
}

type authCode struct{ challenge, redirect string }

type device struct {
	userCode string
	approved bool
}

// Start serves the issuer on ln until Close.
func Start(ln net.Listener, user, clientID string) *Issuer {
	iss := &Issuer{
		User: user, ClientID: clientID, Lifetime: time.Hour,
		URL:     "http://" + ln.Addr().String(),
		devices: map[string]*device{}, refresh: map[string]bool{}, access: map[string]bool{},
		codes: map[string]authCode{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /device", iss.device)
	mux.HandleFunc("POST /token", iss.token)
	mux.HandleFunc("POST /introspect", iss.introspect)
	iss.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go iss.srv.Serve(ln)
	return iss
}

// Close stops the issuer.
func (iss *Issuer) Close() { iss.srv.Close() }

// Approve is the operator typing userCode on the verification page.
func (iss *Issuer) Approve(userCode string) bool {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	for _, d := range iss.devices {
		if d.userCode == userCode {
			d.approved = true
			return true
		}
	}
	return false
}

// Authorize is the operator approving on the page of authURL (the
// issuer's /authorize with the client's parameters): it returns where the
// browser is sent back, the redirect_uri with the code and the state.
func (iss *Issuer) Authorize(authURL string) (string, error) {
	u, err := url.Parse(authURL)
	if err != nil {
		return "", err
	}
	q := u.Query()
	if u.Path != "/authorize" || q.Get("client_id") != iss.ClientID || q.Get("response_type") != "code" ||
		q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("state") == "" ||
		q.Get("access_type") != "offline" {
		return "", fmt.Errorf("oauthtest: not an authorization request with PKCE and a state: %s", authURL)
	}
	iss.mu.Lock()
	code := "c-" + rand.Text()
	iss.codes[code] = authCode{challenge: q.Get("code_challenge"), redirect: q.Get("redirect_uri")}
	iss.mu.Unlock()
	back, err := url.Parse(q.Get("redirect_uri"))
	if err != nil {
		return "", err
	}
	back.RawQuery = url.Values{"code": {code}, "state": {q.Get("state")}}.Encode()
	return back.String(), nil
}

// NewRefreshToken makes a valid refresh token, as a finished login would.
func (iss *Issuer) NewRefreshToken() string {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	t := "r-" + rand.Text()
	iss.refresh[t] = true
	return t
}

// Revoke makes every refresh and access token invalid.
func (iss *Issuer) Revoke() {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	iss.refresh, iss.access = map[string]bool{}, map[string]bool{}
}

// Refreshes is the number of refresh grants answered with a token.
func (iss *Issuer) Refreshes() int {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	return iss.refreshes
}

// Introspections is the number of introspection requests.
func (iss *Issuer) Introspections() int {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	return iss.intro
}

func reply(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func oauthErr(w http.ResponseWriter, code, desc string) {
	reply(w, http.StatusBadRequest, map[string]string{"error": code, "error_description": desc})
}

func (iss *Issuer) device(w http.ResponseWriter, r *http.Request) {
	if r.FormValue("client_id") != iss.ClientID {
		oauthErr(w, "invalid_client", "unknown client")
		return
	}
	iss.mu.Lock()
	dc := rand.Text()
	uc := fmt.Sprintf("%s-%s", rand.Text()[:4], rand.Text()[:4])
	iss.devices[dc] = &device{userCode: uc}
	iss.mu.Unlock()
	reply(w, http.StatusOK, map[string]any{
		"device_code": dc, "user_code": uc, "verification_uri": iss.URL + "/verify",
		"expires_in": 600, "interval": 1,
	})
}

// issue makes an access token (and a refresh token when refresh is "");
// iss.mu is held.
func (iss *Issuer) issue(w http.ResponseWriter, refresh string) {
	at := "a-" + rand.Text()
	iss.access[at] = true
	body := map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": int(iss.Lifetime / time.Second)}
	if refresh == "" || iss.Rotate {
		delete(iss.refresh, refresh)
		rt := "r-" + rand.Text()
		iss.refresh[rt] = true
		body["refresh_token"] = rt
	}
	reply(w, http.StatusOK, body)
}

func (iss *Issuer) token(w http.ResponseWriter, r *http.Request) {
	id, _, ok := r.BasicAuth()
	if !ok {
		id = r.FormValue("client_id")
	}
	if id != iss.ClientID {
		oauthErr(w, "invalid_client", "unknown client")
		return
	}
	iss.mu.Lock()
	defer iss.mu.Unlock()
	switch r.FormValue("grant_type") {
	case "urn:ietf:params:oauth:grant-type:device_code":
		d := iss.devices[r.FormValue("device_code")]
		switch {
		case d == nil:
			oauthErr(w, "expired_token", "unknown device code")
		case !d.approved:
			oauthErr(w, "authorization_pending", "waiting for the user")
		default:
			delete(iss.devices, r.FormValue("device_code"))
			iss.issue(w, "")
		}
	case "authorization_code":
		c, ok := iss.codes[r.FormValue("code")]
		sum := sha256.Sum256([]byte(r.FormValue("code_verifier")))
		if !ok || c.redirect != r.FormValue("redirect_uri") || base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge {
			oauthErr(w, "invalid_grant", "unknown code, or wrong redirect_uri or code_verifier")
			return
		}
		delete(iss.codes, r.FormValue("code"))
		iss.issue(w, "")
	case "refresh_token":
		rt := r.FormValue("refresh_token")
		if !iss.refresh[rt] {
			oauthErr(w, "invalid_grant", "refresh token revoked")
			return
		}
		iss.refreshes++
		iss.issue(w, rt)
	default:
		oauthErr(w, "unsupported_grant_type", "")
	}
}

// introspect answers as RFC 7662 §2.2 says, with "username" for Dovecot's
// username_attribute.
func (iss *Issuer) introspect(w http.ResponseWriter, r *http.Request) {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	iss.intro++
	if !iss.access[r.FormValue("token")] {
		reply(w, http.StatusOK, map[string]any{"active": false})
		return
	}
	reply(w, http.StatusOK, map[string]any{"active": true, "username": iss.User, "scope": "mail"})
}
