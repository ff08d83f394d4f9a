package web_test

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/daemon"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/games/gamestest"
	"lyngk.example/lyngk/engine/golden"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/engine/lyngkpicture"
	"lyngk.example/lyngk/engine/lyngksearch"
	"lyngk.example/lyngk/engine/web"
	"lyngk.example/lyngk/store"
	"lyngk.example/lyngk/templates"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// start is the fake clock's first reading.
var start = time.Date(2026, time.November, 21, 22, 52, 0, 0, time.UTC)

// site is a store with games in it, the engine that made them and the web
// handler over it.
type site struct {
	t   testing.TB
	db  *store.DB
	d   *daemon.Daemon // writes the test's changes, with the change signal
	e   *engine.Engine
	now time.Time
	seq int
	h   *web.Handler
	obs *observed
	log *lockedBuffer
}

// lockedBuffer is the handler's log, read by the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// observed records what the handler tells its Observe hook.
type observed struct {
	mu    sync.Mutex
	calls []string
}

func (o *observed) add(route string, status int, _ time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.calls = append(o.calls, fmt.Sprintf("%s %d", route, status))
}

func (o *observed) all() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.calls)
}

// offered are the games of the tests, as cmd/lyngk offers them: LYNGK.
func offered() []games.Game {
	return []games.Game{{Rules: lyngk.Rules, Picture: lyngkpicture.Pictures, Input: lyngkpicture.Pictures, Robot: lyngksearch.Robot, Judge: lyngksearch.Baseline()}}
}

func newSite(t testing.TB, public bool) *site {
	t.Helper()
	return newSiteOf(t, public, offered())
}

// newSiteOf is newSite offering gs.
func newSiteOf(t testing.TB, public bool, gs []games.Game) *site {
	t.Helper()
	return newSiteWith(t, public, gs)
}

