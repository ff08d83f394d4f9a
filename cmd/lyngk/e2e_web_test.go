package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// e2eWebLink is the link of a board mail's "Move on the web:" line.
var e2eWebLink = regexp.MustCompile(`\nMove on the web:\n(http://\S+/play/[a-z2-7]{32})\n`)

// TestE2EWeb is the web part in real mode: `lyngk serve` with web_addr and
// web_url against Dovecot and Postfix. The new-game mail links alice's play
// page; a POST from that page moves; both players' board mails arrive
// through Postfix into Dovecot; the game's JSON and the list of games show
// the move.
func TestE2EWeb(t *testing.T) {
	e := e2eSetup(t)
	// The public name of the pages (a reverse proxy's, in a deployment);
	// the test's client connects to the port the server picked, as the
	// proxy would.
	const base = "http://games.e2e.test"
	srv := e.startServer(t, e2ePlain, "web_addr = "+anyPort, "web_url = "+base+"/")
	var dialer net.Dialer
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return dialer.DialContext(ctx, network, srv.web)
	}}}
	alice, bob, gm := e.startGame(t, 25*time.Millisecond, 1)
	f := e2eWebLink.FindStringSubmatch(gm.last[0].Body)
	if f == nil || !strings.HasPrefix(f[1], base+"/play/") {
		t.Fatalf("alice's new-game mail has no link to %s/play/:\n%s", base, gm.last[0].Body)
	}
	link := f[1]
	get := func(u string) (int, string) {
		t.Helper()
		res, err := client.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return res.StatusCode, string(b)
	}
	if code, page := get(link); code != http.StatusOK || !strings.Contains(page, "It is your turn, alice.") {
		t.Fatalf("GET the play page: %d\n%s", code, page)
	}

	mv := gm.pick()
	req, err := http.NewRequest("POST", link, strings.NewReader(url.Values{"move": {mv.String()}}.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), "was made") {
		t.Fatalf("POST %v: %d\n%s", mv, res.StatusCode, body)
	}
	if _, err := gm.played(mv); err != nil {
		t.Fatal(err)
	}
	// Both players get the board after the move: bob to answer it, alice
	// (who moved on the page, not by mail) to see it.
	for _, p := range []*e2ePlayer{alice, bob} {
		if _, err := gm.await(p, e2eMoveWait); err != nil {
			t.Fatal(err)
		}
	}

	code, js := get(base + "/game/" + strconv.Itoa(gm.board) + ".json")
	var g struct {
		Number int      `json:"number"`
		Status string   `json:"status"`
		Moves  []string `json:"moves"`
	}
	if err := json.Unmarshal([]byte(js), &g); code != http.StatusOK || err != nil {
		t.Fatalf("GET the game's JSON: %d %v\n%s", code, err, js)
	}
	if g.Number != gm.board || g.Status != "playing" || !slices.Equal(g.Moves, gm.sent) {
		t.Errorf("the game's JSON: number %d, status %q, moves %q; want %d, playing, %q", g.Number, g.Status, g.Moves, gm.board, gm.sent)
	}
	if code, page := get(base + "/"); code != http.StatusOK || !strings.Contains(page, "/game/"+strconv.Itoa(gm.board)) {
		t.Errorf("GET /: %d, no link to board %d\n%s", code, gm.board, page)
	}
}
