package engine_test

import (
	"bytes"
	"image/png"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/draw"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/engine/lyngkpicture"
)

// TestHTMLPart checks the HTML part of a board mail against its golden
// file and against what is asked of it whatever the golden says:
// the same information as the text (status, players with claims and
// stacks, move list, comment), the picture by cid: with width, height and
// alt, the board block as <pre>, the line that a reply with the move is
// enough, at most 600 px wide, inline styles only, nothing external, no
// script, and what a player wrote escaped.
func TestHTMLPart(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	v.cmd(addr("alice"), "lyngk move 101 alice pw-alice G,c1-d1")
	out := v.mail(engine.Inbound{From: addr("bob"), Subject: "lyngk move 101 bob pw-bob B,b1-b2",
		Body: "Take <b>that</b> & more!\n"})
	var m engine.Mail
	for _, o := range out {
		if o.To[0] == addr("alice") {
			m = o
		}
	}
	if m.HTML == "" {
		t.Fatalf("no HTML part: %+v", out)
	}
	checkGolden(t, "board-html", m.HTML)
	h := m.HTML
	for _, want := range []string{
		"<h1", "Summary of Lyngk Board 101", "It is alice&#39;s turn.",
		`<img src="cid:` + m.PictureID + `" width="600" height="600" alt="Picture of Lyngk Board 101 after 2 moves. It is alice&#39;s turn."`,
		">alice<", ">bob<", ">Green<", ">Blue<", "0 stacks removed",
		"G,c1-d1", "B,b1-b2",
		"bob writes:", "Take &lt;b&gt;that&lt;/b&gt; &amp; more!",
		"just reply to this mail with your move",
		"max-width:600px",
	} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	// The board block, escaped, inside a <pre>.
	block := m.Body[strings.Index(m.Body, "Available Colors"):]
	block = block[:strings.Index(block, "   1   1   1")]
	if !regexp.MustCompile(`(?s)<pre[^>]*>[^<]*` + regexp.QuoteMeta(block)).MatchString(h) {
		t.Errorf("HTML lacks the board block in a <pre>:\n%s", block)
	}
	for _, bad := range []string{"<script", "<link", "<style", "http://", "https://", "url(", "<b>that"} {
		if strings.Contains(strings.ToLower(h), bad) {
			t.Errorf("HTML holds %q", bad)
		}
	}
	for _, w := range regexp.MustCompile(`width[:=]"?(\d+)`).FindAllStringSubmatch(h, -1) {
		if len(w[1]) > 3 || w[1] > "600" && len(w[1]) == 3 {
			t.Errorf("HTML is wider than 600 px: %s", w[0])
		}
	}
	img, err := png.DecodeConfig(bytes.NewReader(m.Picture))
	if err != nil {
		t.Fatal(err)
	}
	if img.Width != lyngkpicture.Width || img.Height != lyngkpicture.Height || len(m.Picture) > 100<<10 {
		t.Errorf("picture %dx%d, %d bytes", img.Width, img.Height, len(m.Picture))
	}
	// The writer's own copy has no comment; the new-game mail says too
	// that a reply is enough.
	for _, o := range out {
		if o.To[0] == addr("bob") && strings.Contains(o.HTML, "writes:") {
			t.Error("the writer's own HTML shows the comment")
		}
	}
}