// newSiteWith is newSiteOf with the engine's configuration changed by opts.
func newSiteWith(t testing.TB, public bool, gs []games.Game, opts ...func(*engine.Config)) *site {
	t.Helper()
	set, err := templates.Load("")
	if err == nil {
		// The test game's texts, for the sites that offer it.
		set, err = set.With(gamestest.Texts)
	}
	if err != nil {
		t.Fatal(err)
	}
	cfg := engine.Config{Games: gs, Server: "lyngk@example.net", Templates: set,
		Rand: rand.NewChaCha8([32]byte{1}), BcryptCost: bcrypt.MinCost}
	for _, o := range opts {
		o(&cfg)
	}
	e, err := engine.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(filepath.Join(t.TempDir(), "lyngk.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s := &site{t: t, db: db, d: daemon.New(daemon.Config{DB: db, Engine: e}), e: e, now: start, obs: &observed{}, log: &lockedBuffer{}}
	log := slog.New(slog.NewTextHandler(s.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s.h, err = web.New(web.Config{Store: s.d, Engine: e, Public: public, Observe: s.obs.add, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// games fills the store: alice, bob and carol; board 101 (alice–bob)
// running after two moves; 102 (carol–alice) played out; 103 (bob–carol)
// resigned by carol.
func (s *site) games() {
	s.t.Helper()
	for _, n := range []string{"alice", "bob", "carol"} {
		out := s.cmd(n, "signup "+n+" pw-"+n)
		if len(out) != 1 {
			s.t.Fatalf("signup %s: %+v", n, out)
		}
		s.mail(engine.Inbound{From: out[0].To[0], Subject: "Re: " + out[0].Subject, Body: "yes\n",
			InReplyTo: []string{out[0].MessageID}})
	}
	s.cmd("carol", "lyngk challenge alice bob")
	s.move(101, "alice", "G,f5-f4")
	s.move(101, "bob", "b1-b2")
	s.cmd("alice", "lyngk challenge carol alice")
	s.playOut(102, [2]string{"carol", "alice"}, 7)
	s.cmd("alice", "lyngk challenge bob carol")
	pos := lyngk.New(103, lyngk.Standard)
	for range 2 {
		m := pos.LegalPlain(nil)[0]
		s.move(103, [2]string{"bob", "carol"}[pos.Turn()-1], m.String())
		if err := pos.Apply(m); err != nil {
			s.t.Fatal(err)
		}
	}
	s.cmd("carol", "lyngk resign 103 carol pw-carol")
}

func (s *site) mail(in engine.Inbound) []engine.Mail {
	s.t.Helper()
	s.seq++
	in.MessageID = fmt.Sprintf("m%d@players.example", s.seq)
	var out []engine.Mail
	err := s.d.Update(context.Background(), "mail", func(tx *store.Tx) error {
		var err error
		var failed error
		out, failed, err = s.e.Handle(tx, in, s.now)
		if failed != nil {
			s.t.Errorf("mail %q: %v", in.Subject, failed)
		}
		return err
	})
	if err != nil {
		s.t.Fatal(err)
	}
	s.now = s.now.Add(37 * time.Minute)
	return out
}

func (s *site) cmd(from, subject string) []engine.Mail {
	s.t.Helper()
	return s.mail(engine.Inbound{From: from + "@players.example", Subject: subject})
}

func (s *site) move(board int, name, move string) {
	s.t.Helper()
	out := s.cmd(name, fmt.Sprintf("lyngk move %d %s pw-%s %s", board, name, name, move))
	if len(out) == 0 && !s.reviewOwed() || len(out) > 0 && strings.Contains(out[0].Subject, "Error") {
		s.t.Fatalf("move %s on %d by %s: %+v", move, board, name, out)
	}
}

// reviewOwed reports whether a game's review is owed: the move that ends
// a game is answered with no mail, its game-over mails held for the
// review (engine/reviews.go).
func (s *site) reviewOwed() bool {
	s.t.Helper()
	n := 0
	if err := s.db.View(func(tx *store.Tx) (err error) { n, err = engine.ReviewsOwed(tx); return err }); err != nil {
		s.t.Fatal(err)
	}
	return n > 0
}

// anyMove plays the first legal plain move of board, in notation order.
func (s *site) anyMove(board int) {
	s.t.Helper()
	var d *engine.GameDetail
	var pos *lyngk.Game
	err := s.db.View(func(tx *store.Tx) (err error) {
		if d, err = s.e.ReadGame(tx, board); err != nil {
			return err
		}
		gp, err := d.Position(-1)
		pos, _ = lyngk.Of(gp)
		return err
	})
	if err != nil {
		s.t.Fatal(err)
	}
	legal := pos.LegalPlain(nil)
	slices.SortFunc(legal, func(a, b lyngk.Move) int { return strings.Compare(a.String(), b.String()) })
	s.move(board, d.Players[pos.Turn()-1], legal[0].String())
}

// playOut plays board with seeded random moves until the game ends.
func (s *site) playOut(board int, names [2]string, seed uint64) {
	s.t.Helper()
	pos := lyngk.New(board, lyngk.Standard)
	rng := rand.New(rand.NewPCG(seed, 0))
	for pos.Status() == games.Playing {
		legal := pos.Legal(nil)
		slices.SortFunc(legal, func(a, b lyngk.Move) int { return strings.Compare(a.String(), b.String()) })
		m := legal[rng.IntN(len(legal))]
		s.move(board, names[pos.Turn()-1], m.String())
		if err := pos.Apply(m); err != nil {
			s.t.Fatal(err)
		}
	}
}

// get serves one request and returns the response and its body.
func (s *site) get(method, target string) (*http.Response, string) {
	s.t.Helper()
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, httptest.NewRequest(method, target, nil))
	res := rec.Result()
	body, _ := io.ReadAll(res.Body)
	return res, string(body)
}

// TestPaths asks every path of the contract and checks the status code and
// the content type, and that the metrics see the route, never a token.
func TestPaths(t *testing.T) {
	s := newSite(t, true)
	s.games()
	html, svg, png, jsn := "text/html; charset=utf-8", "image/svg+xml", "image/png", "application/json"
	tests := []struct {
		method, target string
		status         int
		ctype          string
		route          string
	}{
		{"GET", "/", 200, html, "/"},
		{"HEAD", "/", 200, html, "/"},
		{"GET", "/games", 200, html, "/games"},
		{"GET", "/games?user=alice&state=active", 200, html, "/games"},
		{"GET", "/games?user=ALICE&state=finished", 200, html, "/games"},
		{"GET", "/games?state=all", 200, html, "/games"},
		{"GET", "/games?user=nobody", 404, html, "/games"},
		{"GET", "/games?state=next", 400, html, "/games"},
		{"GET", "/games?state=bogus", 400, html, "/games"},
		{"GET", "/standings", 200, html, "/standings"},
		{"GET", "/player/alice", 200, html, "/player/{id}"},
		{"GET", "/player/Bob", 200, html, "/player/{id}"},
		{"GET", "/player/nobody", 404, html, "/player/{id}"},
		{"GET", "/game/101", 200, html, "/game/{n}"},
		{"GET", "/game/101?after=0", 200, html, "/game/{n}"},
		{"GET", "/game/101?after=2", 200, html, "/game/{n}"},
		{"GET", "/game/101?after=3", 404, html, "/game/{n}"},
		{"GET", "/game/101?after=-1", 400, html, "/game/{n}"},
		{"GET", "/game/101?after=x", 400, html, "/game/{n}"},
		{"GET", "/game/101?after=", 400, html, "/game/{n}"},
		{"GET", "/game/999", 404, html, "/game/{n}"},
		{"GET", "/game/abc", 400, html, "/game/{n}"},
		{"GET", "/game/+101", 400, html, "/game/{n}"},
		{"GET", "/game/102", 200, html, "/game/{n}"},
		{"GET", "/game/103", 200, html, "/game/{n}"},
		{"GET", "/game/101/board.svg", 200, svg, "/game/{n}/board.svg"},
		{"GET", "/game/101/board.svg?after=1", 200, svg, "/game/{n}/board.svg"},
		{"GET", "/game/101/board.svg?after=9", 404, html, "/game/{n}/board.svg"},
		{"GET", "/game/999/board.svg", 404, html, "/game/{n}/board.svg"},
		{"GET", "/game/101/board.png", 200, png, "/game/{n}/board.png"},
		{"GET", "/game/101/board.png?after=0", 200, png, "/game/{n}/board.png"},
		{"GET", "/game/101/board.png?after=k", 400, html, "/game/{n}/board.png"},
		{"GET", "/game/101.json", 200, jsn, "/game/{n}.json"},
		{"GET", "/game/999.json", 404, html, "/game/{n}.json"},
		{"GET", "/game/101.json?after=1", 400, html, "/game/{n}.json"},
		{"GET", "/game/999/events", 404, html, "/game/{n}/events"},
		{"GET", "/game/x/events", 400, html, "/game/{n}/events"},
		{"HEAD", "/game/101/events", 200, "text/event-stream", "/game/{n}/events"},
		{"POST", "/", 405, html, "other"},
		{"POST", "/game/101", 405, html, "other"},
		{"DELETE", "/standings", 405, html, "other"},
		{"PUT", "/game/101/board.svg", 405, html, "other"},
		{"GET", "/nothing", 404, html, "other"},
		{"GET", "/game/101/other", 404, html, "other"},
		{"GET", "/play/SECRETTOKEN", 404, html, "/play/{token}"},
	}
	for _, tc := range tests {
		res, body := s.get(tc.method, tc.target)
		if res.StatusCode != tc.status {
			t.Errorf("%s %s: status %d, want %d\n%.300s", tc.method, tc.target, res.StatusCode, tc.status, body)
		}
		if got := res.Header.Get("Content-Type"); got != tc.ctype {
			t.Errorf("%s %s: Content-Type %q, want %q", tc.method, tc.target, got, tc.ctype)
		}
		if tc.status == 405 && res.Header.Get("Allow") == "" {
			t.Errorf("%s %s: 405 without Allow", tc.method, tc.target)
		}
		if tc.method == "HEAD" && body != "" {
			t.Errorf("HEAD %s: a body of %d bytes", tc.target, len(body))
		}
		calls := s.obs.all()
		if want := fmt.Sprintf("%s %d", tc.route, tc.status); calls[len(calls)-1] != want {
			t.Errorf("%s %s: observed %q, want %q", tc.method, tc.target, calls[len(calls)-1], want)
		}
	}
	for _, c := range s.obs.all() {
		if strings.Contains(c, "SECRET") {
			t.Errorf("a token reached the metrics: %q", c)
		}
	}
	if logs := s.log.String(); !strings.Contains(logs, `route=/play/{token} status=404`) || strings.Contains(logs, "SECRET") {
		t.Errorf("the debug log does not name the play route, or names the token:\n%s", logs)
	}
}

// TestPrivate: with web_public = false only /play/ is served.
func TestPrivate(t *testing.T) {
	s := newSite(t, false)
	s.games()
	for _, target := range []string{"/", "/games", "/standings", "/player/alice", "/game/101", "/game/101.json",
		"/game/101/board.svg", "/game/101/board.png", "/game/101/events"} {
		res, body := s.get("GET", target)
		if res.StatusCode != 404 {
			t.Errorf("web_public=false: GET %s: status %d, want 404", target, res.StatusCode)
		}
		if strings.Contains(body, "alice") || strings.Contains(body, `href="/standings"`) {
			t.Errorf("web_public=false: GET %s shows a player or links the public pages:\n%s", target, body)
		}
	}
	if res, _ := s.get("GET", "/play/sometoken"); res.StatusCode == 405 || res.StatusCode >= 500 {
		t.Errorf("web_public=false: /play/ answered %d", res.StatusCode)
	}
}

// TestGolden pins the HTML of a few pages (rewritten with -update).
func TestGolden(t *testing.T) {
	s := newSite(t, true)
	s.games()
	for _, tc := range []struct{ name, target string }{
		{"index", "/"},
		{"game-101", "/game/101"},
		{"game-101-after-1", "/game/101?after=1"},
		{"game-103", "/game/103"},
		{"game-102-after-3", "/game/102?after=3"},
		{"standings", "/standings"},
		{"player-alice", "/player/alice"},
		{"games-finished", "/games?state=finished"},
		{"not-found", "/game/999"},
	} {
		_, body := s.get("GET", tc.target)
		checkGolden(t, tc.name, body)
	}
}

// TestServerName: the header, the footer and every title name the server
// as configured, whichever games it offers; unset, it is "PBeM Server"
// (the goldens). On the main before, the site was named after its games.
func TestServerName(t *testing.T) {
	s := newSite(t, true)
	s.games()
	h, err := web.New(web.Config{Store: s.d, Engine: s.e, Public: true, ServerName: "Gamerz & Co"})
	if err != nil {
		t.Fatal(err)
	}
	s.h = h
	for target, title := range map[string]string{
		"/":             "Games",
		"/standings":    "LYNGK standings",
		"/player/alice": "alice",
		"/game/101":     "LYNGK · Board 101, move 2: alice to move",
		"/game/999":     "404 Not Found",
	} {
		_, body := s.get("GET", target)
		for _, want := range []string{"<title>" + title + " · Gamerz &amp; Co</title>",
			`<a class="brand" href="/">Gamerz &amp; Co</a>`, "<footer>Gamerz &amp; Co: games by mail."} {
			if !strings.Contains(body, want) {
				t.Errorf("%s lacks %s", target, want)
			}
		}
	}
}

// checkGolden compares got with testdata/name.html, or rewrites it under
// -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name+".html"), got, *update)
}

// TestGamePage checks what the game page must hold: the position in the
// title, the inline picture, the players with claims and score, the move
// list, the links to the other positions and the event stream.
func TestGamePage(t *testing.T) {
	s := newSite(t, true)
	s.games()
	_, body := s.get("GET", "/game/101")
	for _, want := range []string{
		"<title>LYNGK · Board 101, move 2: alice to move · PBeM Server</title>",
		`<meta name="viewport" content="width=device-width, initial-scale=1">`,
		`<svg width="600" height="600" role="img"`, "viewBox=\"0 0 600 600\"",
		`<a href="/player/alice">alice</a> <span class="tomove">to move</span>`,
		`>Green</span>`, // alice claimed green with G,f5-f4
		`<a href="/game/101?after=1">G,f5-f4</a>`, `<li class="here"><span class="n">2.</span><a href="/game/101">b1-b2</a>`,
		`<a href="/game/101?after=0">« First</a>`, `<a href="/game/101?after=1" rel="prev">`,
		`<span>Next ›</span>`, `data-live="/game/101/events"`, `data-version="`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/game/101 lacks %q", want)
		}
	}
	_, body = s.get("GET", "/game/101?after=1")
	for _, want := range []string{
		"<title>LYNGK · Board 101 after move 1 of 2: bob to move · PBeM Server</title>",
		`<a href="/game/101" rel="next">Next ›</a>`, `<a href="/game/101">Last »</a>`,
		`<a href="/game/101?after=0" rel="prev">`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/game/101?after=1 lacks %q", want)
		}
	}
	_, body = s.get("GET", "/games?state=finished")
	if strings.Contains(body, `href="/game/101"`) || !strings.Contains(body, `href="/game/102"`) {
		t.Errorf("/games?state=finished does not list exactly the finished games")
	}
	_, body = s.get("GET", "/game/103")
	if !strings.Contains(body, "carol resigned; bob won") {
		t.Errorf("/game/103 does not say who resigned and won")
	}
	// A past position of a finished game: who was to move then, no
	// winner beside it (the outcome stays in the "now:" of the status
	// line). On the main before, it showed "alice winner" and "bob to
	// move" together.
	_, body = s.get("GET", "/game/102")
	if strings.Count(body, "<strong>winner</strong>") != 1 || strings.Contains(body, `class="tomove"`) {
		t.Errorf("/game/102, the end: want one winner and nobody to move")
	}
	_, body = s.get("GET", "/game/102?after=3")
	if strings.Contains(body, "winner") || strings.Count(body, `<span class="tomove">to move</span>`) != 1 {
		t.Errorf("/game/102?after=3 shows a winner, or not one player to move:\n%s", body)
	}
}

// TestEvents opens a game's event stream over real HTTP, applies a move
// through the engine and waits for the event.
func TestEvents(t *testing.T) {
	s := newSite(t, true)
	s.games()
	srv := httptest.NewServer(s.h)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/game/101/events", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	events := make(chan string, 10)
	go func() {
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				events <- v
			}
		}
		close(events)
	}()
	next := func() string {
		t.Helper()
		select {
		case v, ok := <-events:
			if !ok {
				t.Fatal("the stream ended")
			}
			return v
		case <-ctx.Done():
			t.Fatal("no event within 10s")
		}
		return ""
	}
	first := next()
	_, page := s.get("GET", "/game/101")
	if !strings.Contains(page, `data-version="`+first+`"`) {
		t.Fatalf("the first event %q is not the page's data-version", first)
	}
	// A change elsewhere wakes the stream (the daemon's commit) but sends
	// nothing for 101.
	s.cmd("carol", "lyngk challenge alice carol")
	s.anyMove(101)
	second := next()
	if second == first {
		t.Fatalf("the event after a move repeats the version %q", first)
	}
	_, page = s.get("GET", "/game/101")
	if !strings.Contains(page, `data-version="`+second+`"`) {
		t.Fatalf("the event %q is not the new page's data-version", second)
	}
}

// TestStreamBound: at most 512 event streams at once; the next is 503
// with Retry-After, and a stream that closes frees its place.
func TestStreamBound(t *testing.T) {
	s := newSite(t, true)
	s.games()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	open := func(ctx context.Context) {
		defer wg.Done()
		s.h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequestWithContext(ctx, "GET", "/game/101/events", nil))
	}
	firstCtx, closeFirst := context.WithCancel(ctx)
	wg.Add(1)
	go open(firstCtx)
	for range 511 {
		wg.Add(1)
		go open(ctx)
	}
	// A probe whose client is gone already takes a place only for a moment.
	gone, goneCancel := context.WithCancel(context.Background())
	goneCancel()
	probe := func() *http.Response {
		rec := httptest.NewRecorder()
		s.h.ServeHTTP(rec, httptest.NewRequestWithContext(gone, "GET", "/game/101/events", nil))
		return rec.Result()
	}
	deadline := time.Now().Add(20 * time.Second)
	for probe().StatusCode != http.StatusServiceUnavailable {
		if time.Now().After(deadline) {
			t.Fatal("the 513th event stream was never refused")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if res := probe(); res.Header.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
	closeFirst()
	for probe().StatusCode != http.StatusOK {
		if time.Now().After(deadline) {
			t.Fatal("a closed stream did not free its place")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestBoardPictureEnded: the picture of an ended game's last position says
// its result, not whose turn it is, though the position alone has a
// player to move after a resignation or a cancellation (the old main drew
// "to move"); an earlier position of it still says whose turn it was.
func TestBoardPictureEnded(t *testing.T) {
	s := newSite(t, true)
	s.games()
	s.cmd("alice", "lyngk challenge alice bob")
	if out := s.cmd("bob", "lyngk decline 104 bob pw-bob"); len(out) != 2 || strings.Contains(out[0].Subject, "Error") {
		t.Fatalf("decline: %+v", out)
	}
	for _, tc := range []struct{ path, want, not string }{
		{"/game/103/board.svg", ">resigned</text>", ">to move</text>"},
		{"/game/103/board.svg", ">won</text>", ">to move</text>"},
		{"/game/104/board.svg", ">cancelled</text>", ">to move</text>"},
		{"/game/103", ">resigned</text>", ">to move</text>"},
		{"/game/103/board.svg?after=1", ">to move</text>", "resigned"},
	} {
		resp, body := s.get("GET", tc.path)
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, tc.want) || strings.Contains(body, tc.not) {
			t.Errorf("%s: status %d, want %q and not %q in:\n%s", tc.path, resp.StatusCode, tc.want, tc.not, body)
		}
	}
}

// TestStreamsPerClient is a measured abuse case: one client held all 512
// event streams, and every other page's got 503. With StreamsPerClient 2,
// a third stream from one address is refused with 503 and Retry-After,
// while another address still gets its stream; behind a reverse proxy on
// loopback the address is the last of X-Forwarded-For, anybody else's
// X-Forwarded-For counts for nothing.
func TestStreamsPerClient(t *testing.T) {
	s := newSite(t, true)
	s.games()
	h, err := web.New(web.Config{Store: s.d, Engine: s.e, Public: true, StreamsPerClient: 2})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	request := func(ctx context.Context, remote, xff string) *http.Request {
		req := httptest.NewRequestWithContext(ctx, "GET", "/game/101/events", nil)
		req.RemoteAddr = remote
		if xff != "" {
			req.Header.Set("X-Forwarded-For", xff)
		}
		return req
	}
	started := make(chan struct{}, 4)
	open := func(remote, xff string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec := &startRecorder{ResponseRecorder: httptest.NewRecorder(), started: started}
			h.ServeHTTP(rec, request(ctx, remote, xff))
		}()
	}
	open("192.0.2.1:1000", "")
	open("192.0.2.1:1001", "198.51.100.7") // not a proxy: its header is not believed
	for range 2 {
		select {
		case <-started:
		case <-time.After(20 * time.Second):
			t.Fatal("a stream did not start")
		}
	}
	gone, goneCancel := context.WithCancel(context.Background())
	goneCancel()
	probe := func(remote, xff string) *http.Response {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, request(gone, remote, xff))
		return rec.Result()
	}
	if res := probe("192.0.2.1:1002", ""); res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
		t.Fatalf("the third stream of one address: %d, want 503 with Retry-After", res.StatusCode)
	}
	if res := probe("192.0.2.2:1000", ""); res.StatusCode != http.StatusOK {
		t.Fatalf("another address: %d, want 200", res.StatusCode)
	}
	open("127.0.0.1:2000", "192.0.2.9, 192.0.2.5")
	open("127.0.0.1:2001", "192.0.2.3")
	for range 2 {
		select {
		case <-started:
		case <-time.After(20 * time.Second):
			t.Fatal("a proxied stream did not start")
		}
	}
	if res := probe("127.0.0.1:2002", "192.0.2.3"); res.StatusCode != http.StatusOK {
		t.Fatalf("the second stream of 192.0.2.3 through the proxy: %d, want 200", res.StatusCode)
	}
	if res := probe("127.0.0.1:2003", "192.0.2.1"); res.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("a third stream of 192.0.2.1 through the proxy: %d, want 503", res.StatusCode)
	}
}

