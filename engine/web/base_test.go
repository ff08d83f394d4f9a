package web_test

import (
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine/web"
)

// TestBase: with web_url https://example.org/lyngk the
// pages are served under /lyngk/ and every link of them starts with it;
// paths outside it are 404, /lyngk redirects to /lyngk/, and the routes
// the metrics see are the same as at the root.
func TestBase(t *testing.T) {
	s := newSite(t, true)
	s.games()
	var err error
	s.h, err = web.New(web.Config{Store: s.d, Engine: s.e, Public: true, Observe: s.obs.add, Base: "/lyngk",
		Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		target string
		status int
	}{
		{"/lyngk/", 200}, {"/lyngk/games", 200}, {"/lyngk/games?state=finished", 200}, {"/lyngk/standings", 200},
		{"/lyngk/player/alice", 200}, {"/lyngk/game/101", 200}, {"/lyngk/game/101?after=1", 200},
		{"/lyngk/game/101.json", 200}, {"/lyngk/game/101/board.png", 200},
		{"/", 404}, {"/game/101", 404}, {"/lyngkx/game/101", 404}, {"/lyngk/nothing", 404},
	} {
		res, body := s.get(http.MethodGet, tc.target)
		if res.StatusCode != tc.status {
			t.Errorf("GET %s: %d, want %d", tc.target, res.StatusCode, tc.status)
			continue
		}
		if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
			continue
		}
		for _, m := range regexp.MustCompile(`(?:href|action|data-live)="([^"]*)"`).FindAllStringSubmatch(body, -1) {
			if link := m[1]; strings.HasPrefix(link, "/") && link != "/lyngk/" && !strings.HasPrefix(link, "/lyngk/") {
				t.Errorf("GET %s: link %q outside /lyngk/", tc.target, link)
			}
		}
	}
	for target, want := range map[string]string{"/lyngk/": `href="/lyngk/game/101"`, "/lyngk/game/101": `data-live="/lyngk/game/101/events"`,
		"/lyngk/standings": `href="/lyngk/player/alice"`} {
		if _, body := s.get(http.MethodGet, target); !strings.Contains(body, want) {
			t.Errorf("GET %s lacks %s", target, want)
		}
	}
	if res, _ := s.get(http.MethodGet, "/lyngk"); res.StatusCode != http.StatusMovedPermanently || res.Header.Get("Location") != "/lyngk/" {
		t.Errorf("GET /lyngk: %d to %q, want 301 to /lyngk/", res.StatusCode, res.Header.Get("Location"))
	}
	if _, err := web.New(web.Config{Store: s.d, Engine: s.e, Base: "/lyngk/"}); err == nil {
		t.Error("a base with a trailing slash was taken")
	}
}