// TestChangeFormat switches a player to text only and back: text gives
// the text part alone, the same text as before.
func TestChangeFormat(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	out := v.cmd(addr("bob"), "change format bob pw-bob text")
	checkGolden(t, "change-format", format(out))
	if out := v.cmd(addr("bob"), "change format bob pw-bob pdf"); len(out) != 1 || !strings.Contains(out[0].Body, "change format USERID PASSWORD html|text") {
		t.Errorf("bad format word: %s", format(out))
	}
	out = v.cmd(addr("alice"), "lyngk challenge alice bob")
	parts := map[string]bool{}
	for _, m := range out {
		parts[m.To[0]] = m.HTML != ""
	}
	if !parts[addr("alice")] || parts[addr("bob")] {
		t.Errorf("HTML parts by recipient %v, want alice only", parts)
	}
	// The same text, but for the last line: how to move to alice, whose
	// turn it is to bob.
	if a, b := strings.TrimSuffix(out[0].Body, howToMove), strings.TrimSuffix(out[1].Body, notYours); a != b || a == out[0].Body || b == out[1].Body {
		t.Error("the text differs between the formats")
	}
	v.cmd(addr("bob"), "change format bob pw-bob HTML")
	for _, m := range v.cmd(addr("alice"), "lyngk move 101 alice pw-alice G,c1-d1") {
		if m.HTML == "" || m.Picture == nil {
			t.Errorf("no HTML for %s after change format html", m.To[0])
		}
	}
	// Somebody not in the game gets text: the server cannot know his wish.
	v.signup("carol")
	for _, m := range v.cmd("stranger@else.example", "lyngk show 101") {
		if m.HTML != "" {
			t.Error("a stranger got HTML")
		}
	}
}

// TestThreads follows every mail of one game to each player: new game,
// boards, an error, a chat, a draw offer and its refusal, a reminder and
// the game's end. Each starts its References with the same root for that
// player (and another for the other player), and answers either the mail
// it replies to or that root.
func TestThreads(t *testing.T) {
	v := newEnv(t, func(c *engine.Config) { c.NagAfter = 48 * time.Hour; c.ForfeitAfter = 96 * time.Hour })
	v.signup("alice", "bob")
	var all []engine.Mail
	step := func(from, subject, body string) {
		t.Helper()
		all = append(all, v.mail(engine.Inbound{From: addr(from), Subject: subject, Body: body})...)
	}
	step("alice", "lyngk challenge alice bob", "")
	step("bob", "lyngk move 101 bob pw-bob G,c1-d1", "")                  // not his turn: error
	step("alice", "lyngk move 101 alice pw-alice G,c1-d1", "Hello Bob\n") // board
	step("bob", "lyngk chat 101 bob pw-bob", "Hi!\n")
	step("bob", "lyngk move 101 bob pw-bob propose", "")
	step("alice", "lyngk move 101 alice pw-alice reject", "")
	// The latest board mail to bob, answered by a plain reply.
	var last engine.Mail
	for _, m := range all {
		if m.To[0] == addr("bob") && strings.HasPrefix(m.MessageID, "lyngk.") {
			last = m
		}
	}
	all = append(all, v.reply(last, addr("bob"), "B,b1-b2\n")...)
	v.now = v.now.Add(50 * time.Hour)
	all = append(all, v.tick()...) // reminder to alice
	v.now = v.now.Add(50 * time.Hour)
	all = append(all, v.tick()...) // forfeit: game over
	roots := map[string]string{}
	kinds := map[string]bool{}
	for _, m := range all {
		if len(m.References) == 0 {
			t.Errorf("%q to %s has no References", m.Subject, m.To[0])
			continue
		}
		root := m.References[0]
		if !strings.HasPrefix(root, "game-101.") {
			t.Errorf("%q to %s: References start with %q", m.Subject, m.To[0], root)
		}
		if r, ok := roots[m.To[0]]; ok && r != root {
			t.Errorf("%q to %s: root %q, earlier %q", m.Subject, m.To[0], root, r)
		}
		roots[m.To[0]] = root
		if m.InReplyTo != root && m.InReplyTo != m.References[len(m.References)-1] {
			t.Errorf("%q to %s: In-Reply-To %q answers neither the root nor its last reference", m.Subject, m.To[0], m.InReplyTo)
		}
		kinds[strings.Fields(m.Subject)[0]] = true
	}
	if roots[addr("alice")] == roots[addr("bob")] || len(roots) != 2 {
		t.Errorf("roots %v: want one per player", roots)
	}
	for _, k := range []string{"New", "Lyngk", "Nag:"} {
		if !kinds[k] {
			t.Errorf("no mail with a subject starting %q among %v", k, kinds)
		}
	}
}