// startRecorder tells when the handler has written the stream's header.
type startRecorder struct {
	*httptest.ResponseRecorder
	started chan struct{}
	once    sync.Once
}

func (r *startRecorder) WriteHeader(code int) {
	r.ResponseRecorder.WriteHeader(code)
	r.once.Do(func() { r.started <- struct{}{} })
}

// TestFrontPageBounded is a measured abuse case: 5,017 forged games made
// the front page 1.1 MB (103 ms of CPU a request at 2,400 games). Now it
// lists the newest 50 running games and links to /games, which pages
// through all of them, maxListed a page.
func TestFrontPageBounded(t *testing.T) {
	s := newSite(t, true)
	s.games() // 101 running, 102 and 103 finished
	const n = 120
	for i := range n {
		if i%engine.MaxUnasked == 0 {
			s.now = s.now.Add(24 * time.Hour) // bob's unasked mails a day
		}
		s.cmd("alice", "lyngk challenge alice bob")
	}
	_, page := s.get("GET", "/")
	if got := strings.Count(page, `<a href="/game/`); got > 50+2 { // and the 2 finished
		t.Fatalf("the front page links %d games, want at most 50 running and 2 finished", got)
	}
	if !strings.Contains(page, `<a href="/games?state=active">All running games</a> (71 more)`) {
		t.Fatalf("the front page lacks the link to the rest:\n%s", page)
	}
	if strings.Contains(page, `href="/game/101"`) || !strings.Contains(page, fmt.Sprintf(`href="/game/%d"`, 103+n)) {
		t.Fatal("the front page does not list the newest games")
	}
	t.Logf("front page with %d running games: %d bytes", n, len(page))
	if res, _ := s.get("GET", "/games?page=0"); res.StatusCode != http.StatusBadRequest {
		t.Errorf("page 0: %d, want 400", res.StatusCode)
	}
	// The standings page like /games: page 2 of two players is empty, a
	// page that is no number refused.
	if _, page := s.get("GET", "/standings?page=1"); !strings.Contains(page, `href="/player/alice"`) {
		t.Errorf("standings page 1 lacks alice:\n%s", page)
	}
	if _, page := s.get("GET", "/standings?page=2"); strings.Contains(page, `href="/player/alice"`) || !strings.Contains(page, "the standings end before it") {
		t.Errorf("standings page 2 lists players:\n%s", page)
	}
	if res, _ := s.get("GET", "/standings?page=x"); res.StatusCode != http.StatusBadRequest {
		t.Errorf("standings page x: %d, want 400", res.StatusCode)
	}
}
