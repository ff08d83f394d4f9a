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
	"lyngk.example/lyngk/engine/lyngk"
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

// TestGamesPagedByKey: /games pages through 350 games (bench-store's,
// 2 % running) 100 a page by the link each page gives, which starts the
// next page after the last game of the page (after=BOARD): the pages
// together are the whole listing, each game once, in the listing's order
// (running first, then the last ended first), and page 3 reads as many
// keys and records as page 1 but the game of its cursor and the one key
// it looks past the page (page 3 by number read the 200 keys of the
// pages before it besides). An old link, ?page=3, is redirected to the
// page after the last game of page 2; ?page=9, past the end, is an empty
// page; after=x is refused. The
// pages' games, counts and links are in testdata/games-pages.txt.
func TestGamesPagedByKey(t *testing.T) {
	s, cs := pagedSite(t, benchstore.Options{Games: 350, Running: -1, Seed: 3, Now: start, Span: 365 * 24 * time.Hour})
	var all []engine.GameSummary
	if err := s.d.View(func(tx engine.Tx) (err error) {
		all, _, err = s.e.Page(tx, engine.GameFilter{}, engine.Cursor{}, 2000)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var report strings.Builder
	var listed []int
	reads := walk(t, s, cs, "/games", &report, func(target, body string) string {
		var boards []int
		for _, m := range gameLink.FindAllStringSubmatch(body, -1) {
			n, _ := strconv.Atoi(m[1])
			boards = append(boards, n)
		}
		if len(boards) == 0 {
			t.Fatalf("%s: no games", target)
		}
		listed = append(listed, boards...)
		return fmt.Sprintf("%d games, %d to %d", len(boards), boards[0], boards[len(boards)-1])
	})
	want := make([]int, len(all))
	for i, g := range all {
		want[i] = g.Board
	}
	if !slices.Equal(listed, want) {
		t.Errorf("the pages list %d games, not the listing's %d in its order", len(listed), len(want))
	}
	// Pages 2 and 3 read the game of their cursor and one key past the
	// page besides what page 1 reads.
	if len(reads) != 4 || reads[1] > reads[0]+2 || reads[2] > reads[0]+2 {
		t.Errorf("reads of each page %v: want 4 pages, pages 2 and 3 reading no more than page 1 and 2", reads)
	}
	reportTargets(s, &report, gameLink, "games", "/games?page=3", "/games?state=finished&page=2", "/games?page=9", "/games?after=x", "/games?after=0")
	golden.Check(t, "testdata/games-pages.txt", report.String(), *update)
}

// TestStandingsPagedByKey: /standings pages through the standings of
// 311 players 100 a page by the link each page gives, which starts the
// next page after the last line of the page (after=RATING:userid): the
// pages together are the standings, each player once, ranked 1 to 311 in
// their order, and page 3 reads as many keys and records as page 1 but
// the one key it looks past the page (page 3 by number read the 200 keys
// of the pages before it besides). An old link, ?page=3, is redirected
// to the page after the last line of page 2; ?page=9, past the end, is
// an empty page; an after that is no cursor is refused. The pages' ranks,
// counts and links are in testdata/standings-pages.txt.
func TestStandingsPagedByKey(t *testing.T) {
	s, cs := pagedSite(t, benchstore.Options{Games: 1400, Players: 350, Running: 0, Seed: 5, Now: start, Span: 365 * 24 * time.Hour})
	var all []engine.Standing
	if err := s.d.View(func(tx engine.Tx) (err error) {
		all, err = s.e.Standings(tx, "lyngk")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`<td class="num" data-label="Rank">(\d+)</td><td data-label="Player"><a href="/player/([^"]+)">`)
	var report strings.Builder
	var listed []string
	reads := walk(t, s, cs, "/standings", &report, func(target, body string) string {
		ms := line.FindAllStringSubmatch(body, -1)
		if len(ms) == 0 {
			t.Fatalf("%s: no lines", target)
		}
		for _, m := range ms {
			if rank, _ := strconv.Atoi(m[1]); rank != len(listed)+1 {
				t.Errorf("%s: %s ranked %d, the %dth line", target, m[2], rank, len(listed)+1)
			}
			listed = append(listed, m[2])
		}
		return fmt.Sprintf("%d players, ranks %s to %s", len(ms), ms[0][1], ms[len(ms)-1][1])
	})
	var want []string
	for _, p := range all {
		want = append(want, p.ID)
	}
	if len(want) <= 300 || !slices.Equal(listed, want) {
		t.Errorf("the pages list %d players, not the standings' %d in their order", len(listed), len(want))
	}
	// Pages 2 and 3 read no more than page 1: their cursor is no read.
	if len(reads) != 4 || reads[1] > reads[0] || reads[2] > reads[0] {
		t.Errorf("reads of each page %v: want 4 pages, pages 2 and 3 reading no more than page 1", reads)
	}
	reportTargets(s, &report, line, "players", "/standings?page=3", "/standings?page=9", "/standings?after=x", "/standings?after=NaN:bob",
		"/standings?after=1500:Bob", "/standings?after=9999:zz&page=2")
	golden.Check(t, "testdata/standings-pages.txt", report.String(), *update)
}

// pagedSite is a public site of both games over a store bench-store's
// generator filled as o says, its pages reading through a countingStore.
func pagedSite(t *testing.T, o benchstore.Options) (*site, *countingStore) {
	t.Helper()
	s := newSiteOf(t, true, append(offered(), games.Game{Rules: yinsh.Rules}))
	_, err := benchstore.Generate(context.Background(), s.e, func(fn func(engine.Tx) error) error {
		return s.db.Update(func(tx *store.Tx) error { return fn(tx) })
	}, o)
	if err != nil {
		t.Fatal(err)
	}
	cs := &countingStore{Store: s.d}
	h, err := web.New(web.Config{Store: cs, Engine: s.e, Public: true, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	s.h = h
	return s, cs
}

// walk follows the next-page links from target to the last page, writing
// to report each page's line (what page says of its body) and its link
// on, and returns the keys and records each page read.
func walk(t *testing.T, s *site, cs *countingStore, target string, report *strings.Builder, page func(target, body string) string) []int64 {
	t.Helper()
	var reads []int64
	for target != "" {
		cs.reads.Store(0)
		res, body := s.get("GET", target)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d", target, res.StatusCode)
		}
		reads = append(reads, cs.reads.Load())
		fmt.Fprintf(report, "GET %s: %s\n", target, page(target, body))
		target = ""
		if more := nextPage.FindStringSubmatch(body); more != nil {
			fmt.Fprintf(report, "  %s\n", more[0])
			target = strings.ReplaceAll(more[1], "&amp;", "&")
		}
	}
	t.Logf("reads of each page: %v", reads)
	return reads
}

// reportTargets writes to report each target's status and redirect, and
// on a page the count of its lines (matches of line).
func reportTargets(s *site, report *strings.Builder, line *regexp.Regexp, noun string, targets ...string) {
	for _, target := range targets {
		res, body := s.get("GET", target)
		fmt.Fprintf(report, "GET %s: %d %s", target, res.StatusCode, res.Header.Get("Location"))
		if res.StatusCode == http.StatusOK {
			fmt.Fprintf(report, "%d %s", len(line.FindAllString(body, -1)), noun)
		}
		report.WriteString("\n")
	}
}

// TestPagesWithin100KB: every listing page at its largest, its lines as
// long as they get (userids of 16 characters, each game ended by a
// resignation after a move each: the longest status), is at most 100 KB:
// the front page, a full page of /games, of a player's games (the first
// player plays in every game) and of the standings.
func TestPagesWithin100KB(t *testing.T) {
	s := newSite(t, true)
	const players, gamesPlayed = 120, 240
	at := start.Add(-30 * 24 * time.Hour)
	err := s.d.Update(context.Background(), "setup", func(tx *store.Tx) error {
		var ids []string
		for i := range players {
			id := fmt.Sprintf("Longest-Useri%03d", i)
			ids = append(ids, id)
			if err := s.e.BulkAccount(tx, id, fmt.Sprintf("p%d@players.example", i), "x", at); err != nil {
				return err
			}
		}
		for i := range gamesPlayed {
			board, err := s.e.BulkChallenge(tx, "lyngk", "", [2]string{ids[0], ids[1+i%(players-1)]}, at, false)
			if err != nil {
				return err
			}
			pos := lyngk.New(board, lyngk.Standard)
			var moves []string
			for range 2 {
				m := pos.LegalPlain(nil)[0]
				if err := pos.Apply(m); err != nil {
					return err
				}
				moves = append(moves, m.String())
			}
			when := at.Add(time.Duration(i) * time.Minute)
			if err := s.e.BulkPlay(tx, board, moves, []time.Time{when, when}, engine.EndResign, when, false); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"/", "/games", "/games?state=finished", "/player/Longest-Useri000", "/standings"} {
		res, body := s.get("GET", target)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d", target, res.StatusCode)
		}
		rows := strings.Count(body, "<tr><td")
		t.Logf("%s: %d lines, %d bytes", target, rows, len(body))
		if len(body) > 100<<10 {
			t.Errorf("%s: %d bytes with %d lines, over 100 KB", target, len(body), rows)
		}
		if target != "/" && rows < 100 {
			t.Errorf("%s: %d lines, not a full page", target, rows)
		}
	}
}
