package engine_test

import (
	"encoding/json"
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/store"
	"lyngk.example/lyngk/templates"
)

// The quoted board mail as clients quote it, shortened.
const quotedBoard = "> Summary of Lyngk Board 101\n>\n> It is bob's turn.\n>\n> Available Colors: (Ivory,Blue,Red,Green,blacK)\n"

// TestClientReplies reads replies to a board mail as real mail clients and
// webmails write them (their attribution lines, quoting styles, sign-offs
// and signatures, as captured from each) and checks the exact comment that
// would be relayed to the opponent: only what the player wrote.
func TestClientReplies(t *testing.T) {
	e := parser(t)
	tests := []struct {
		client, body, comment string
	}{
		{"Thunderbird", "e4-e5\nYour turn, Bob.\n\nOn 21.11.26 22:52, PBeM Server wrote:\n" + quotedBoard, "Your turn, Bob.\n"},
		{"Gmail web", "e4-e5\nNice game so far!\n\nOn Sat, Nov 21, 2026 at 10:52\u202fPM PBeM Server <lyngk@example.net>\nwrote:\n\n" + quotedBoard, "Nice game so far!\n"},
		{"Gmail Android", "e4-e5 good luck\n\nOn Sat, 21 Nov 2026, 22:52 PBeM Server, <lyngk@example.net> wrote:\n\n" + quotedBoard, "good luck\n"},
		{"Apple Mail iOS", "e4-e5\nHa!\n\nSent from my iPhone\n\n> On Nov 21, 2026, at 22:52, PBeM Server <lyngk@example.net> wrote:\n>\n" + quotedBoard, "Ha!\n"},
		{"Apple Mail macOS", "e4-e5\nHa!\n\n> On 21 Nov 2026, at 22:52, PBeM Server <lyngk@example.net> wrote:\n>\n" + quotedBoard, "Ha!\n"},
		{"Outlook desktop", "e4-e5\r\nWell played.\r\n\r\n-----Original Message-----\r\nFrom: PBeM Server <lyngk@example.net>\r\nSent: Saturday, November 21, 2026 10:52 PM\r\nTo: bob@example.org\r\nSubject: Lyngk Board 101 bob\r\n\r\nSummary of Lyngk Board 101\r\n", "Well played.\n"},
		{"Outlook.com", "e4-e5\nWell played.\n\nGet Outlook for iOS\n________________________________\nFrom: PBeM Server <lyngk@example.net>\nSent: Saturday, November 21, 2026 10:52:00 PM\nTo: bob@example.org\nSubject: Lyngk Board 101 bob\n\nSummary of Lyngk Board 101\n", "Well played.\n"},
		{"Yahoo Mail", "e4-e5\nHmm.\n\nSent from Yahoo Mail for iPhone\n\nOn Saturday, November 21, 2026, 10:52 PM, PBeM Server <lyngk@example.net> wrote:\n\nSummary of Lyngk Board 101\n", "Hmm.\n"},
		{"NeoMutt", "e4-e5\nTake that.\n\n-- \nBob\n\nOn Sat, Nov 21, 2026 at 10:52:07PM +0000, PBeM Server wrote:\n" + quotedBoard, "Take that.\n"},
		{"s-nail", "e4-e5\nMy move.\n\n\"PBeM Server\" <lyngk@example.net> wrote:\n\tSummary of Lyngk Board 101\n\t\n\tIt is bob's turn.\n\t\n", "My move.\n"},
		{"mailx, bottom-posted", "lyngk@example.net wrote:\n\tSummary of Lyngk Board 101\n\tIt is bob's turn.\n\ne4-e5\nBottom-posted.\n", "Bottom-posted.\n"},
		{"Roundcube", "e4-e5\nGut gespielt.\n\nAm 21.11.2026 22:52, schrieb PBeM Server:\n" + quotedBoard, "Gut gespielt.\n"},
		{"GMX (German)", "e4-e5\nDu bist dran.\n\nVon meinem iPhone gesendet\n\nAm 21.11.2026 um 22:52 schrieb PBeM Server <lyngk@example.net>:\n\n" + quotedBoard, "Du bist dran.\n"},
		{"Orange webmail (French)", "e4-e5\nÀ toi.\n\nLe sam. 21 nov. 2026 à 22:52, PBeM Server <lyngk@example.net> a écrit :\n" + quotedBoard, "À toi.\n"},
		{"Gmail (Spanish)", "e4-e5\nTe toca.\n\nEl sáb, 21 nov 2026 a las 22:52, PBeM Server (<lyngk@example.net>)\nescribió:\n\n" + quotedBoard, "Te toca.\n"},
		{"Apple Mail (Dutch)", "e4-e5\nJij bent.\n\nVerzonden vanaf mijn iPhone\n\n> Op 21 nov. 2026 om 22:52 heeft PBeM Server <lyngk@example.net> het volgende geschreven:\n" + quotedBoard, "Jij bent.\n"},
		{"Outlook (Dutch)", "e4-e5\nJij bent.\n\nOp za 21 nov. 2026 om 22:52 schreef PBeM Server <lyngk@example.net>:\n\n" + quotedBoard, "Jij bent.\n"},
		{"Libero (Italian)", "e4-e5\nTocca a te.\n\nIl giorno sab 21 nov 2026 alle ore 22:52 PBeM Server <lyngk@example.net> ha scritto:\n\n" + quotedBoard, "Tocca a te.\n"},
		{"Proton Mail", "e4-e5\nGG\n\nSent with Proton Mail secure email.\n\nOn Saturday, November 21st, 2026 at 22:52, PBeM Server <lyngk@example.net> wrote:\n\n" + quotedBoard, "GG\n"},
		{"K-9 Mail, pipe quotes", "e4-e5\nok\n\nPBeM Server <lyngk@example.net> schrieb am 21. November 2026 22:52:07 MEZ:\n| Summary of Lyngk Board 101\n| It is bob's turn.\n", "ok\n"},
		{"Outlook HTML reply, read as text", "e4-e5\nWell played.\n\nFrom: PBeM Server <lyngk@example.net>\nSent: Saturday, November 21, 2026 10:52 PM\nTo: bob@example.org\nSubject: Lyngk Board 101 bob\n\nSummary of Lyngk Board 101\n", "Well played.\n"},
		{"Outlook (German)", "e4-e5\nGut gespielt.\n\nVon: PBeM Server <lyngk@example.net>\nGesendet: Samstag, 21. November 2026 22:52\nAn: bob@example.org\nBetreff: Lyngk Board 101 bob\n\nSummary of Lyngk Board 101\n", "Gut gespielt.\n"},
		{"Apple Mail, attribution wrapped", "e4-e5\nHa!\n\nOn 21 Nov 2026, at 22:52, PBeM Server <lyngk@example.net>\nwrote:\n\n" + quotedBoard, "Ha!\n"},
		{"Apple Mail iOS (French)", "e4-e5\nÀ toi.\n\nEnvoyé de mon iPhone\n\nLe 21 nov. 2026 à 22:52, PBeM Server <lyngk@example.net> a écrit :\n\n" + quotedBoard, "À toi.\n"},
		{"Apple Mail iOS (Italian)", "e4-e5\nTocca a te.\n\nInviato da iPhone\n\nIl giorno 21 nov 2026, alle ore 22:52, PBeM Server <lyngk@example.net> ha scritto:\n\n" + quotedBoard, "Tocca a te.\n"},
		{"Samsung Email (Spanish)", "e4-e5\nTe toca.\n\nEnviado desde mi Samsung Galaxy\n\n-------- Mensaje original --------\nDe: PBeM Server <lyngk@example.net>\nFecha: 21/11/26 22:52 (GMT+00:00)\n\nSummary of Lyngk Board 101\n", "Te toca.\n"},
		{"Evolution, signature without its space", "e4-e5\nok\n\n--\nBob Example\n\nOn Sat, 2026-11-21 at 22:52 +0000, PBeM Server wrote:\n" + quotedBoard, "ok\n"},
		// NeoMutt's widespread attribution "* %n <%a> [%{...}]:" and
		// its default; mutt, alpine, Evolution, KMail, Roundcube, Outlook
		// for iOS and Android, Spark, Proton and Fastmail as they are.
		{"NeoMutt, attribution * name <addr> [date]:", "e4-e5\nTake that.\n\n* PBeM Server <lyngk@example.org> [2026-11-26 11:58]:\n" + quotedBoard, "Take that.\n"},
		{"NeoMutt, attribution * name [date]:", "e4-e5\nTake that.\n\n* PBeM Server [2026-11-26 11:58 +0000]:\n\n" + quotedBoard, "Take that.\n"},
		{"NeoMutt default", "e4-e5\nTake that.\n\nOn Thu, Nov 26, 2026 at 11:58:07AM +0000, PBeM Server wrote:\n" + quotedBoard, "Take that.\n"},
		{"mutt default", "e4-e5\nTake that.\n\nOn Thu, Nov 26, 2026 at 11:58:07AM +0000, PBeM Server wrote:\n" + quotedBoard, "Take that.\n"},
		{"mutt, name and date only", "e4-e5\nTake that.\n\nPBeM Server, 26.11.2026 11:58:\n" + quotedBoard, "Take that.\n"},
		{"alpine", "e4-e5\nDone.\n\nOn Thu, 26 Nov 2026, PBeM Server wrote:\n\n" + quotedBoard, "Done.\n"},
		{"Evolution", "e4-e5\nDone.\n\nOn Thu, 2026-11-26 at 11:58 +0000, PBeM Server wrote:\n" + quotedBoard, "Done.\n"},
		{"KMail", "e4-e5\nDone.\n\nOn Thursday, 26 November 2026 11:58:07 CET PBeM Server wrote:\n" + quotedBoard, "Done.\n"},
		{"KMail (German)", "e4-e5\nErledigt.\n\nAm Donnerstag, 26. November 2026, 11:58:07 CET schrieb PBeM Server:\n" + quotedBoard, "Erledigt.\n"},
		{"Roundcube", "e4-e5\nDone.\n\nOn 2026-11-26 11:58, PBeM Server wrote:\n" + quotedBoard, "Done.\n"},
		{"Outlook for iOS", "e4-e5\nWell played.\n\nGet Outlook for iOS<https://aka.ms/o0ukef>\n________________________________\nFrom: PBeM Server <lyngk@example.net>\nSent: Thursday, November 26, 2026 11:58:07 AM\nTo: bob@example.org <bob@example.org>\nSubject: Lyngk Board 101 bob\n\nSummary of Lyngk Board 101\n", "Well played.\n"},
		{"Outlook for Android", "e4-e5\nWell played.\n\nGet Outlook for Android<https://aka.ms/AAb9ysg>\n\n________________________________\nFrom: PBeM Server <lyngk@example.net>\nSent: Thursday, November 26, 2026 11:58:07 AM\n\nSummary of Lyngk Board 101\n", "Well played.\n"},
		{"Outlook for iOS, bottom-posted quote", "e4-e5\nWell played.\n\nGet Outlook for iOS <https://aka.ms/o0ukef>\n\nOn Thu, Nov 26, 2026 at 11:58 AM, PBeM Server <lyngk@example.net> wrote:\n" + quotedBoard, "Well played.\n"},
		{"Windows Mail", "e4-e5\nWell played.\n\nSent from Mail<https://go.microsoft.com/fwlink/?LinkId=550986> for Windows\n\nFrom: PBeM Server<mailto:lyngk@example.net>\nSent: Thursday, 26 November 2026 11:58\n\nSummary of Lyngk Board 101\n", "Well played.\n"},
		{"Spark", "e4-e5\nYour go.\n\nSent with Spark\nOn 26 Nov 2026 at 11:58 +0000, PBeM Server <lyngk@example.net>, wrote:\n" + quotedBoard, "Your go.\n"},
		{"Spark, linked", "e4-e5\nYour go.\n\nSent with [Spark](https://sparkmailapp.com/source?from=signature)\n\nOn 26 Nov 2026 at 11:58 +0000, PBeM Server <lyngk@example.net>, wrote:\n" + quotedBoard, "Your go.\n"},
		{"Proton Mail, linked", "e4-e5\nGG\n\nSent with [Proton Mail](https://proton.me/mail/home) secure email.\n\nOn Thursday, November 26th, 2026 at 11:58, PBeM Server <lyngk@example.net> wrote:\n\n" + quotedBoard, "GG\n"},
		{"Fastmail", "e4-e5\nGG\n\nOn Thu, Nov 26, 2026, at 11:58, PBeM Server wrote:\n" + quotedBoard, "GG\n"},
		{"Fastmail, own language", "e4-e5\nGG\n\nTor 26 nov. 2026 kl. 11:58 skrev PBeM Server:\n" + quotedBoard, "GG\n"},
		{"unknown client, any language", "e4-e5\nGG\n\n2026年11月26日(木) 11:58 PBeM Server <lyngk@example.net>:\n\n" + quotedBoard, "GG\n"},
		{"Thunderbird forward-style", "e4-e5\nSee below.\n\n-------- Original Message --------\nSubject: Lyngk Board 101 bob\nDate: Sat, 21 Nov 2026 22:52:07 +0000\n\nSummary of Lyngk Board 101\n", "See below.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.client, func(t *testing.T) {
			s := e.ReadMail("Re: Lyngk Board 101 bob", tt.body)
			if len(s.Lines) != 1 || s.Lines[0] != "e4-e5" && s.Lines[0] != "e4-e5 good luck" {
				t.Errorf("command lines %q", s.Lines)
			}
			got := s.Comment
			if len(s.Lines) == 1 && s.Lines[0] == "e4-e5 good luck" {
				got = "good luck\n" + got // the rest of the move's line opens the comment (reply.go)
			}
			if got != tt.comment {
				t.Errorf("comment %q, want %q", got, tt.comment)
			}
		})
	}
	if len(tests) < 48 {
		t.Errorf("%d clients", len(tests))
	}
}

