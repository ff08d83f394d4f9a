package web_test

import (
	"bytes"
	"context"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/web"
	"lyngk.example/lyngk/store"
)

// mover is the daemon's part for the tests: the engine's TokenGame and
// PlayToken in store transactions; the mails of each move are kept.
type mover struct {
	s     *site
	mu    sync.Mutex
	mails [][]engine.Mail
}

func (m *mover) TokenGame(tok string) (*engine.TokenView, error) {
	var v *engine.TokenView
	err := m.s.db.View(func(tx *store.Tx) error {
		var err error
		v, err = m.s.e.TokenGame(tx, tok)
		return err
	})
	return v, err
}

// PlayToken rolls back a refused move (its error), as the daemon does.
func (m *mover) PlayToken(tok, move string) (*engine.TokenView, int, error) {
	var v *engine.TokenView
	var out []engine.Mail
	err := m.s.d.Update(context.Background(), "web move", func(tx *store.Tx) error {
		var err error
		v, out, err = m.s.e.PlayToken(tx, tok, move, m.s.now)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	m.mu.Lock()
	m.mails = append(m.mails, out)
	m.mu.Unlock()
	return v, len(out), nil
}

// playSite is the site of TestPaths with its games and a Mover; logs are
// kept, to look for tokens in them.
func playSite(t *testing.T) (*site, *mover, *bytes.Buffer) {
	t.Helper()
	s := newSite(t, true)
	s.games()
	m := &mover{s: s}
	var logs bytes.Buffer
	h, err := web.New(web.Config{Store: s.d, Engine: s.e, Public: true, Observe: s.obs.add, Mover: m,
		Log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	s.h = h
	return s, m, &logs
}

// boardToken is the token of the board mail of board 101 that show mails
// to name (a player): the link in it is /play/TOKEN.
func (s *site) boardToken(name string) string {
	s.t.Helper()
	out := s.cmd(name, "lyngk show 101")
	if len(out) != 1 {
		s.t.Fatalf("show 101 for %s: %+v", name, out)
	}
	local, _, _ := strings.Cut(out[0].MessageID, "@")
	tok, ok := strings.CutPrefix(local, "lyngk.")
	if !ok {
		s.t.Fatalf("show 101 for %s: no token in %q", name, out[0].MessageID)
	}
	return tok
}

// post sends the form move to /play/tok as a browser on the page does.
func (s *site) post(tok string, form url.Values, header map[string]string) (*http.Response, string) {
	s.t.Helper()
	req := httptest.NewRequest("POST", "/play/"+tok, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://example.com")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for k, v := range header {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	res := rec.Result()
	body, _ := io.ReadAll(res.Body)
	return res, string(body)
}

func (s *site) state() string {
	s.t.Helper()
	var b strings.Builder
	err := s.db.View(func(tx *store.Tx) error {
		for _, bucket := range []string{store.BucketGames, store.BucketUsers} {
			if err := tx.ForEach(bucket, func(k string, v []byte) error {
				b.WriteString(bucket + "/" + k + "=" + string(v) + "\n")
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		s.t.Fatal(err)
	}
	return b.String()
}

// pageText is the text of an HTML page's refusal or message, unescaped.
func pageText(body string) string { return html.UnescapeString(body) }

// TestPlayPage: the page of a player's token shows the board, a circle
// to click for each stack, every legal move in the select and for the
// script, and is private (not cached, framed, or named in a Referer).
func TestPlayPage(t *testing.T) {
	s, _, logs := playSite(t)
	tok := s.boardToken("alice")
	res, body := s.get("GET", "/play/"+tok)
	if res.StatusCode != 200 {
		t.Fatalf("GET /play/TOKEN: %d\n%s", res.StatusCode, body)
	}
	for k, want := range map[string]string{"Cache-Control": "no-store", "Referrer-Policy": "no-referrer",
		"X-Frame-Options": "DENY", "Content-Type": "text/html; charset=utf-8"} {
		if got := res.Header.Get(k); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
	var legal []string
	err := s.db.View(func(tx *store.Tx) error {
		d, err := s.e.ReadGame(tx, 101)
		if err != nil {
			return err
		}
		pos, err := d.Position(-1)
		legal = pos.Legal()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(body, "<option>"); n != len(legal) || n == 0 {
		t.Errorf("the select lists %d moves, want %d", n, len(legal))
	}
	for _, m := range legal[:5] {
		if !strings.Contains(body, "<option>"+m+"</option>") || !strings.Contains(body, `&#34;m&#34;:&#34;`+m+`&#34;`) {
			t.Errorf("legal move %s missing from the select or the script's list", m)
		}
	}
	if n := strings.Count(body, "<circle data-p="); n != 41 {
		t.Errorf("%d stacks to click, want 41 (43 points, two left by the two moves)", n)
	}
	if strings.Contains(body, tok) {
		t.Errorf("the page repeats its token")
	}
	if !strings.Contains(body, "<title>LYNGK · Board 101, move 2: It is your turn, alice. · PBeM Server</title>") {
		t.Errorf("title: %s", regexp.MustCompile(`<title>.*</title>`).FindString(body))
	}
	checkGolden(t, "play", body)
	// bob's page: not his turn, and it says so; the text field
	// (resign, propose) but no "Send move", no list of moves, no script.
	res, body = s.get("GET", "/play/"+s.boardToken("bob"))
	if res.StatusCode != 200 || !strings.Contains(body, "It is alice&#39;s turn, not yours: you get a mail when alice has moved.") ||
		strings.Contains(body, "<select") || strings.Contains(body, "Send move") || strings.Contains(body, "<circle") ||
		strings.Contains(body, "<script>") || !strings.Contains(body, `name="move"`) {
		t.Errorf("bob's page: %d\n%s", res.StatusCode, body)
	}
	if strings.Contains(logs.String(), tok) || strings.Contains(strings.Join(s.obs.all(), " "), tok) {
		t.Errorf("a token reached the log or the metrics")
	}
}

// TestPlayMove: a POST moves as a reply by mail does: the board mails to
// both players, the new position on the page; the token is then spent, on
// the web (410, the stale-token text of the mail) and by mail.
func TestPlayMove(t *testing.T) {
	s, m, logs := playSite(t)
	tok := s.boardToken("alice")
	var move string
	err := s.db.View(func(tx *store.Tx) error {
		d, err := s.e.ReadGame(tx, 101)
		if err != nil {
			return err
		}
		pos, err := d.Position(-1)
		move = pos.Legal()[3]
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	res, body := s.post(tok, url.Values{"move": {move}}, nil)
	if res.StatusCode != 200 || !strings.Contains(body, "Your move "+move+" was made.") || !strings.Contains(body, "(2 mails)") {
		t.Fatalf("POST %s: %d\n%s", move, res.StatusCode, body)
	}
	if len(m.mails) != 1 || len(m.mails[0]) != 2 || m.mails[0][0].To[0] != "alice@players.example" ||
		m.mails[0][1].To[0] != "bob@players.example" || m.mails[0][0].Subject != "Lyngk Board 101 bob" {
		t.Fatalf("mails: %+v", m.mails)
	}
	if !strings.Contains(body, "<title>LYNGK · Board 101, move 3: It is bob&#39;s turn. · PBeM Server</title>") ||
		strings.Contains(body, "<form") || strings.Contains(body, "<circle") {
		t.Errorf("the page after the move: want the new position, without forms:\n%s", body)
	}
	checkGolden(t, "play-done", body)

	before := s.state()
	// The spent link shows the game as it is now, says why it no longer
	// moves, and links to the game's page (it was a page headed
	// "410" with the error mail's words).
	res, body = s.post(tok, url.Values{"move": {move}}, nil)
	spent := "This link is from an older board mail of board 101: the game has moved on since. This is the game as it is now."
	if res.StatusCode != http.StatusGone || !strings.Contains(pageText(body), spent) {
		t.Errorf("second POST with the token: %d\n%s", res.StatusCode, body)
	}
	res, body = s.get("GET", "/play/"+tok)
	if res.StatusCode != http.StatusGone || !strings.Contains(pageText(body), spent) || !strings.Contains(body, `<a href="/game/101" id="gamelink">`) ||
		!strings.Contains(body, "<title>LYNGK · Board 101, move 3: It is bob&#39;s turn. · PBeM Server</title>") || strings.Contains(body, "<form") ||
		strings.Contains(body, ">410<") || strings.Contains(body, "reply to it") {
		t.Errorf("GET of a spent token: %d, want 410 with the game now:\n%s", res.StatusCode, body)
	}
	checkGolden(t, "play-spent", body)
	if after := s.state(); after != before || len(m.mails) != 1 {
		t.Errorf("the spent token changed the game:\n%s", after)
	}
	if strings.Contains(logs.String(), tok) {
		t.Errorf("the token reached the log:\n%s", logs.String())
	}
}

// TestPlayRefused: a forged token, a refused move, a cross-site POST, a
// body too large: each gets its answer and changes nothing.
func TestPlayRefused(t *testing.T) {
	s, m, _ := playSite(t)
	tok := s.boardToken("alice")
	before := s.state()
	forged := strings.Repeat("q", 32)
	for _, method := range []string{"GET", "POST"} {
		var res *http.Response
		var body string
		if method == "GET" {
			res, body = s.get("GET", "/play/"+forged)
		} else {
			res, body = s.post(forged, url.Values{"move": {"e4-e5"}}, nil)
		}
		if res.StatusCode != 404 || !strings.Contains(pageText(body), "Your reply does not answer a board mail of this server") {
			t.Errorf("%s forged token: %d\n%s", method, res.StatusCode, body)
		}
	}
	tests := []struct {
		name   string
		form   url.Values
		header map[string]string
		status int
		text   string
	}{
		{"illegal", url.Values{"move": {"a1-a1"}}, nil, 422, ""},
		{"notation", url.Values{"move": {"zz"}}, nil, 422, "zz"},
		{"empty", url.Values{"move": {""}}, nil, 422, "I found no command"},
		{"cross-site", url.Values{"move": {"resign"}}, map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "http://evil.example"}, 403, "another site"},
		{"other origin", url.Values{"move": {"resign"}}, map[string]string{"Sec-Fetch-Site": "", "Origin": "http://evil.example"}, 403, "another site"},
		{"too big", url.Values{"move": {"resign"}, "pad": {strings.Repeat("x", 5000)}}, nil, 413, "too large"},
	}
	for _, tc := range tests {
		res, body := s.post(tok, tc.form, tc.header)
		if res.StatusCode != tc.status || !strings.Contains(pageText(body), tc.text) {
			t.Errorf("%s: %d, want %d with %q\n%s", tc.name, res.StatusCode, tc.status, tc.text, body)
		}
		if tc.status == 422 && (!strings.Contains(body, `class="refusal"`) || !strings.Contains(body, "<circle")) {
			t.Errorf("%s: want the refusal above the board, got:\n%s", tc.name, body)
		}
	}
	if after := s.state(); after != before || len(m.mails) != 0 {
		t.Errorf("refused POSTs changed the game or sent mail")
	}
	// The token is still good: the page and a move work.
	if res, body := s.post(tok, url.Values{"move": {"resign"}}, map[string]string{"Origin": ""}); res.StatusCode != 200 {
		t.Errorf("resign without Origin (not a browser): %d\n%s", res.StatusCode, body)
	}
}

// TestPlayTokenSpentByProposal is a measured abuse case: propose
// then reject left the move count as it was, so one token stayed good: 400
// POSTs made 406 board mails. Now any change spends the token: of 400
// POSTs alternating propose and reject with alice's token, the first makes
// its 2 board mails and the other 399 get 410, changing nothing.
func TestPlayTokenSpentByProposal(t *testing.T) {
	s, m, _ := playSite(t)
	tok := s.boardToken("alice")
	gone := 0
	for i := range 400 {
		word := "propose"
		if i%2 == 1 {
			word = "reject"
		}
		res, body := s.post(tok, url.Values{"move": {word}}, nil)
		switch {
		case i == 0 && res.StatusCode == http.StatusOK:
		case i > 0 && res.StatusCode == http.StatusGone &&
			strings.Contains(pageText(body), "This link is from an older board mail of board 101: a draw offer, a take-back request or an answer to one came since."):
			gone++
		default:
			t.Fatalf("POST %d (%s): %d\n%s", i, word, res.StatusCode, body)
		}
	}
	mails := 0
	for _, out := range m.mails {
		mails += len(out)
	}
	if mails != 2 || gone != 399 {
		t.Fatalf("%d board mails and %d refusals, want 2 and 399", mails, gone)
	}
}

// TestPlayPostsPerGameHour: with PostsPerGameHour 2, the third move of the
// hour from the play pages of one game, with a fresh token, is refused
// with 429 and Retry-After, and changes nothing.
func TestPlayPostsPerGameHour(t *testing.T) {
	s, m, _ := playSite(t)
	h, err := web.New(web.Config{Store: s.d, Engine: s.e, Public: true, Mover: m, PostsPerGameHour: 2})
	if err != nil {
		t.Fatal(err)
	}
	s.h = h
	for i, p := range []struct{ name, word string }{{"alice", "propose"}, {"alice", "reject"}} {
		if res, body := s.post(s.boardToken(p.name), url.Values{"move": {p.word}}, nil); res.StatusCode != http.StatusOK {
			t.Fatalf("POST %d: %d\n%s", i, res.StatusCode, body)
		}
	}
	before := s.state()
	res, body := s.post(s.boardToken("alice"), url.Values{"move": {"propose"}}, nil)
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" ||
		!strings.Contains(pageText(body), "Lyngk Board 101 had 2 moves from the web in an hour") {
		t.Fatalf("the third POST: %d %q\n%s", res.StatusCode, res.Header.Get("Retry-After"), body)
	}
	if s.state() != before {
		t.Error("the refused POST changed the game")
	}
}
