package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-message"

	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/engine/lyngkpicture"
	"lyngk.example/lyngk/mailer"
)

// processMails runs `lyngk process -db DB -mbox -` on one mail and returns
// the replies as the raw mails it wrote.
func processMails(t *testing.T, db string, m rawMail) [][]byte {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run([]string{"process", "-db", db, "-mbox", "-"}, bytes.NewReader(m.bytes()), &out, &errb); code != 0 {
		t.Fatalf("process %q: exit %d: %s", m.subject, code, errb.String())
	}
	msgs, err := mailer.ReadMbox(&out)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

// mimePart is one leaf of a composed mail.
type mimePart struct {
	path   string // content types from the root, "multipart/alternative/text/plain"
	header message.Header
	body   []byte
}

// leaves reads raw and returns its leaf parts in order, decoded.
func leaves(t *testing.T, raw []byte) []mimePart {
	t.Helper()
	e, err := message.Read(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var out []mimePart
	var walk func(e *message.Entity, path string)
	walk = func(e *message.Entity, path string) {
		ct, _, _ := e.Header.ContentType()
		path = strings.TrimPrefix(path+"/"+ct, "/")
		if mr := e.MultipartReader(); mr != nil {
			for {
				p, err := mr.NextPart()
				if err == io.EOF {
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				walk(p, path)
			}
		}
		b, err := io.ReadAll(e.Body)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, mimePart{path, e.Header, b})
	}
	walk(e, "")
	return out
}

// boardGame plays board 101 through `lyngk process` to a middle game:
// alice and bob signed up, a few moves, bob's last with a comment. It
// returns the store and the last mails (to alice first).
func boardGame(t *testing.T) (db string, last [][]byte, moves []string) {
	t.Helper()
	db = filepath.Join(t.TempDir(), "lyngk.db")
	send := func(from, subject, body string) [][]byte {
		return processMails(t, db, rawMail{from: from + "@example.com", subject: subject, body: body,
			id: fmt.Sprintf("%d.%s@client.example", time.Now().UnixNano(), from)})
	}
	signupConfirmed(t, db, "alice@example.com", "alice", "pw1", "s1@client.example")
	signupConfirmed(t, db, "bob@example.com", "bob", "pw2", "s2@client.example")
	send("alice", "lyngk challenge alice bob", "")
	// Legal moves chosen by the rules, the same every run.
	g := lyngk.New(101, lyngk.Standard)
	for range 8 {
		legal := g.Legal(nil)
		ss := make([]string, len(legal))
		for i, m := range legal {
			ss[i] = m.String()
		}
		slices.Sort(ss)
		m, _, _ := lyngk.ParseMove(ss[len(ss)/3])
		if err := g.Apply(m); err != nil {
			t.Fatal(err)
		}
		moves = append(moves, ss[len(ss)/3])
	}
	for i, mv := range moves {
		from, pw := "alice", "pw1"
		if i%2 == 1 {
			from, pw = "bob", "pw2"
		}
		body := ""
		if i == len(moves)-1 {
			body = "Your move, alice. Mind the blacK stacks!\n"
		}
		last = send(from, fmt.Sprintf("lyngk move 101 %s %s %s", from, pw, mv), body)
	}
	return db, last, moves
}

// TestProcessBoardMailMIME checks a board mail as `lyngk process` writes it:
// multipart/alternative, the text part first and exactly the text of a
// text-only mail, then multipart/related with the HTML and the PNG it
// names by cid:; after `change format bob pw2 text` bob's board mails are
// one text/plain part with the same text.
func TestProcessBoardMailMIME(t *testing.T) {
	db, last, _ := boardGame(t)
	var toAlice []byte
	for _, raw := range last {
		if bytes.Contains(raw, []byte("\nTo: <alice@example.com>")) {
			toAlice = raw
		}
	}
	if toAlice == nil {
		t.Fatalf("no board mail to alice among %d", len(last))
	}
	parts := leaves(t, toAlice)
	var paths []string
	for _, p := range parts {
		paths = append(paths, p.path)
	}
	want := []string{"multipart/alternative/text/plain", "multipart/alternative/multipart/related/text/html",
		"multipart/alternative/multipart/related/image/png"}
	if strings.Join(paths, " ") != strings.Join(want, " ") {
		t.Fatalf("parts %q, want %q", paths, want)
	}
	in, err := mailer.Parse(bytes.NewReader(toAlice), maxMailSize)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.ReplaceAll(string(parts[0].body), "\r\n", "\n"); got != in.Body || !strings.Contains(got, "bob writes:") {
		t.Errorf("text part %q is not the mail's text %q", got, in.Body)
	}
	if _, p, _ := parts[0].header.ContentType(); p["format"] != "" || parts[0].header.Get("Content-Transfer-Encoding") != "quoted-printable" {
		t.Errorf("text part header %v", parts[0].header)
	}
	cid := strings.Trim(parts[2].header.Get("Content-Id"), "<>")
	if !bytes.Contains(parts[1].body, []byte(`src="cid:`+cid+`" width="600" height="600" alt="`)) {
		t.Errorf("the HTML does not show the picture %q", cid)
	}
	if cfg, err := png.DecodeConfig(bytes.NewReader(parts[2].body)); err != nil || cfg.Width != 600 || len(parts[2].body) > 100<<10 {
		t.Errorf("picture: %v, %+v, %d bytes", err, cfg, len(parts[2].body))
	}

	processMails(t, db, rawMail{from: "bob@example.com", subject: "change format bob pw2 text", id: "f1@client.example"})
	out := processMails(t, db, rawMail{from: "alice@example.com", subject: "lyngk move 101 alice pw1 f1-f2", id: "f2@client.example"})
	for _, raw := range out {
		p := leaves(t, raw)
		isBob := bytes.Contains(raw, []byte("\nTo: <bob@example.com>"))
		if isBob && (len(p) != 1 || p[0].path != "text/plain") || !isBob && len(p) != 3 {
			t.Errorf("bob (text) %v: parts %v", isBob, len(p))
		}
	}
}

// TestProcessThreads checks through `lyngk process` that the mails of a
// game to a player all carry the same first References entry, and answer
// the player's mail or that root.
func TestProcessThreads(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	var all [][]byte
	signupConfirmed(t, db, "alice@example.com", "alice", "pw1", "s1@client.example")
	signupConfirmed(t, db, "bob@example.com", "bob", "pw2", "s2@client.example")
	steps := []rawMail{
		{from: "alice@example.com", subject: "lyngk challenge alice bob"},
		{from: "bob@example.com", subject: "lyngk move 101 bob pw2 G,c1-d1"},
		{from: "alice@example.com", subject: "lyngk move 101 alice pw1 G,c1-d1"},
		{from: "bob@example.com", subject: "lyngk chat 101 bob pw2", body: "Hello\n"},
		{from: "alice@example.com", subject: "lyngk move 101 alice pw1 propose"},
	}
	for i, m := range steps {
		m.id = fmt.Sprintf("t%d@client.example", i)
		all = append(all, processMails(t, db, m)...)
	}
	roots := map[string]string{}
	for _, raw := range all {
		e, err := message.Read(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		to, subject := e.Header.Get("To"), e.Header.Get("Subject")
		refs := strings.Fields(e.Header.Get("References"))
		if len(refs) == 0 {
			t.Errorf("%q to %s: no References", subject, to)
			continue
		}
		if r, ok := roots[to]; ok && r != refs[0] {
			t.Errorf("%q to %s: thread root %s, earlier %s", subject, to, refs[0], r)
		}
		roots[to] = refs[0]
		if irt := e.Header.Get("In-Reply-To"); irt != refs[0] && irt != refs[len(refs)-1] {
			t.Errorf("%q to %s: In-Reply-To %s", subject, to, irt)
		}
	}
	if len(roots) != 2 || roots["<alice@example.com>"] == roots["<bob@example.com>"] {
		t.Errorf("roots %v, want one for each player", roots)
	}
}

// TestChromiumBoardMail renders the HTML part of a board mail, with its
// picture, in headless Chromium and checks the screenshot: its size, and
// the colour of each stack's top piece at its point, found where the
// picture lands on the page. It skips only when Chromium is missing
// outside CI; CI (CI=true, set by .ci/run, which installs chromium) fails
// instead. LYNGK_SCREENSHOT=FILE keeps the screenshot (engine/README.md's).
func TestChromiumBoardMail(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") == "" {
			t.Skipf("chromium not installed: %v", err)
		}
		t.Fatalf("chromium not installed in CI: %v", err)
	}
	_, last, moves := boardGame(t)
	var parts []mimePart
	for _, raw := range last {
		if bytes.Contains(raw, []byte("\nTo: <alice@example.com>")) {
			parts = leaves(t, raw)
		}
	}
	if len(parts) != 3 {
		t.Fatalf("board mail to alice has %d parts", len(parts))
	}
	// A mail client resolves cid: to the related part; the page here
	// names the file instead.
	dir := t.TempDir()
	cid := strings.Trim(parts[2].header.Get("Content-Id"), "<>")
	html := strings.ReplaceAll(string(parts[1].body), "cid:"+cid, "board.png")
	if err := os.WriteFile(filepath.Join(dir, "board.png"), parts[2].body, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mail.html"), []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	const width, height = 600, 1500
	shot := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--hide-scrollbars", "--user-data-dir="+filepath.Join(dir, "profile"),
		fmt.Sprintf("--window-size=%d,%d", width, height), "--screenshot="+shot,
		"file://"+filepath.Join(dir, "mail.html"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	b, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	if keep := os.Getenv("LYNGK_SCREENSHOT"); keep != "" {
		if err := os.WriteFile(keep, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dx() != width || img.Bounds().Dy() != height {
		t.Fatalf("screenshot is %v, want %dx%d", img.Bounds(), width, height)
	}
	pic, err := png.Decode(bytes.NewReader(parts[2].body))
	if err != nil {
		t.Fatal(err)
	}
	ox, oy, ok := locate(img, pic)
	if !ok {
		t.Fatal("the board picture is not on the screenshot")
	}
	// The position of the mail, replayed by the rules.
	g := lyngk.New(101, lyngk.Standard)
	for _, s := range moves {
		m, _, err := lyngk.ParseMove(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Apply(m); err != nil {
			t.Fatal(err)
		}
	}
	stacks := 0
	for p := range lyngk.Point(lyngk.NumPoints) {
		s := g.Stack(p)
		if s == "" {
			continue
		}
		stacks++
		x, y := lyngkpicture.Center(p)
		want, _ := lyngkpicture.Color(s[0])
		if got := img.At(ox+int(x), oy+int(y)+8); !nearColor(got, want) {
			t.Errorf("%s (%s): screenshot colour %v at its point, want %v", p, s, got, want)
		}
	}
	if stacks < 30 {
		t.Errorf("only %d stacks checked", stacks)
	}
}

// locate finds where pic lies on img, comparing a grid of its pixels.
func locate(img, pic image.Image) (x, y int, ok bool) {
	b := img.Bounds()
	for oy := 0; oy+pic.Bounds().Dy() <= b.Dy(); oy++ {
		for ox := 0; ox+pic.Bounds().Dx() <= b.Dx(); ox++ {
			match := true
			for py := 20; py < pic.Bounds().Dy() && match; py += 37 {
				for px := 13; px < pic.Bounds().Dx() && match; px += 41 {
					want := color.RGBAModel.Convert(pic.At(px, py)).(color.RGBA)
					match = nearColor(img.At(ox+px, oy+py), want)
				}
			}
			if match {
				return ox, oy, true
			}
		}
	}
	return 0, 0, false
}

// nearColor allows the small shifts of colour management in a browser.
func nearColor(c color.Color, want color.RGBA) bool {
	r, g, b, _ := c.RGBA()
	d := func(a uint32, b uint8) int { return max(int(a>>8)-int(b), int(b)-int(a>>8)) }
	return d(r, want.R) <= 8 && d(g, want.G) <= 8 && d(b, want.B) <= 8
}

// TestProcessReplyToErrorMail is the error-mail loop through `lyngk
// process`: bob answers an old board mail, gets the "moved on" error
// showing the current board, and answers that error with his move: the
// move is played (on old main the same error came back forever).
func TestProcessReplyToErrorMail(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	signupConfirmed(t, db, "alice@example.com", "alice", "pw1", "s1@client.example")
	signupConfirmed(t, db, "bob@example.com", "bob", "pw2", "s2@client.example")
	var old string
	for _, r := range process(t, db, rawMail{from: "alice@example.com", subject: "lyngk challenge alice bob", id: "c@client.example"}) {
		if r.to == "bob@example.com" {
			old = r.MessageID
		}
	}
	process(t, db, rawMail{from: "alice@example.com", subject: "lyngk move 101 alice pw1 G,c1-d1", id: "m1@client.example"})
	out := process(t, db, rawMail{from: "bob@example.com", subject: "Re: New Lyngk Board 101 alice", body: "B,b1-b2\n",
		id: "r1@client.example", inReplyTo: old})
	if len(out) != 1 || !strings.Contains(out[0].Body, "has moved on") && !strings.Contains(out[0].Body, "latest") {
		t.Fatalf("want the moved-on error, got %+v", out)
	}
	out = process(t, db, rawMail{from: "bob@example.com", subject: "Re: " + out[0].Subject, body: "B,b1-b2\n",
		id: "r2@client.example", inReplyTo: out[0].MessageID})
	if len(out) != 2 || !strings.Contains(out[0].Body, "B,b1-b2") || !strings.Contains(out[0].Body, "It is alice's turn.") {
		t.Fatalf("the reply to the error mail did not move: %+v", out)
	}
}

// TestProcessSNailReply is the s-nail reply through `lyngk
// process`: a reply with s-nail's attribution line and its default tab
// quoting of the whole board mail relays nothing to the opponent (on old
// main the attribution, or the whole quoted mail, became the comment and
// put ** on the subject); a line written above it is relayed exactly.
func TestProcessSNailReply(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	signupConfirmed(t, db, "alice@example.com", "alice", "pw1", "s1@client.example")
	signupConfirmed(t, db, "bob@example.com", "bob", "pw2", "s2@client.example")
	var toAlice reply
	for _, r := range process(t, db, rawMail{from: "alice@example.com", subject: "lyngk challenge alice bob", id: "c@client.example"}) {
		if r.to == "alice@example.com" {
			toAlice = r
		}
	}
	quote := "\"PBeM Server\" <lyngk@localhost> wrote:\n\t" + strings.ReplaceAll(strings.TrimSuffix(toAlice.Body, "\n"), "\n", "\n\t") + "\n"
	out := process(t, db, rawMail{from: "alice@example.com", subject: "Re: " + toAlice.Subject, body: "G,c1-d1\n\n" + quote,
		id: "r1@client.example", inReplyTo: toAlice.MessageID})
	var toBob reply
	for _, r := range out {
		if r.to == "bob@example.com" {
			toBob = r
		}
	}
	if toBob.Subject != "Lyngk Board 101 bob" || strings.Contains(toBob.Body, "writes:") {
		t.Fatalf("bob got %q with a comment:\n%s", toBob.Subject, toBob.Body)
	}
	out = process(t, db, rawMail{from: "bob@example.com", subject: "Re: " + toBob.Subject, body: "B,b1-b2\nYour turn, Alice.\n\n\"PBeM Server\" <lyngk@localhost> wrote:\n\tSummary of Lyngk Board 101\n",
		id: "r2@client.example", inReplyTo: toBob.MessageID})
	for _, r := range out {
		if r.to == "alice@example.com" && (r.Subject != "Lyngk Board 101 alice **" || !strings.Contains(r.Body, "bob writes:\nYour turn, Alice.\n\n")) {
			t.Errorf("alice got %q:\n%s", r.Subject, r.Body)
		}
	}
}