// TestReplyCopyCut: a client that pastes the board mail answered below
// the player's words, with no quote marks and no attribution, relays only
// the player's words: the server knows what it sent.
func TestReplyCopyCut(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	var mine engine.Mail
	for _, m := range v.cmd(addr("alice"), "lyngk challenge alice bob") {
		if m.To[0] == addr("alice") {
			mine = m
		}
	}
	out := v.reply(mine, addr("alice"), "G,c1-d1\nYour move, Bob.\n\n"+mine.Body)
	for _, m := range out {
		if m.To[0] != addr("bob") {
			continue
		}
		if !strings.Contains(m.Body, "alice writes:\nYour move, Bob.\n\n") || strings.Count(m.Body, "Available Colors") != 1 {
			t.Errorf("bob's mail relays more than alice's words:\n%s", m.Body)
		}
	}
}

// aliceWrote is alice's comment on her first move in the copy tests: a
// line long enough that clients re-wrap it, and two lines a player may
// well write too.
const aliceWrote = "Your turn, Bob. This line is long enough that every mail client wraps it when it quotes it again.\nthanks\na1-b2\n"

// boardToBob starts board 101, alice moves G,c1-d1 with aliceWrote, and
// returns the board mail bob got: the mail the copy tests answer.
func boardToBob(t *testing.T) (*env, engine.Mail) {
	t.Helper()
	v := newEnv(t)
	v.signup("alice", "bob")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	out := v.mail(engine.Inbound{From: addr("alice"), Subject: "lyngk move 101 alice pw-alice G,c1-d1", Body: aliceWrote})
	for _, m := range out {
		if m.To[0] == addr("bob") && m.HTML != "" {
			return v, m
		}
	}
	t.Fatalf("no board mail with an HTML part to bob:\n%s", format(out))
	return nil, engine.Mail{}
}

