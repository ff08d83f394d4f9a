package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/lyngk"
)

// TestServeLocalWeb is the web part through `lyngk serve` in local
// mode over real TCP: the start text names the web pages, / answers, a
// game played by mail shows on /game/101, its event stream tells of the
// next move within 2 s, /game/101.json agrees with `lyngk analyze -json`,
// and the metrics count the requests by path and status.
func TestServeLocalWeb(t *testing.T) {
	cfg := defaultConfig()
	cfg.DataDir = filepath.Join(t.TempDir(), "data")
	cfg.MetricsAddr = anyPort
	cfg.WebAddr = anyPort // what -local-web sets
	s := startServe(t, cfg)
	base := "http://" + s.cfg.WebAddr
	if want := "  Web pages:            " + base + "/\n"; !strings.Contains(s.stdout.String(), want) {
		t.Fatalf("the start text lacks %q:\n%s", want, s.stdout.String())
	}
	get := func(path string, status int) string {
		t.Helper()
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != status {
			t.Fatalf("GET %s: %d, want %d\n%s", path, res.StatusCode, status, body)
		}
		return string(body)
	}
	if body := get("/", 200); !strings.Contains(body, "No game is running.") {
		t.Fatalf("/ of an empty server:\n%s", body)
	}

	alice := localPlayer{t: t, name: "alice", smtp: s.smtp, imap: s.imap}
	bob := localPlayer{t: t, name: "bob", smtp: s.smtp, imap: s.imap}
	alice.signup("Sesame-8zq", 0)
	bob.signup("Sesame-9xy", 0)
	alice.send("lyngk challenge alice bob", "", "")
	alice.await(3)
	bob.await(3)
	if body := get("/", 200); !strings.Contains(body, `<a href="/game/101">101</a>`) {
		t.Fatalf("/ does not list the new game:\n%s", body)
	}
	get("/game/101", 200)
	get("/game/102", 404)

	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/game/101/events", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	events := make(chan string, 4)
	go func() {
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				events <- v
			}
		}
	}()
	first := <-events

	g := lyngk.New(101, lyngk.Standard)
	m := g.Legal(nil)[0]
	sent := time.Now()
	alice.send(fmt.Sprintf("lyngk move 101 alice Sesame-8zq %s", m), "", "")
	if err := g.Apply(m); err != nil {
		t.Fatal(err)
	}
	select {
	case v := <-events:
		took := time.Since(sent)
		t.Logf("the game page's event came %v after the move was sent", took.Round(time.Millisecond))
		if v == first {
			t.Fatalf("the event after the move repeats version %s", v)
		}
		if took > 2*time.Second {
			t.Errorf("the event came %v after the move was sent, want within 2s", took)
		}
	case <-ctx.Done():
		t.Fatal("no event after the move")
	}
	bob.await(4)

	// The JSON against `lyngk analyze -json` for the same moves.
	var got engine.GameJSON
	if err := json.Unmarshal([]byte(get("/game/101.json", 200)), &got); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := runAnalyze([]string{"-seed", "101", "-players", "alice,bob", "-json", m.String()}, &stdout, &stderr); code != 0 {
		t.Fatalf("lyngk analyze: %d %s", code, stderr.String())
	}
	var want engine.Analysis
	if err := json.Unmarshal(stdout.Bytes(), &want); err != nil {
		t.Fatal(err)
	}
	if got.Number != 101 || got.Players != [2]string{"alice", "bob"} || got.Variant != "standard" {
		t.Errorf("number, players, variant = %d %v %s", got.Number, got.Players, got.Variant)
	}
	gotA := engine.Analysis{Board: got.Board, Moves: got.Moves, Turn: got.Turn, Status: got.Status, Winner: got.Winner,
		Fields: got.Fields, Legal: got.Legal}
	if !reflect.DeepEqual(gotA, want) {
		t.Errorf("/game/101.json:\n%+v\nlyngk analyze -json:\n%+v", gotA, want)
	}
	if len(got.Positions) != 2 || got.Positions[1] != want.Board {
		t.Errorf("positions: %d, the last equal to the board: %v", len(got.Positions), len(got.Positions) == 2 && got.Positions[1] == want.Board)
	}

	for _, sample := range []string{
		`lyngk_http_requests_total{path="/",status="200"} 2`,
		`lyngk_http_requests_total{path="/game/{n}",status="200"} 1`,
		`lyngk_http_requests_total{path="/game/{n}",status="404"} 1`,
		`lyngk_http_requests_total{path="/game/{n}.json",status="200"} 1`,
	} {
		name, want, _ := strings.Cut(sample, "} ")
		if v := metricValue(t, s.cfg.MetricsAddr, name+"}"); fmt.Sprint(v) != want {
			t.Errorf("%s} = %v, want %s", name, v, want)
		}
	}
	cancel()
	s.stop(t)
}

