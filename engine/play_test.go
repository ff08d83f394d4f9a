package engine_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/store"
)

// tokenOf is the reply token of board mail m (its Message-ID's).
func tokenOf(t *testing.T, m engine.Mail) string {
	t.Helper()
	local, _, _ := strings.Cut(m.MessageID, "@")
	tok, ok := strings.CutPrefix(local, "lyngk.")
	if !ok {
		t.Fatalf("mail %q carries no reply token: %q", m.Subject, m.MessageID)
	}
	return tok
}

// playWeb moves on the play page of token tok; the clock moves a second.
func (v *env) playWeb(tok, move string) ([]engine.Mail, error) {
	v.t.Helper()
	var out []engine.Mail
	var refused error
	err := v.db.Update(func(tx *store.Tx) error {
		var err error
		_, out, err = v.e.PlayToken(tx, tok, move, v.now)
		var r *engine.Refusal
		if errors.As(err, &r) {
			refused, err = r, nil
		}
		return err
	})
	if err != nil {
		v.t.Fatal(err)
	}
	if !v.hold {
		out = append(out, v.reviews()...)
	}
	v.now = v.now.Add(time.Second)
	return out, refused
}

// TestPlayTokenSameMails: a move on the play page sends the very mails a
// reply by mail sends (same recipients, subjects, texts, HTML, pictures and
// reply tokens, byte for byte) and leaves the same games and tokens;
// only the threading of the mover's own mail differs, as it answers no
// mail of theirs.
func TestPlayTokenSameMails(t *testing.T) {
	byMail, byWeb := newWorld(t), newWorld(t)
	pos := lyngk.New(101, lyngk.Standard)
	for _, s := range []string{"G,f5-f4", byMail.bobMove} {
		m, _, _ := lyngk.ParseMove(s)
		if err := pos.Apply(m); err != nil {
			t.Fatal(err)
		}
	}
	move := pos.Legal(nil)[7].String()
	byWeb.now = byMail.now
	mails := byMail.reply(byMail.fresh, addr("alice"), move+"\n")
	web, err := byWeb.playWeb(tokenOf(t, byWeb.fresh), move)
	if err != nil {
		t.Fatalf("play %s: %v", move, err)
	}
	if len(mails) != 3 || len(web) != len(mails) {
		t.Fatalf("want 3 board mails both ways, got %d by mail, %d on the web:\n%s", len(mails), len(web), format(web))
	}
	for i := range mails {
		m, w := mails[i], web[i]
		if !slices.Equal(m.To, w.To) || m.Subject != w.Subject || m.Body != w.Body || m.MessageID != w.MessageID ||
			m.HTML != w.HTML || string(m.Picture) != string(w.Picture) || m.PictureID != w.PictureID {
			t.Errorf("mail %d differs:\nby mail:\n%s\non the web:\n%s", i, format(mails[i:i+1]), format(web[i:i+1]))
		}
		if i > 0 && (m.InReplyTo != w.InReplyTo || !slices.Equal(m.References, w.References) || m.AutoSubmitted != w.AutoSubmitted) {
			t.Errorf("mail %d: threading differs:\n%s\n%s", i, format(mails[i:i+1]), format(web[i:i+1]))
		}
	}
	if w := web[0]; w.AutoSubmitted != "auto-generated" || len(w.References) != 1 || w.InReplyTo != w.References[0] {
		t.Errorf("the mover's web mail: want an auto-generated mail in the game's thread, got:\n%s", format(web[:1]))
	}
	// (Password hashes differ: bcrypt salts its own way.)
	buckets := []string{store.BucketGames, store.BucketTokens}
	if a, b := byMail.dump(buckets...), byWeb.dump(buckets...); a != b {
		t.Errorf("the store differs:\n%s", diff(a, b))
	}
}

// TestPlayTokenSpent: a token moves once. A second move with it, on the
// web or by mail, gets the stale-token refusal, with the text of the
// error mail, and changes nothing.
func TestPlayTokenSpent(t *testing.T) {
	w := newWorld(t)
	v, err := tokenGame(w.env, tokenOf(t, w.fresh))
	if err != nil || !v.YourTurn || len(v.Legal) == 0 || v.User != "alice" || v.Board != 101 {
		t.Fatalf("token game: %+v, %v", v, err)
	}
	if want := len(v.Position.Legal()); len(v.Legal) != want {
		t.Errorf("%d legal moves listed, want %d", len(v.Legal), want)
	}
	tok := tokenOf(t, w.fresh)
	if out, err := w.playWeb(tok, v.Legal[0]); err != nil || len(out) != 3 {
		t.Fatalf("first move: %v\n%s", err, format(out))
	}
	before := w.dump()
	out, err := w.playWeb(tok, v.Legal[1])
	var r *engine.Refusal
	if !errors.As(err, &r) || r.Key != "token-stale" || len(out) != 0 {
		t.Fatalf("second move with the same token: want token-stale, got %v, %s", err, format(out))
	}
	byMail := w.reply(w.fresh, addr("alice"), v.Legal[1]+"\n")
	if len(byMail) != 1 || !strings.HasPrefix(byMail[0].Body, r.Text) {
		t.Errorf("want the mail refusal to start with the web's text %q, got:\n%s", r.Text, format(byMail))
	}
	if _, err := tokenGame(w.env, tok); !errors.As(err, &r) || r.Key != "token-stale" {
		t.Errorf("page of a spent token: want token-stale, got %v", err)
	}
	if after := withoutNewTokens(before, w.dump()); after != before {
		t.Errorf("refused moves changed the state:\n%s", diff(before, after))
	}
}