// relayed is the comment of bob in the mail to alice among out ("" for
// none), and that mail's subject.
func relayed(t *testing.T, out []engine.Mail) (comment, subject string) {
	t.Helper()
	for _, m := range out {
		if m.To[0] != addr("alice") {
			continue
		}
		if strings.Contains(m.Subject, "Error") {
			t.Fatalf("alice got an error:\n%s", m.Body)
		}
		_, c, _ := strings.Cut(m.Body, "bob writes:\n")
		// The board mail ends with how to move, after the comment.
		c, _, _ = strings.Cut(c, "\nTo move, reply with your move")
		if c == "" {
			_, c, _ = strings.Cut(m.Body, "bob writes about Lyngk Board 101:\n")
			c, _, _ = strings.Cut(strings.TrimLeft(c, "\n"), "\nTo answer, reply to this mail")
		}
		if c = strings.TrimRight(c, "\n"); c != "" {
			c += "\n"
		}
		return c, m.Subject
	}
	t.Fatalf("no mail to alice:\n%s", format(out))
	return "", ""
}

// clientText renders an HTML part of ours as a mail client shows it in a
// plain-text reply, as Outlook and Thunderbird do and unlike the server:
// table cells apart by a tab, the comment's lines (white-space:pre-wrap)
// kept, no white space collapsed.
func clientText(h string) string {
	h = regexp.MustCompile(`(?s)<head>.*</head>`).ReplaceAllString(h, "")
	h = regexp.MustCompile(`<img[^>]*>`).ReplaceAllString(h, "")
	return plainText(h)
}

