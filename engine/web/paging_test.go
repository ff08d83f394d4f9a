package web_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/benchstore"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/golden"
	"lyngk.example/lyngk/engine/web"
	"lyngk.example/lyngk/engine/yinsh"
	"lyngk.example/lyngk/store"
)

// countingStore is the daemon's read side, counting the keys and records
// its pages read (Get, and every key a scan visits).
type countingStore struct {
	web.Store
	reads atomic.Int64
}

func (c *countingStore) View(fn func(tx engine.Tx) error) error {
	return c.Store.View(func(tx engine.Tx) error { return fn(countingTx{tx, &c.reads}) })
}

type countingTx struct {
	engine.Tx
	reads *atomic.Int64
}

func (t countingTx) Get(bucket, key string) ([]byte, error) {
	t.reads.Add(1)
	return t.Tx.Get(bucket, key)
}

func (t countingTx) Scan(bucket, from string, fn func(key string, val []byte) error) error {
	return t.Tx.Scan(bucket, from, func(key string, val []byte) error {
		t.reads.Add(1)
		return fn(key, val)
	})
}

var (
	nextPage = regexp.MustCompile(`<p class="muted">[^<]*<a href="([^"]*)">page \d+</a></p>`)
	gameLink = regexp.MustCompile(`<a href="/game/(\d+)">`)
)

// TestGamesPagedByKey: /games pages through 1,600 games (bench-store's,
// 2 % running) 500 a page by the link each page gives, which starts the
// next page after the last game of the page (after=BOARD): the pages
// together are the whole listing, each game once, in the listing's order
// (running first, then the last ended first), and page 3 reads as many
// keys and records as page 1 but the game of its cursor and the one key
// it looks past the page (page 3 by number read the 1,000 keys of the
// pages before it besides). An old link, ?page=3, is redirected to the
// page after the last game of page 2; ?page=9, past the end, is an empty
// page; after=x is refused. The
// pages' games, counts and links are in testdata/games-pages.txt.
func TestGamesPagedByKey(t *testing.T) {
	s := newSiteOf(t, true, append(offered(), games.Game{Rules: yinsh.Rules}))
	_, err := benchstore.Generate(context.Background(), s.e, func(fn func(engine.Tx) error) error {
		return s.db.Update(func(tx *store.Tx) error { return fn(tx) })
	}, benchstore.Options{Games: 1600, Running: -1, Seed: 3, Now: start, Span: 365 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	cs := &countingStore{Store: s.d}
	h, err := web.New(web.Config{Store: cs, Engine: s.e, Public: true, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	s.h = h
	var all []engine.GameSummary
	if err := s.d.View(func(tx engine.Tx) (err error) {
		all, _, err = s.e.Page(tx, engine.GameFilter{}, engine.Cursor{}, 2000)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var report strings.Builder
	var listed []int
	var reads []int64
	for target := "/games"; target != ""; {
		cs.reads.Store(0)
		res, body := s.get("GET", target)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d", target, res.StatusCode)
		}
		reads = append(reads, cs.reads.Load())
		var boards []int
		for _, m := range gameLink.FindAllStringSubmatch(body, -1) {
			n, _ := strconv.Atoi(m[1])
			boards = append(boards, n)
		}
		listed = append(listed, boards...)
		more := nextPage.FindStringSubmatch(body)
		fmt.Fprintf(&report, "GET %s: %d games, %d to %d\n", target, len(boards), boards[0], boards[len(boards)-1])
		target = ""
		if more != nil {
			fmt.Fprintf(&report, "  %s\n", more[0])
			target = strings.ReplaceAll(more[1], "&amp;", "&")
		}
	}
	want := make([]int, len(all))
	for i, g := range all {
		want[i] = g.Board
	}
	if !slices.Equal(listed, want) {
		t.Errorf("the pages list %d games, not the listing's %d in its order", len(listed), len(want))
	}
	t.Logf("reads of each page: %v", reads)
	// Pages 2 and 3 read the game of their cursor and one key past the
	// page besides what page 1 reads.
	if len(reads) != 4 || reads[1] > reads[0]+2 || reads[2] > reads[0]+2 {
		t.Errorf("reads of each page %v: want 4 pages, pages 2 and 3 reading no more than page 1 and 2", reads)
	}
	for _, target := range []string{"/games?page=3", "/games?state=finished&page=2", "/games?page=9", "/games?after=x", "/games?after=0"} {
		res, body := s.get("GET", target)
		fmt.Fprintf(&report, "GET %s: %d %s", target, res.StatusCode, res.Header.Get("Location"))
		if res.StatusCode == http.StatusOK {
			fmt.Fprintf(&report, "%d games", len(gameLink.FindAllString(body, -1)))
		}
		report.WriteString("\n")
	}
	golden.Check(t, "testdata/games-pages.txt", report.String(), *update)
}