// aliceMove is the i-th legal move without a claim of alice in the
// world's game 101.
func (w *world) aliceMove(i int) string {
	pos := lyngk.New(101, lyngk.Standard)
	for _, s := range []string{"G,f5-f4", w.bobMove} {
		m, _, _ := lyngk.ParseMove(s)
		if err := pos.Apply(m); err != nil {
			w.t.Fatal(err)
		}
	}
	return pos.LegalPlain(nil)[i].String()
}

func tokenGame(v *env, tok string) (*engine.TokenView, error) {
	var g *engine.TokenView
	var refused error
	err := v.db.View(func(tx *store.Tx) error {
		var err error
		g, err = v.e.TokenGame(tx, tok)
		var r *engine.Refusal
		if errors.As(err, &r) {
			refused, err = r, nil
		}
		return err
	})
	if err != nil {
		v.t.Fatal(err)
	}
	return g, refused
}

// TestPlayTokenRefusals: what a reply by mail refuses, the play page
// refuses with the same text (the error mail starts with it), and nothing
// changes.
func TestPlayTokenRefusals(t *testing.T) {
	w := newWorld(t)
	tests := []struct {
		name, key string
		mail      engine.Mail // whose token is used; zero: a forged one
		tok, move string
	}{
		{name: "forged", key: "token-unknown", tok: strings.Repeat("a", 32), move: "e4-e5"},
		{name: "empty token", key: "token-unknown", move: "e4-e5"},
		{name: "long token", key: "token-unknown", tok: strings.Repeat("b", 5000), move: "e4-e5"},
		{name: "not your turn", key: "not-your-turn", mail: w.freshBob, move: "e4-e5"},
		{name: "illegal", key: "illegal", mail: w.fresh, move: "G," + w.aliceMove(1)},
		{name: "notation", key: "notation", mail: w.fresh, move: "zz-q9"},
		{name: "empty move", key: "no-command", mail: w.fresh, move: " \n"},
		{name: "game over", key: "token-over", mail: w.over102, move: "e4-e5"},
		{name: "subscriber", key: "token-not-player", mail: w.carol101, move: "e4-e5"},
		{name: "stale", key: "token-stale", mail: w.old, move: "e4-e5"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tok := tc.tok
			from := addr("alice")
			if tc.mail.MessageID != "" {
				tok, from = tokenOf(t, tc.mail), tc.mail.To[0]
			}
			before := w.dump()
			out, err := w.playWeb(tok, tc.move)
			var r *engine.Refusal
			if !errors.As(err, &r) || r.Key != tc.key || len(out) != 0 {
				t.Fatalf("want refusal %s, got %v, %s", tc.key, err, format(out))
			}
			if after := w.dump(); after != before {
				t.Errorf("refused move changed the state:\n%s", diff(before, after))
			}
			if tc.mail.MessageID == "" || tc.key == "no-command" {
				return
			}
			byMail := w.reply(tc.mail, from, tc.move+"\n")
			if len(byMail) != 1 || !strings.HasPrefix(byMail[0].Body, r.Text) {
				t.Errorf("want the error mail to start with %q, got:\n%s", r.Text, format(byMail))
			}
		})
	}
}

// TestBoardMailWebLine: with Config.WebURL, every board mail to a player
// says where to move on the web, in both parts, with that mail's token;
// subscribers' mails and finished games' have no such line.
func TestBoardMailWebLine(t *testing.T) {
	v := newEnv(t, func(c *engine.Config) { c.WebURL = "https://lyngk.example.net/" })
	v.signup("alice", "bob", "carol")
	out := v.cmd(addr("alice"), "lyngk challenge alice bob")
	v.cmd(addr("carol"), "lyngk subscribe 101 carol pw-carol")
	out = append(out, v.cmd(addr("alice"), "lyngk move 101 alice pw-alice G,f5-f4")...)
	for _, m := range out {
		url := "https://lyngk.example.net/play/" + tokenOf(t, m)
		if m.To[0] == addr("carol") {
			if strings.Contains(m.Body, "Move on the web") || strings.Contains(m.HTML, "Move on the web") {
				t.Errorf("a subscriber got a play link:\n%s", m.Body)
			}
			continue
		}
		if !strings.Contains(m.Body, "\n\nMove on the web:\n"+url+"\n") {
			t.Errorf("mail to %v: no web line with its token in the text:\n%s", m.To, m.Body)
		}
		if !strings.Contains(m.HTML, `Move on the web: <a href="`+url+`" `) {
			t.Errorf("mail to %v: no web link with its token in the HTML:\n%s", m.To, m.HTML)
		}
	}
	checkGolden(t, "board-web", format(out[len(out)-3:]))
	checkGolden(t, "board-web-html", out[len(out)-3].HTML)
	end := v.cmd(addr("bob"), "lyngk resign 101 bob pw-bob")
	for _, m := range end {
		if strings.Contains(m.Body, "Move on the web") || strings.Contains(m.HTML, "Move on the web") {
			t.Errorf("game-over mail to %v has a play link", m.To)
		}
	}
}