// gmailText is clientText as Gmail shows the picture: "[image: ALT]".
func gmailText(h string) string {
	h = regexp.MustCompile(`(?s)<head>.*</head>`).ReplaceAllString(h, "")
	h = regexp.MustCompile(`<img[^>]* alt="([^"]*)"[^>]*>`).ReplaceAllString(h, "\n[image: $1]\n")
	return plainText(h)
}

func plainText(h string) string {
	h = regexp.MustCompile(`</t[dh]>`).ReplaceAllString(h, "\t")
	h = regexp.MustCompile(`</?(p|h1|tr|table|pre)\b[^>]*>|<br>`).ReplaceAllString(h, "\n")
	h = regexp.MustCompile(`<[^>]*>`).ReplaceAllString(h, "")
	return html.UnescapeString(h)
}

// TestReplyCopies: however a client pastes the board mail answered,
// without quote marks, above or below the player's words, re-wrapped, or
// the text of its HTML part, the opponent gets exactly what the player
// wrote, and a line of the player's that is also a line of the mail (a
// move, "thanks") stays. On the main before this, a copy above the move
// was read as the move, a full command relayed the copy whole, and a copy
// of the HTML part relayed its first lines.
func TestReplyCopies(t *testing.T) {
	_, sent := boardToBob(t)
	text := sent.Body
	quoted := "> " + strings.ReplaceAll(strings.TrimSuffix(text, "\n"), "\n", "\n> ") + "\n"
	tests := []struct {
		name, body, comment string
		chat                bool
	}{
		{"copy below", "B,b1-b2\nNice.\n\n" + text, "Nice.\n", false},
		{"copy above", text + "\nB,b1-b2\nNice.\n", "Nice.\n", false},
		{"copy above, no blank line", text + "B,b1-b2\nNice.\n", "Nice.\n", false},
		{"copy above and below", text + "\nB,b1-b2 Nice.\n\n" + text, "Nice.\n", false},
		{"copy in CRLF", strings.ReplaceAll("B,b1-b2\nNice.\n\n"+text, "\n", "\r\n"), "Nice.\n", false},
		{"copy re-wrapped at 76", "B,b1-b2\nNice.\n\n" + templates.Wrap(text, 76), "Nice.\n", false},
		{"copy re-wrapped at 40", "B,b1-b2\nNice.\n\n" + templates.Wrap(text, 40), "Nice.\n", false},
		{"copy of the HTML part", "B,b1-b2\nNice.\n\n" + clientText(sent.HTML), "Nice.\n", false},
		{"copy of the HTML part re-wrapped", "B,b1-b2\nNice.\n\n" + templates.Wrap(clientText(sent.HTML), 76), "Nice.\n", false},
		{"copy of the HTML part, as Gmail shows the picture", "B,b1-b2\nNice.\n\n" + templates.Wrap(gmailText(sent.HTML), 76), "Nice.\n", false},
		{"copy of the HTML part above", clientText(sent.HTML) + "\nB,b1-b2\nNice.\n", "Nice.\n", false},
		{"quoted copy re-wrapped", "B,b1-b2\nNice.\n\n" + templates.Wrap(quoted, 60), "Nice.\n", false},
		{"full command, copy below", "lyngk move 101 bob pw-bob B,b1-b2\nNice.\n\n" + text, "Nice.\n", false},
		{"full command, copy above", text + "\nlyngk move 101 bob pw-bob B,b1-b2\nNice.\n", "Nice.\n", false},
		{"chat, copy below", "lyngk chat 101 bob pw-bob\nNice.\n\n" + text, "Nice.\n", true},
		{"own lines that are the mail's", "B,b1-b2\nthanks\n\na1-b2\n\n" + text, "thanks\n\na1-b2\n", false},
		{"own line next to the copy", "B,b1-b2\nthanks\n" + text, "thanks\n", false},
		{"own line after the copy", "B,b1-b2\n" + text + "thanks\n", "thanks\n", false},
		{"own lines only", "B,b1-b2\nthanks\na1-b2 to you too\n", "thanks\na1-b2 to you too\n", false},
		{"only the copy", "B,b1-b2\n\n" + text, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, sent := boardToBob(t)
			in := engine.Inbound{From: addr("bob"), Subject: "Re: " + sent.Subject, Body: tt.body, InReplyTo: []string{sent.MessageID}}
			if strings.Contains(tt.body, "pw-bob") {
				// The password forecast (of a new process, which has no
				// password in memory) reads the command below a copy too.
				v.restart()
				var checks []engine.Check
				err := v.db.View(func(tx *store.Tx) error {
					var err error
					checks, err = v.e.Checks(tx, in, v.now)
					return err
				})
				if err != nil || len(checks) != 1 {
					t.Errorf("Checks: %d checks, %v", len(checks), err)
				}
			}
			out := v.mail(in)
			got, subject := relayed(t, out)
			if got != tt.comment {
				t.Errorf("alice got bob's comment %q, want %q", got, tt.comment)
			}
			if !tt.chat && (tt.comment != "") != strings.HasSuffix(subject, " **") {
				t.Errorf("subject %q", subject)
			}
		})
	}
}