// TestErrorMailAnswerable: an error mail that shows the current board
// carries the player's token, so that a reply to it moves: the "moved on"
// error of a reply to an old board mail, and "not your turn".
func TestErrorMailAnswerable(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	var old engine.Mail
	for _, m := range v.cmd(addr("alice"), "lyngk challenge alice bob") {
		if m.To[0] == addr("bob") {
			old = m
		}
	}
	v.cmd(addr("alice"), "lyngk move 101 alice pw-alice G,c1-d1")
	out := v.reply(old, addr("bob"), "B,b1-b2\n") // the game has moved on
	if len(out) != 1 || !strings.Contains(out[0].Body, "Summary of Lyngk Board 101") || !strings.HasPrefix(out[0].MessageID, "lyngk.") {
		t.Fatalf("moved-on error: %s", format(out))
	}
	if !strings.Contains(out[0].HTML, "just reply to this mail with your move") {
		t.Error("the error's HTML does not say a reply moves")
	}
	out = v.reply(out[0], addr("bob"), "B,b1-b2\n")
	if len(out) != 2 || !strings.Contains(out[0].Body, "B,b1-b2") {
		t.Fatalf("a reply to the moved-on error did not move: %s", format(out))
	}
	out = v.cmd(addr("bob"), "lyngk move 101 bob pw-bob c2-c3") // not his turn
	if len(out) != 1 || !strings.HasPrefix(out[0].MessageID, "lyngk.") {
		t.Fatalf("not-your-turn error without a token: %s", format(out))
	}
	// Only its player's: alice may not move with bob's error mail.
	out = v.reply(out[0], addr("alice"), "c2-c3\n")
	if len(out) != 1 || out[0].Subject != "Lyngk Board 101 Error" {
		t.Fatalf("alice replying to bob's error: %s", format(out))
	}
}

// TestHTMLPartEnded: the HTML part and the picture of the mails that end a
// game by resignation or by a decline say the result as the text does, not
// whose turn it is (the old main drew "to move" and wrote "(to move)" by
// the name of the player whose turn the position has, and "Game was a
// tie." for a cancelled game).
func TestHTMLPartEnded(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	v.firstMoves(101, [2]string{"alice", "bob"})
	resigned := v.cmd(addr("alice"), "lyngk resign 101 alice pw-alice")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	declined := v.cmd(addr("bob"), "lyngk decline 102 bob pw-bob")

	pos := lyngk.New(101, lyngk.Standard)
	for range 2 {
		legal := pos.LegalPlain(nil)
		slices.SortFunc(legal, func(a, b lyngk.Move) int { return strings.Compare(a.String(), b.String()) })
		if err := pos.Apply(legal[0]); err != nil {
			t.Fatal(err)
		}
	}
	names, fresh := [2]string{"alice", "bob"}, lyngk.New(102, lyngk.Standard)
	for _, tc := range []struct {
		name   string
		out    []engine.Mail
		pos    *lyngk.Game
		result string
		marks  [2]string
	}{
		{"resigned", resigned, &pos, "Game won by bob.", [2]string{"resigned", "won"}},
		{"declined", declined, &fresh, "Game cancelled.", [2]string{"cancelled", "cancelled"}},
	} {
		if len(tc.out) == 0 {
			t.Fatalf("%s: no mail", tc.name)
		}
		for _, m := range tc.out {
			if m.HTML == "" || !strings.Contains(m.HTML, tc.result) || strings.Contains(m.HTML, "to move") {
				t.Errorf("%s: HTML to %s lacks %q or says who is to move:\n%s", tc.name, m.To[0], tc.result, m.HTML)
			}
			want, err := lyngkpicture.Drawing.PNG(tc.pos, names, draw.Over(tc.marks))
			if err != nil {
				t.Fatal(err)
			}
			running, err := lyngkpicture.Drawing.PNG(tc.pos, names)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(m.Picture, want) || bytes.Equal(m.Picture, running) {
				t.Errorf("%s: the picture to %s does not say %q", tc.name, m.To[0], tc.marks)
			}
		}
	}
}

