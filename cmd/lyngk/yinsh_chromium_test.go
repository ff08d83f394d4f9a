package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine/daemon"
	"lyngk.example/lyngk/engine/web"
	"lyngk.example/lyngk/engine/yinsh"
	"lyngk.example/lyngk/engine/yinshpicture"
	"lyngk.example/lyngk/store"
)

// yinshPieceColor is the colour of each player's pieces in the picture.
var yinshPieceColor = [3]color.RGBA{{}, {0xFA, 0xFA, 0xF6, 0xFF}, {0x22, 0x22, 0x22, 0xFF}}

// chromiumShot loads url in headless Chromium at width×height and returns
// the screenshot; it skips without Chromium outside CI and fails in CI, as
// TestChromiumBoardMail does.
func chromiumShot(t *testing.T, url string, width, height int) image.Image {
	t.Helper()
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") == "" {
			t.Skipf("chromium not installed: %v", err)
		}
		t.Fatalf("chromium not installed in CI: %v", err)
	}
	dir := t.TempDir()
	shot := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--hide-scrollbars", "--user-data-dir="+filepath.Join(dir, "profile"),
		fmt.Sprintf("--window-size=%d,%d", width, height), "--screenshot="+shot, url)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	b, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dx() != width || img.Bounds().Dy() != height {
		t.Fatalf("screenshot is %v, want %dx%d", img.Bounds(), width, height)
	}
	return img
}

// checkYinshPieces checks, on a screenshot where the picture lies at
// (ox, oy), every marker's colour at its point and every ring's on its
// stroke.
func checkYinshPieces(t *testing.T, img image.Image, ox, oy int, g *yinsh.Game) {
	t.Helper()
	pieces := 0
	for p := range yinsh.Point(yinsh.NumPoints) {
		pl, ring := g.Piece(p)
		if pl == 0 {
			continue
		}
		pieces++
		x, y := yinshpicture.Center(p)
		dx := 4
		if ring {
			dx = 11
		}
		if got := img.At(ox+int(x)+dx, oy+int(y)); !nearColor(got, yinshPieceColor[pl]) {
			t.Errorf("%s (player %d, ring %v): screenshot colour %v, want %v", p, pl, ring, got, yinshPieceColor[pl])
		}
	}
	if pieces < 20 {
		t.Errorf("only %d pieces checked", pieces)
	}
}

// TestChromiumYinsh renders a YINSH board mail's HTML part and the game
// page of the same game in headless Chromium and checks
// each screenshot: the picture found on it, every ring and marker in its
// colour at its point. LYNGK_YINSH_SCREENSHOTS=DIR keeps them (the
// engine/README.md's yinsh-board-mail.png and yinsh-game.png).
func TestChromiumYinsh(t *testing.T) {
	if _, err := exec.LookPath("chromium"); err != nil && os.Getenv("CI") == "" {
		t.Skipf("chromium not installed: %v", err)
	}
	db := filepath.Join(t.TempDir(), "lyngk.db")
	signupConfirmed(t, db, "alice@example.com", "alice", "pw1", "s1@client.example")
	signupConfirmed(t, db, "bob@example.com", "bob", "pw2", "s2@client.example")
	send := func(from, subject string) [][]byte {
		return processMails(t, db, rawMail{from: from + "@example.com", subject: subject,
			id: fmt.Sprintf("%d.%s@client.example", time.Now().UnixNano(), from)})
	}
	send("alice", "yinsh challenge alice bob")
	g := yinsh.New(yinsh.Normal)
	var last [][]byte
	for _, s := range strings.Fields(yinshGame)[:31] {
		from, pw := "alice", "pw1"
		if g.Turn() == 2 {
			from, pw = "bob", "pw2"
		}
		last = send(from, fmt.Sprintf("yinsh move 101 %s %s %s", from, pw, s))
		tn, _, _ := yinsh.ParseTurn(s)
		if err := g.Apply(tn); err != nil {
			t.Fatal(err)
		}
	}
	var parts []mimePart
	for _, raw := range last {
		if bytes.Contains(raw, []byte("\nTo: <alice@example.com>")) {
			parts = leaves(t, raw)
		}
	}
	if len(parts) != 3 {
		t.Fatalf("board mail to alice has %d parts", len(parts))
	}
	dir := t.TempDir()
	cid := strings.Trim(parts[2].header.Get("Content-Id"), "<>")
	html := strings.ReplaceAll(string(parts[1].body), "cid:"+cid, "board.png")
	if err := os.WriteFile(filepath.Join(dir, "board.png"), parts[2].body, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mail.html"), []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	pic, err := png.Decode(bytes.NewReader(parts[2].body))
	if err != nil {
		t.Fatal(err)
	}
	mail := chromiumShot(t, "file://"+filepath.Join(dir, "mail.html"), 600, 1500)
	ox, oy, ok := locate(mail, pic)
	if !ok {
		t.Fatal("the board picture is not on the mail's screenshot")
	}
	checkYinshPieces(t, mail, ox, oy, &g)

	// The game page, served by the web part on a loopback port.
	sdb, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	h, err := web.New(web.Config{Store: daemon.New(daemon.Config{DB: sdb}), Engine: reader(t), Public: true, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	page := chromiumShot(t, srv.URL+"/game/101", 1000, 1100)
	// The page draws the picture as inline SVG: find the PNG's twin by a
	// marker of each colour at its point instead of by pixels.
	found := false
	for oy := 0; oy < 400 && !found; oy++ {
		for ox := 0; ox < 400 && !found; ox++ {
			x, y := yinshpicture.Center(yinsh.Point(0))
			if !nearColor(page.At(ox+int(x), oy+int(y)), color.RGBA{0xE9, 0xE4, 0xD4, 0xFF}) && !nearColor(page.At(ox+int(x), oy+int(y)), color.RGBA{0xA6, 0x9C, 0x86, 0xFF}) {
				continue
			}
			match := true
			for p := range yinsh.Point(yinsh.NumPoints) {
				if pl, ring := g.Piece(p); pl != 0 && !ring {
					px, py := yinshpicture.Center(p)
					if !nearColor(page.At(ox+int(px)+4, oy+int(py)), yinshPieceColor[pl]) {
						match = false
						break
					}
				}
			}
			if match {
				found = true
				checkYinshPieces(t, page, ox, oy, &g)
			}
		}
	}
	if !found {
		t.Error("the board is not on the game page's screenshot")
	}
	if keep := os.Getenv("LYNGK_YINSH_SCREENSHOTS"); keep != "" {
		for name, img := range map[string]image.Image{"yinsh-board-mail.png": mail, "yinsh-game.png": page} {
			var b bytes.Buffer
			if err := png.Encode(&b, img); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(keep, name), b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