// TestReplyCopiesOldToken: a token recorded before the server kept what
// it sent has no lines; a plain reply's copy is then cut as the board mail
// would be written now, and a full command's comment is relayed as it is,
// as before.
func TestReplyCopiesOldToken(t *testing.T) {
	for _, tt := range []struct {
		name, body, comment string
		copied              bool
	}{
		{"plain reply", "B,b1-b2\nNice.\n\n", "Nice.\n", false},
		{"full command", "lyngk move 101 bob pw-bob B,b1-b2\nNice.\n\n", "Nice.\n\nSummary of Lyngk Board 101\n", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, sent := boardToBob(t)
			tok := strings.TrimPrefix(strings.Split(sent.MessageID, "@")[0], "lyngk.")
			err := v.db.Update(func(tx *store.Tx) error {
				b, err := tx.Get(store.BucketTokens, tok)
				if err != nil {
					return err
				}
				var rec map[string]any
				if err := json.Unmarshal(b, &rec); err != nil {
					return err
				}
				if rec["text"] == nil || rec["html"] == nil {
					t.Errorf("token record without the mail's lines: %s", b)
				}
				delete(rec, "text")
				delete(rec, "html")
				b, _ = json.Marshal(rec)
				return tx.Put(store.BucketTokens, tok, b)
			})
			if err != nil {
				t.Fatal(err)
			}
			got, _ := relayed(t, v.reply(sent, addr("bob"), tt.body+sent.Body))
			if copied := strings.Contains(got, "Summary of Lyngk Board 101\n"); !strings.HasPrefix(got, tt.comment) || copied != tt.copied {
				t.Errorf("alice got bob's comment %q", got)
			}
		})
	}
}