// TestLocalWebFlag: in local mode the web part listens at -local-web, on
// loopback only; "" turns it off; web_addr of the file counts when the
// flag is not given.
func TestLocalWebFlag(t *testing.T) {
	if _, err := listenWeb("0.0.0.0:0", true); err == nil {
		t.Error("local mode accepted a web listener on every interface")
	}
	ln, err := listenWeb("127.0.0.1:0", true)
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	var stdout, stderr bytes.Buffer
	if code := runServe([]string{"-local-web", "192.0.2.1:80", "-data", t.TempDir(), "-local-smtp", anyPort,
		"-local-imap", anyPort}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "loopback only") {
		t.Errorf("-local-web on a public address: exit %d\n%s", code, stderr.String())
	}
}

// TestServeWebUnderPath: with web_url
// http://HOST/lyngk, lyngk serve serves the pages under /lyngk/ (a reverse
// proxy's path) and nothing at the root; the board mail's play link and
// every link of the pages lead there. web_url with a path was refused.
func TestServeWebUnderPath(t *testing.T) {
	cfg := defaultConfig()
	cfg.DataDir = filepath.Join(t.TempDir(), "data")
	// The public URL is a reverse proxy's; the test's client connects to
	// the port the server picked, as the proxy would.
	cfg.WebAddr = anyPort
	cfg.WebURL = "http://games.example/lyngk"
	if err := cfg.validate(); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, cfg)
	var dialer net.Dialer
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return dialer.DialContext(ctx, network, s.cfg.WebAddr)
	}}}
	get := func(url string, status int) string {
		t.Helper()
		res, err := client.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != status {
			t.Fatalf("GET %s: %d, want %d\n%s", url, res.StatusCode, status, body)
		}
		return string(body)
	}
	alice := localPlayer{t: t, name: "alice", smtp: s.smtp, imap: s.imap}
	bob := localPlayer{t: t, name: "bob", smtp: s.smtp, imap: s.imap}
	alice.signup("Sesame-8zq", 0)
	bob.signup("Sesame-9xy", 0)
	alice.send("lyngk challenge alice bob", "", "")
	board := alice.await(3)
	play := regexp.MustCompile(regexp.QuoteMeta(cfg.WebURL) + `/play/[A-Za-z0-9_-]+`).FindString(board.Body)
	if play == "" {
		t.Fatalf("the board mail has no play link under %s:\n%s", cfg.WebURL, board.Body)
	}
	if body := get(play, 200); !strings.Contains(body, `href="/lyngk/game/101"`) {
		t.Errorf("the play page does not link to /lyngk/game/101:\n%s", body)
	}
	if body := get(cfg.WebURL+"/", 200); !strings.Contains(body, `<a href="/lyngk/game/101">101</a>`) {
		t.Errorf("/lyngk/ does not list the game under /lyngk:\n%s", body)
	}
	get(cfg.WebURL+"/game/101", 200)
	get("http://games.example/", 404)
	get("http://games.example/game/101", 404)
}