// TestTurnLines: the board mail to the player to move ends, in
// its text, with how to move, and its HTML part says that replying is
// enough; the other player's mail says whose turn it is instead, in both
// parts, and never that he should reply with his move. A comment's line
// breaks are <br> in the HTML part (Outlook, w3m and lynx lose
// white-space:pre-wrap). On the main before, both players' HTML said "To
// move, just reply", the text said neither, and the comment relied on
// pre-wrap.
func TestTurnLines(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	out := v.mail(engine.Inbound{From: addr("alice"), Subject: "lyngk move 101 alice pw-alice G,c1-d1", Body: "one\ntwo <3\n"})
	if len(out) != 2 {
		t.Fatalf("%d mails", len(out))
	}
	for _, m := range out {
		toMove := m.To[0] == addr("bob")
		last := "It is bob's turn, not yours: you get a mail when bob has moved.\n"
		box := "It is bob's turn, not yours: you get a mail when bob has moved."
		if toMove {
			last = "\nTo move, reply with your move, like G,c1-d1 (send \"help notation\").\n"
			box = "To move, just reply to this mail with your move"
		}
		if !strings.HasSuffix(m.Body, last) {
			t.Errorf("%s: text ends\n%s\nwant %q", m.To[0], m.Body[len(m.Body)-200:], last)
		}
		if !strings.Contains(m.HTML, box) || !toMove && strings.Contains(m.HTML, "just reply") {
			t.Errorf("%s: HTML part lacks %q (or says to reply)\n%s", m.To[0], box, m.HTML)
		}
		if toMove && !strings.Contains(m.HTML, ">one<br>\ntwo &lt;3</p>") {
			t.Errorf("comment's lines not apart by <br>:\n%s", m.HTML)
		}
		if regexp.MustCompile(`<p [^>]*pre-wrap`).MatchString(m.HTML) {
			t.Errorf("%s: HTML relies on pre-wrap for a text's lines", m.To[0])
		}
	}
}

// TestOneSubject: with "change subject alice ... game"
// every mail of a game to alice has the subject "Lyngk Board 101
// alice-bob" and opens with what the gamerz subject said; bob keeps the
// gamerz subjects byte for byte; "gamerz" brings them back.
func TestOneSubject(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	out := v.cmd(addr("alice"), "change subject alice pw-alice GAME")
	if len(out) != 1 || !strings.HasPrefix(out[0].Body, "Every mail of a game of alice now has one subject") {
		t.Fatalf("change subject: %s", format(out))
	}
	var got []string
	keep := func(out []engine.Mail) {
		for _, m := range out {
			first, _, _ := strings.Cut(m.Body, "\n")
			got = append(got, m.To[0]+" | "+m.Subject+" | "+first)
		}
	}
	keep(v.cmd(addr("alice"), "lyngk challenge alice bob"))
	keep(v.mail(engine.Inbound{From: addr("alice"), Subject: "lyngk move 101 alice pw-alice G,c1-d1", Body: "Hi!\n"}))
	keep(v.cmd(addr("alice"), "lyngk move 101 alice pw-alice a1-b2"))
	keep(v.mail(engine.Inbound{From: addr("bob"), Subject: "lyngk chat 101 bob pw-bob", Body: "Hello\n"}))
	v.cmd(addr("alice"), "change subject alice pw-alice gamerz")
	keep(v.cmd(addr("alice"), "lyngk show 101"))
	want := []string{
		"alice@players.example | Lyngk Board 101 alice-bob | New Lyngk Board 101 alice",
		"bob@players.example | New Lyngk Board 101 alice | A new Lyngk board (101) has been started",
		"alice@players.example | Lyngk Board 101 alice-bob | Lyngk Board 101 bob",
		"bob@players.example | Lyngk Board 101 bob ** | Summary of Lyngk Board 101",
		"alice@players.example | Lyngk Board 101 alice-bob | Lyngk Board 101 Error",
		"alice@players.example | Lyngk Board 101 alice-bob | Lyngk Board 101 chat bob",
		"bob@players.example | Lyngk Board 101 chat bob | bob writes about Lyngk Board 101:",
		"alice@players.example | Lyngk Board 101 bob | Summary of Lyngk Board 101",
	}
	if !slices.Equal(got, want) {
		t.Errorf("mails:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
