package engine_test

import (
	"strings"
	"testing"

	"lyngk.example/lyngk/engine"
)

// The quoted board mail as clients quote it, shortened.
const quotedBoard = "> Summary of Lyngk Board 101\n>\n> It is bob's turn.\n>\n> Available Colors: (Ivory,Blue,Red,Green,blacK)\n"

// TestClientReplies reads replies to a board mail as real mail clients and
// webmails write them (their attribution lines, quoting styles, sign-offs
// and signatures, as captured from each) and checks the exact comment that
// would be relayed to the opponent: only what the player wrote.
func TestClientReplies(t *testing.T) {
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
		{"Thunderbird forward-style", "e4-e5\nSee below.\n\n-------- Original Message --------\nSubject: Lyngk Board 101 bob\nDate: Sat, 21 Nov 2026 22:52:07 +0000\n\nSummary of Lyngk Board 101\n", "See below.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.client, func(t *testing.T) {
			s := engine.ReadMail("Re: Lyngk Board 101 bob", tt.body)
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
	if len(tests) < 12 {
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