// TestSentLinesBound: what a token keeps of its mail is at most 96 line
// hashes of each part, 8 bytes each, however long the mail (a comment of
// 500 lines); a copy of such a mail is still cut where its lines are kept.
func TestSentLinesBound(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	var long strings.Builder
	for i := range 500 {
		fmt.Fprintf(&long, "line %d of a long comment\n", i)
	}
	var sent engine.Mail
	for _, m := range v.mail(engine.Inbound{From: addr("alice"), Subject: "lyngk move 101 alice pw-alice G,c1-d1", Body: long.String()}) {
		if m.To[0] == addr("bob") {
			sent = m
		}
	}
	tok := strings.TrimPrefix(strings.Split(sent.MessageID, "@")[0], "lyngk.")
	var raw []byte
	err := v.db.View(func(tx *store.Tx) error {
		var err error
		raw, err = tx.Get(store.BucketTokens, tok)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var rec struct{ Text, HTML []byte }
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Text) != 96*8 || len(rec.HTML) == 0 || len(rec.HTML) > 96*8 {
		t.Errorf("kept %d and %d bytes of hashes, want 768 and 1 to 768", len(rec.Text), len(rec.HTML))
	}
	if len(raw) > 2048+200 {
		t.Errorf("token record of %d bytes: %s", len(raw), raw)
	}
	got, _ := relayed(t, v.reply(sent, addr("bob"), "B,b1-b2\nNice.\n\n"+sent.Body))
	if !strings.HasPrefix(got, "Nice.\n\n") || strings.Contains(got, "Summary of Lyngk Board") || strings.Count(got, "\n") > 500 {
		t.Errorf("alice got bob's comment %q", got)
	}
}

// TestReplyAttributionRelayed: the NeoMutt and Outlook finding through the server. A
// NeoMutt reply with the attribution "* PBeM Server <addr> [date]:" and
// Outlook for iOS's linked sign-off relay only the player's words; a reply
// holding only a move relays nothing and gets no "**" subject. On the main
// before, the attribution line was relayed as bob's comment (with "**").
func TestReplyAttributionRelayed(t *testing.T) {
	for _, tt := range []struct {
		name, body, comment string
	}{
		{"NeoMutt, only a move", "B,b1-b2\n\n* PBeM Server <lyngk@example.org> [2026-11-26 11:58]:\n", ""},
		{"NeoMutt, a comment", "B,b1-b2\nYour turn.\n\n* PBeM Server <lyngk@example.org> [2026-11-26 11:58]:\n", "Your turn.\n"},
		{"NeoMutt default, only a move", "B,b1-b2\n\nOn Thu, Nov 26, 2026 at 11:58:07AM +0000, PBeM Server wrote:\n", ""},
		{"Outlook for iOS, only a move", "B,b1-b2\n\nGet Outlook for iOS<https://aka.ms/o0ukef>\n________________________________\nFrom: PBeM Server <lyngk@example.net>\nSent: Thursday, November 26, 2026 11:58:07 AM\n\n", ""},
		{"Outlook for Android, a comment", "B,b1-b2\nGood one.\n\nGet Outlook for Android<https://aka.ms/AAb9ysg>\n", "Good one.\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, sent := boardToBob(t)
			quoted := "> " + strings.ReplaceAll(strings.TrimSuffix(sent.Body, "\n"), "\n", "\n> ") + "\n"
			if strings.Contains(tt.body, "Outlook") {
				quoted = sent.Body // Outlook pastes the mail unquoted below its header
			}
			got, subject := relayed(t, v.reply(sent, addr("bob"), tt.body+quoted))
			if got != tt.comment {
				t.Errorf("alice got bob's comment %q, want %q", got, tt.comment)
			}
			if (tt.comment != "") != strings.HasSuffix(subject, " **") {
				t.Errorf("subject %q", subject)
			}
		})
	}
}
