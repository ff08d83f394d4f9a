package web_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/web"
	"lyngk.example/lyngk/engine/yinsh"
	"lyngk.example/lyngk/engine/yinshpicture"
	"lyngk.example/lyngk/engine/yinshsearch"
)

// yinshTurns are the first 31 turns of a YINSH game (engine/yinsh's
// RandomTurn, seed 72): placements, moves, and alice's row removed after
// her move.
var yinshTurns = strings.Fields("c5 e2 i9 j5 d5 g9 g5 i5 d3 f6 i9-i7 j5-j7 c5-a3 e2-d1 a3-c3 g9-d6 d5-f5 i5-h5 g5-f4 d6-b4 " +
	"c3-b3 j7-k7 i7-k9 b4-e7 d3-e4 f6-h8 k9-h9 h5-i6 f5-e5 i6-g4 e5-b2;xd5-h5;xe4")

// TestYinshWeb: a YINSH game (board 101, the site's only game) on the web:
// the game page with the picture's SVG and the text board, the JSON with
// YINSH's fields, board.svg and board.png, and the play page, whose form
// lists every legal whole turn and carries them with their clicks for
// the script, and whose POST plays one, which the
// game's event stream tells.
func TestYinshWeb(t *testing.T) {
	gs := append(offered(), games.Game{Rules: yinsh.Rules, Picture: yinshpicture.Pictures, Input: yinshpicture.Pictures, Robot: yinshsearch.Robot})
	s := newSiteOf(t, true, gs)
	m := &mover{s: s}
	h, err := web.New(web.Config{Store: s.d, Engine: s.e, Public: true, Mover: m, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	s.h = h
	for _, n := range []string{"alice", "bob"} {
		out := s.cmd(n, "signup "+n+" pw-"+n)
		s.mail(engine.Inbound{From: out[0].To[0], Subject: "Re: " + out[0].Subject, Body: "yes\n", InReplyTo: []string{out[0].MessageID}})
	}
	s.cmd("alice", "yinsh challenge alice bob")
	pos := yinsh.New(yinsh.Normal)
	names := [2]string{"alice", "bob"}
	for _, turn := range yinshTurns {
		user := names[pos.Turn()-1]
		if out := s.cmd(user, "yinsh move 101 "+user+" pw-"+user+" "+turn); len(out) != 2 {
			t.Fatalf("%s: %+v", turn, out)
		}
		tn, _, _ := yinsh.ParseTurn(turn)
		if err := pos.Apply(tn); err != nil {
			t.Fatal(err)
		}
	}

	res, body := s.get("GET", "/game/101")
	if res.StatusCode != 200 || !strings.Contains(body, "<svg") || !strings.Contains(body, "e5-b2;xd5-h5;xe4") ||
		!strings.Contains(body, "<th>Colour</th>") || strings.Contains(body, "Colours claimed") {
		t.Fatalf("game page: %d\n%s", res.StatusCode, body)
	}
	// The site's name is the server's; a board's title and heading name
	// its game, the header links each game's standings, and a long turn
	// may break after each ";".
	for _, want := range []string{`<a class="brand" href="/">PBeM Server</a>`, "<footer>PBeM Server: games by mail.",
		"<title>YINSH · Board 101, move 31: bob to move · PBeM Server</title>", "<h1>YINSH · Board 101</h1>",
		`<a href="/standings?game=lyngk">LYNGK standings</a><a href="/standings?game=yinsh">YINSH standings</a>`,
		`<span class="n">31.</span><a href="/game/101">e5-b2;<wbr>xd5-h5;<wbr>xe4</a>`} {
		if !strings.Contains(body, want) {
			t.Errorf("game page lacks %s", want)
		}
	}
	checkGolden(t, "yinsh-game-101", body)
	if _, body := s.get("GET", "/"); !strings.Contains(body, "<title>Games · PBeM Server</title>") {
		t.Errorf("home page title: %.300s", body)
	} else {
		checkGolden(t, "yinsh-index", body)
	}
	res, body = s.get("GET", "/game/101.json")
	if res.StatusCode != 200 || !strings.HasPrefix(body, `{"number":101,"game":"yinsh","variant":"normal","players":["alice","bob"],`) {
		t.Fatalf("json: %d %s", res.StatusCode, body)
	}
	var j struct {
		Board        string
		Moves, Legal []string
		Turn         int
		Status       string
		RingsRemoved []int `json:"rings_removed"`
		Pool         int
		Rings        map[string][]string
	}
	if err := json.Unmarshal([]byte(body), &j); err != nil {
		t.Fatal(err)
	}
	if j.Board != pos.Board(names) || len(j.Moves) != 31 || j.Turn != 2 || j.Status != "playing" ||
		!slices.Equal(j.RingsRemoved, []int{1, 0}) || j.Pool != pos.Pool() || len(j.Rings["white"]) != 4 || len(j.Legal) != len(pos.Legal(nil)) {
		t.Errorf("json: %+v", j)
	}
	if res, body := s.get("GET", "/game/101/board.svg"); res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "image/svg") || !strings.Contains(body, "Pool: ") {
		t.Errorf("board.svg: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	res, body = s.get("GET", "/game/101/board.png")
	if img, err := png.Decode(bytes.NewReader([]byte(body))); res.StatusCode != 200 || err != nil || img.Bounds().Dx() != yinshpicture.Width {
		t.Errorf("board.png: %d %v", res.StatusCode, err)
	}

	out := s.cmd("bob", "yinsh show 101")
	local, _, _ := strings.Cut(out[0].MessageID, "@")
	tok := strings.TrimPrefix(local, "lyngk.")
	res, body = s.get("GET", "/play/"+tok)
	legal := pos.Legal(nil)
	if res.StatusCode != 200 || strings.Count(body, "<option>") != len(legal) || !strings.Contains(body, "<title>YINSH · Board 101, move 31: It is your turn, bob. · PBeM Server</title>") ||
		!strings.Contains(body, "Move (as in a reply: e3, h7-g7, f2-f6;xb5-f5;xa4, resign, propose, ...)") {
		t.Fatalf("play page: %d, %d options for %d turns\n%s", res.StatusCode, strings.Count(body, "<option>"), len(legal), body)
	}
	turn := legal[0].String()
	if !strings.Contains(body, "<option>"+turn+"</option>") {
		t.Errorf("the play page lacks %s", turn)
	}
	// Moving by clicks: the 85 points to tap, and every legal turn with
	// its steps (games.Click.Steps) for the script that narrows them.
	if n := strings.Count(body, "<circle data-p="); n != yinsh.NumPoints || !strings.Contains(body, "function fits(m)") ||
		strings.Count(body, "&#34;s&#34;:[[") != len(legal) || strings.Contains(body, "Tap a stack") {
		t.Errorf("play page: %d spots, want %d; %d turns with steps, want %d", n, yinsh.NumPoints, strings.Count(body, "&#34;s&#34;:[["), len(legal))
	}
	// The event stream of the game page tells of the turn.
	srv := httptest.NewServer(s.h)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/game/101/events", nil)
	stream, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	events := make(chan string, 10)
	go func() {
		sc := bufio.NewScanner(stream.Body)
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
		case v := <-events:
			return v
		case <-ctx.Done():
			t.Fatal("no event within 10s")
		}
		return ""
	}
	first := next()
	res, body = s.post(tok, url.Values{"move": {turn}}, nil)
	if res.StatusCode != 200 && res.StatusCode != 303 {
		t.Fatalf("POST %s: %d\n%s", turn, res.StatusCode, body)
	}
	if err := pos.Apply(legal[0]); err != nil {
		t.Fatal(err)
	}
	_, body = s.get("GET", "/game/101.json")
	if err := json.Unmarshal([]byte(body), &j); err != nil || j.Board != pos.Board(names) || len(j.Moves) != 32 {
		t.Errorf("after the POST: %v %+v", err, j)
	}
	if v := next(); v == first || v == "" {
		t.Errorf("event after the turn: %q, before %q", v, first)
	}
}
