package web_test

import (
	"io"
	"net/http/httptest"
	"testing"
)

// TestBoardPNGCache: board.png names its position by a strong ETag (the
// same position, the same ETag and bytes, whatever the URL), answers 304
// to it, and says how long it may be kept: the current position of a
// running game no-cache, a past one an hour, a finished game's for good.
func TestBoardPNGCache(t *testing.T) {
	s := newSite(t, true)
	s.games()
	get := func(target, etag string) (status int, cache, tag string, body []byte) {
		t.Helper()
		req := httptest.NewRequest("GET", target, nil)
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		rec := httptest.NewRecorder()
		s.h.ServeHTTP(rec, req)
		res := rec.Result()
		body, _ = io.ReadAll(res.Body)
		return res.StatusCode, res.Header.Get("Cache-Control"), res.Header.Get("ETag"), body
	}
	status, cache, now, body := get("/game/101/board.png", "")
	if status != 200 || cache != "no-cache" || len(now) != 34 || len(body) == 0 {
		t.Fatalf("current position: %d, Cache-Control %q, ETag %q, %d bytes", status, cache, now, len(body))
	}
	if status, _, tag, body := get("/game/101/board.png", now); status != 304 || tag != now || len(body) != 0 {
		t.Errorf("If-None-Match of its ETag: %d, ETag %q, %d bytes; want 304, no body", status, tag, len(body))
	}
	if status, _, _, _ := get("/game/101/board.png", `"other", W/`+now); status != 304 {
		t.Errorf("If-None-Match listing its ETag (weak): %d, want 304", status)
	}
	if status, _, _, _ := get("/game/101/board.png", `"other"`); status != 200 {
		t.Errorf("If-None-Match of another ETag: %d, want 200", status)
	}
	status, cache, past, _ := get("/game/101/board.png?after=1", "")
	if status != 200 || cache != "public, max-age=3600" || past == now {
		t.Errorf("past position: %d, Cache-Control %q, ETag %q (current %q)", status, cache, past, now)
	}
	if _, cache, _, _ := get("/game/102/board.png?after=3", ""); cache != "public, max-age=31536000, immutable" {
		t.Errorf("a finished game's position: Cache-Control %q", cache)
	}
	if _, cache, _, _ := get("/game/103/board.png", ""); cache != "public, max-age=31536000, immutable" {
		t.Errorf("a resigned game's last position: Cache-Control %q", cache)
	}
	// Another move: the current position is another picture; the one
	// before is now ?after=2, the same ETag and bytes as it was.
	s.anyMove(101)
	if _, _, tag, _ := get("/game/101/board.png", ""); tag == now {
		t.Error("the ETag of the current position did not change with a move")
	}
	status, cache, tag, again := get("/game/101/board.png?after=2", "")
	if status != 200 || tag != now || string(again) != string(body) || cache != "public, max-age=3600" {
		t.Errorf("the position before the move as ?after=2: ETag %q (was %q), same bytes %t, Cache-Control %q", tag, now, string(again) == string(body), cache)
	}
}
