package mailer

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

// readFixture returns a mail from testdata/mime.
func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "mime", name))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// checkInbound compares field by field, so a failure names the field.
func checkInbound(t *testing.T, got, want Inbound) {
	t.Helper()
	g, w := reflect.ValueOf(got), reflect.ValueOf(want)
	for i := range g.NumField() {
		if !reflect.DeepEqual(g.Field(i).Interface(), w.Field(i).Interface()) {
			t.Errorf("%s = %#v, want %#v", g.Type().Field(i).Name, g.Field(i).Interface(), w.Field(i).Interface())
		}
	}
}

// TestParseFixtures parses mails modelled on real clients. Size is the file
// size unless the case says otherwise.
func TestParseFixtures(t *testing.T) {
	tests := []struct {
		file  string
		limit int64
		want  Inbound
	}{{
		// format=flowed joined back, one "From " line space-stuffed,
		// quoted board and signature kept.
		file: "thunderbird-reply.eml",
		want: Inbound{
			MessageID:  "7f1d2c3b-4a5e-6f70-8192-a3b4c5d6e7f8@example.com",
			From:       "alice@example.com",
			FromName:   "Alice Liddell",
			ReturnPath: "alice@example.com",
			Subject:    "Re: Lyngk Board 102 alice",
			Body: "g5-f4\n\n" +
				"Schöner Zug mit dem blacK-Stapel, but I think you left the Ivory one open. Let's see how you get out of this one!\n" +
				"From now on I play faster.\n\n" +
				"On 02/11/2026 21:03, PBeM Server wrote:\n" +
				"> Summary of Lyngk Board 102\n>\n> It is alice's turn.\n>\n" +
				"> Available Colors: (Red)\n" +
				"> alice: 0 stacks (Blue,Green) claimed.\n" +
				"> bob: 0 stacks (Ivory,blacK) claimed.\n>\n" +
				">    A   B   C   D   E   F   G   H   I\n" +
				">    1   4   7   6   7   6   7   4   1\n\n" +
				"-- \nAlice\n",
			InReplyTo:  []string{"lyngk.102.7.k3j4h5g6@example.net"},
			References: []string{"lyngk.102.6.p9q8r7s6@example.net", "lyngk.102.7.k3j4h5g6@example.net"},
		},
	}, {
		// multipart/mixed > multipart/alternative: the QP plain part wins
		// over HTML, the PDF is dropped.
		file: "gmail-alternative.eml",
		want: Inbound{
			MessageID:  "CAF=x8Yq+T5kz_2bW9nLmP3vQ-7dR@mail.gmail.com",
			From:       "bjorn.muller@gmail.com",
			FromName:   "Björn Müller",
			ReturnPath: "bjorn.muller@gmail.com",
			Subject:    "Re: Lyngk Board 101 bjorn",
			Body: "R,e4-e5\n\n" +
				"Schön gespielt! Das war ein langer Zug, und dieser Satz ist absichtlich länger als sechsundsiebzig Zeichen.\n\n" +
				"On Tue, Nov 3, 2026 at 9:12\u202fAM PBeM Server <lyngk@example.net> wrote:\n\n" +
				"> Summary of Lyngk Board 101\n>\n> It is bjorn's turn.\n>\n",
			InReplyTo:  []string{"lyngk.101.3.a1b2c3d4@example.net"},
			References: []string{"lyngk.101.3.a1b2c3d4@example.net"},
		},
	}, {
		// HTML only, Windows-1252 quoted-printable: Word paragraphs,
		// entities, smart quotes and the euro sign.
		file: "outlook-html-cp1252.eml",
		want: Inbound{
			MessageID: "AM0PR07MB1234ABCD5678EF90@AM0PR07MB1234.eurprd07.prod.outlook.com",
			From:      "carol@example.org",
			FromName:  "Carol Danvers",
			Subject:   "RE: Lyngk Board 103 carol",
			Body: "lyngk move 103 carol s3crèt R,c5-g4\n\n" +
				"That’s my move – “good luck” & have fun <3 €\n\n" +
				"From: PBeM Server <lyngk@example.net>\n" +
				"Sent: Monday, November 2, 2026 8:14 PM\n" +
				"To: carol@example.org\n" +
				"Subject: Lyngk Board 103 carol\n\n" +
				"Summary of Lyngk Board 103\n",
			InReplyTo:  []string{"lyngk.103.4.zz9y8x7w@example.net"},
			References: []string{"lyngk.103.4.zz9y8x7w@example.net"},
		},
	}, {
		// base64 UTF-8 plain part before a multipart/related HTML part
		// with an inline image.
		file: "apple-mail-base64.eml",
		want: Inbound{
			MessageID:  "5E2A9C1B-77D4-4E0F-9B1A-0C3D5E7F9A2B@icloud.example",
			From:       "dana@icloud.example",
			FromName:   "Dana Scully",
			ReturnPath: "dana@icloud.example",
			Subject:    "show",
			Body:       "lyngk show 101\n\nDéjà vu — c’est ton tour. 日本語も大丈夫 🙂\n\nSent from my iPhone\n",
		},
	}, {
		// 8-bit ISO-8859-1 body, Q-encoded Latin-1 subject and name, LF
		// line ends.
		file: "latin1-mutt.eml",
		want: Inbound{
			MessageID:  "aQ9xR2vT4kLm1nOp@mail.example.de",
			From:       "joerg@mail.example.de",
			FromName:   "Jörg Schäfer",
			Subject:    "Re: Lyngk Board 101 jörg (Münster)",
			Body:       "lyngk move 101 jörg geheim b1-b2\n\nGrüße aus Münster, § 3 ½\n",
			InReplyTo:  []string{"lyngk.101.8.q1w2e3r4@example.net"},
			References: []string{"lyngk.101.8.q1w2e3r4@example.net"},
		},
	}, {
		// ISO-2022-JP body, B-encoded subject folded over two lines.
		file: "iso-2022-jp.eml",
		want: Inbound{
			MessageID:  "20261103194500.6F1A.TARO@example.jp",
			From:       "taro@example.jp",
			FromName:   "山田太郎",
			ReturnPath: "taro@example.jp",
			Subject:    "Re: Lyngk Board 104 太郎",
			Body:       "lyngk show 104\n\nよろしくお願いします。\n太郎\n",
			InReplyTo:  []string{"lyngk.104.2.m5n6b7v8@example.net"},
		},
	}, {
		file: "vacation-autoreply.eml",
		want: Inbound{
			MessageID:  "CAB+vacation.4k2j1h@mail.gmail.com",
			From:       "erin@example.com",
			FromName:   "Erin Example",
			ReturnPath: "erin@example.com",
			Subject:    "Out of office: Lyngk Board 105 erin",
			Body:       "I am away until 20 November with no access to mail.\n",
			InReplyTo:  []string{"lyngk.105.1.t6y7u8i9@example.net"},
			References: []string{"lyngk.105.1.t6y7u8i9@example.net"},
			Auto:       "auto-submitted",
		},
	}, {
		// No Auto-Submitted: the null return path is the guard.
		file: "bounce-qmail.eml",
		want: Inbound{
			From:    "MAILER-DAEMON@mx.example.org",
			Subject: "failure notice",
			Body: "Hi. This is the qmail-send program at mx.example.org.\n" +
				"I'm afraid I wasn't able to deliver your message to the following addresses.\n" +
				"This is a permanent error; I've given up. Sorry it didn't work out.\n\n" +
				"<nobody@example.org>:\nSorry, no mailbox here by that name. (#5.1.1)\n\n" +
				"--- Below this line is a copy of the message.\n\n" +
				"Return-Path: <lyngk@example.net>\nFrom: lyngk@example.net\nTo: nobody@example.org\n" +
				"Subject: Lyngk Board 106 nobody\n\nSummary of Lyngk Board 106\n",
			Auto: "null return path",
		},
	}, {
		// multipart/report: only the human-readable part is text; the
		// delivery status and the returned mail are not.
		file: "bounce-postfix.eml",
		want: Inbound{
			MessageID: "4Xk3Q11bKz9rxN@mx.example.net",
			From:      "MAILER-DAEMON@mx.example.net",
			FromName:  "Mail Delivery System",
			Subject:   "Undelivered Mail Returned to Sender",
			Body: "This is the mail system at host mx.example.net.\n\n" +
				"I'm sorry to have to inform you that your message could not\n" +
				"be delivered to one or more recipients.\n\n" +
				"<frank@example.com>: host mail.example.com[192.0.2.25] said: 550 5.1.1 User\n" +
				"    unknown (in reply to RCPT TO command)\n",
			Auto: "auto-submitted",
		},
	}, {
		file: "mailing-list.eml",
		want: Inbound{
			MessageID:  "87h6x2k1a0.fsf@example.com",
			From:       "gina@example.com",
			FromName:   "Gina Tonic",
			ReturnPath: "lyngk-players-bounces@lists.example.org",
			Subject:    "[lyngk-players] Lyngk Board 108 gina",
			Body:       "Anyone up for a game? lyngk challenge gina bob\n",
			Auto:       "list header",
		},
	}, {
		// The subject's encoded word and the body are in a charset
		// nobody knows: the text is kept as it is.
		file: "unknown-charset.eml",
		want: Inbound{
			MessageID: "klingon.1@example.net",
			From:      "ivan@example.net",
			FromName:  "Ivan",
			Subject:   "Qapla' Lyngk Board 109",
			Body:      "lyngk move 109 ivan pw a1-b3\nQapla'! é\n",
		},
	}, {
		file:  "too-big.eml",
		limit: 2048,
		want: Inbound{
			MessageID:  "big.1@example.com",
			From:       "hank@example.com",
			FromName:   "Hank",
			ReturnPath: "hank@example.com",
			Subject:    "lyngk show 101",
			Size:       2049,
			TooBig:     true,
		},
	}, {
		// The same mail under a limit it fits: the attachment is dropped.
		file:  "too-big.eml",
		limit: 1 << 20,
		want: Inbound{
			MessageID:  "big.1@example.com",
			From:       "hank@example.com",
			FromName:   "Hank",
			ReturnPath: "hank@example.com",
			Subject:    "lyngk show 101",
			Body:       "see the photo",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			raw := readFixture(t, tt.file)
			limit := tt.limit
			if limit == 0 {
				limit = 1 << 20
			}
			want := tt.want
			if want.Size == 0 {
				want.Size = len(raw)
			}
			got, err := Parse(bytes.NewReader(raw), limit)
			if err != nil {
				t.Fatal(err)
			}
			checkInbound(t, got, want)
		})
	}
}

// TestParseHeaders covers header fields as they come in the wild: sloppy
// message ids, broken addresses, raw 8-bit text, and each loop guard.
func TestParseHeaders(t *testing.T) {
	tests := []struct {
		name   string
		header string // header lines, LF-separated; a body "x\n" is added
		want   Inbound
	}{
		{"message id without brackets",
			"From: a@example.com\nMessage-ID: 20261103.abc@host.example",
			Inbound{From: "a@example.com", MessageID: "20261103.abc@host.example"}},
		{"message id with comment",
			"From: a@example.com\nMessage-ID: <id.1@host.example> (added by relay)",
			Inbound{From: "a@example.com", MessageID: "id.1@host.example"}},
		{"garbage among references",
			"From: a@example.com\nReferences: <r1@x.example> <broken <r2@x.example> junk\nIn-Reply-To: Your message of \"Tue, 3 Nov\" <r2@x.example>",
			Inbound{From: "a@example.com", References: []string{"r1@x.example", "r2@x.example"}, InReplyTo: []string{"r2@x.example"}}},
		{"in-reply-to without brackets",
			"From: a@example.com\nIn-Reply-To: lyngk.101.1.abc@example.net",
			Inbound{From: "a@example.com", InReplyTo: []string{"lyngk.101.1.abc@example.net"}}},
		{"references folded, with comment",
			"From: a@example.com\nReferences: <r1@x.example>\n\t<r2@x.example> (second)",
			Inbound{From: "a@example.com", References: []string{"r1@x.example", "r2@x.example"}}},
		{"bare address, upper-case domain",
			"From: Alice@EXAMPLE.Com",
			Inbound{From: "Alice@example.com"}},
		{"quoted name with comma",
			"From: \"Smith, John\" <John.Smith@Example.COM>",
			Inbound{From: "John.Smith@example.com", FromName: "Smith, John"}},
		{"unclosed quote",
			"From: \"Broken <alice@example.com",
			Inbound{From: "alice@example.com"}},
		{"unclosed angle bracket",
			"From: Alice <alice@Example.com",
			Inbound{From: "alice@example.com"}},
		{"first of several senders",
			"From: bob@example.com, carol@example.com",
			Inbound{From: "bob@example.com"}},
		{"raw UTF-8 name (RFC 6532)",
			"From: Zoë Ä <zoe@example.com>",
			Inbound{From: "zoe@example.com", FromName: "Zoë Ä"}},
		{"raw Latin-1 name",
			"From: Zo\xeb <zoe@example.com>",
			Inbound{From: "zoe@example.com", FromName: "Zoë"}},
		{"folded subject",
			"From: a@example.com\nSubject: Lyngk Board\n   101 alice",
			Inbound{From: "a@example.com", Subject: "Lyngk Board 101 alice"}},
		{"adjacent encoded words",
			"From: a@example.com\nSubject: =?UTF-8?Q?Lyngk_Board_?= =?UTF-8?B?MTAxIGrDtnJn?=",
			Inbound{From: "a@example.com", Subject: "Lyngk Board 101 jörg"}},
		{"encoded line breaks",
			"From: =?UTF-8?Q?Al=0Dice?= <a@example.com>\nSubject: =?UTF-8?Q?one=0Atwo?=",
			Inbound{From: "a@example.com", FromName: "Al ice", Subject: "one two"}},
		{"windows-1252 encoded word",
			"From: a@example.com\nSubject: =?windows-1252?Q?=93quoted=94?=",
			Inbound{From: "a@example.com", Subject: "“quoted”"}},
		{"raw Latin-1 subject",
			"From: a@example.com\nSubject: Gr\xfc\xdfe",
			Inbound{From: "a@example.com", Subject: "Grüße"}},
		{"first return path, domain lower-cased",
			"Return-Path: <Bob@Example.COM>\nReturn-Path: <other@example.com>\nFrom: bob@example.com",
			Inbound{From: "bob@example.com", ReturnPath: "Bob@example.com"}},
		{"auto-submitted no",
			"From: a@example.com\nAuto-Submitted: no",
			Inbound{From: "a@example.com"}},
		{"auto-submitted with parameter",
			"From: a@example.com\nAuto-Submitted: Auto-Generated; owner-email=\"x@example.com\"",
			Inbound{From: "a@example.com", Auto: "auto-submitted"}},
		{"precedence bulk",
			"From: a@example.com\nPrecedence: bulk",
			Inbound{From: "a@example.com", Auto: "precedence bulk"}},
		{"precedence junk",
			"From: a@example.com\nPrecedence: JUNK",
			Inbound{From: "a@example.com", Auto: "precedence junk"}},
		{"precedence list",
			"From: a@example.com\nPrecedence: list",
			Inbound{From: "a@example.com", Auto: "precedence list"}},
		{"precedence first-class is answered",
			"From: a@example.com\nPrecedence: first-class",
			Inbound{From: "a@example.com"}},
		{"x-autoreply",
			"From: a@example.com\nX-Autoreply: yes",
			Inbound{From: "a@example.com", Auto: "x-autoreply"}},
		{"list-unsubscribe alone",
			"From: a@example.com\nList-Unsubscribe: <mailto:leave@example.com>",
			Inbound{From: "a@example.com", Auto: "list header"}},
		{"list-post alone",
			"From: a@example.com\nlist-post: <mailto:all@example.com>",
			Inbound{From: "a@example.com", Auto: "list header"}},
		{"list-id",
			"From: a@example.com\nList-Id: Players <players.example.com>",
			Inbound{From: "a@example.com", Auto: "list header"}},
		{"auto-submitted after a comment",
			"From: a@example.com\nAuto-Submitted: (comment) auto-replied",
			Inbound{From: "a@example.com", Auto: "auto-submitted"}},
		{"auto-submitted no with a comment",
			"From: a@example.com\nAuto-Submitted: (typed (by hand)) no (really)",
			Inbound{From: "a@example.com"}},
		{"auto-submitted unknown value",
			"From: a@example.com\nAuto-Submitted: auto-notified",
			Inbound{From: "a@example.com", Auto: "auto-submitted"}},
		{"auto-submitted empty",
			"From: a@example.com\nAuto-Submitted: (nothing)",
			Inbound{From: "a@example.com", Auto: "auto-submitted"}},
		{"delivery report from an ordinary address",
			"From: a@example.com\nContent-Type: multipart/report; report-type=delivery-status; boundary=x",
			Inbound{From: "a@example.com", Auto: "multipart/report"}},
		{"read receipt",
			"From: a@example.com\nContent-Type: Multipart/Report (receipt); report-type=disposition-notification; boundary=x",
			Inbound{From: "a@example.com", Auto: "multipart/report"}},
		{"precedence auto_reply",
			"From: a@example.com\nPrecedence: auto_reply",
			Inbound{From: "a@example.com", Auto: "precedence auto_reply"}},
		{"x-autorespond",
			"From: a@example.com\nX-Autorespond: 1",
			Inbound{From: "a@example.com", Auto: "x-autoreply"}},
		{"x-auto-response-suppress all",
			"From: a@example.com\nX-Auto-Response-Suppress: All",
			Inbound{From: "a@example.com", Auto: "x-auto-response-suppress"}},
		{"x-auto-response-suppress in a list",
			"From: a@example.com\nX-Auto-Response-Suppress: DR, RN, NRN, OOF, AutoReply",
			Inbound{From: "a@example.com", Auto: "x-auto-response-suppress"}},
		{"x-auto-response-suppress of receipts only is answered",
			"From: a@example.com\nX-Auto-Response-Suppress: DR, RN",
			Inbound{From: "a@example.com"}},
		{"out-of-office subject",
			"From: a@example.com\nSubject: Out of Office: Lyngk Board 101 alice",
			Inbound{From: "a@example.com", Subject: "Out of Office: Lyngk Board 101 alice", Auto: "out-of-office subject"}},
		{"human subject that merely starts alike",
			"From: a@example.com\nSubject: Autoreplies are off now",
			Inbound{From: "a@example.com", Subject: "Autoreplies are off now"}},
		{"null return path with space",
			"Return-Path: < >\nFrom: a@example.com",
			Inbound{From: "a@example.com", Auto: "null return path"}},
		{"postmaster",
			"From: PostMaster@example.com",
			Inbound{From: "PostMaster@example.com", Auto: "postmaster"}},
		{"mailer-daemon sender",
			"From: a@example.com\nSender: Mailer-Daemon@example.com",
			Inbound{From: "a@example.com", Auto: "mailer-daemon"}},
		{"bare mailer-daemon",
			"From: MAILER-DAEMON",
			Inbound{From: "MAILER-DAEMON", Auto: "mailer-daemon"}},
		{"first reason wins",
			"Return-Path: <>\nFrom: MAILER-DAEMON@example.com\nPrecedence: bulk\nAuto-Submitted: auto-replied",
			Inbound{From: "MAILER-DAEMON@example.com", Auto: "auto-submitted"}},
		{"mbox envelope line before the header",
			"From alice@example.com Tue Nov  3 09:12:44 2026\nFrom: alice@example.com",
			Inbound{From: "alice@example.com"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := tt.header + "\n\nx\n"
			got, err := Parse(strings.NewReader(raw), 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			want.Body, want.Size = "x\n", len(raw)
			if strings.Contains(strings.ToLower(tt.header), "multipart/") {
				want.Body = "" // no part: no text
			}
			checkInbound(t, got, want)
		})
	}
}

// TestOutOfOffice checks the subjects of automatic replies in the common
// languages, and human subjects that must still be answered.
func TestOutOfOffice(t *testing.T) {
	for _, tt := range []struct {
		subject string
		want    bool
	}{
		{"Out of Office: Lyngk Board 101 alice", true},
		{"Automatic reply: signup alice pw", true},
		{"  AUTO-REPLY  re: lyngk", true},
		{"Autoreply", true},
		{"Auto: Lyngk Board 101", true},
		{"On vacation until Monday", true},
		{"Abwesenheitsnotiz: Lyngk Board 101 alice", true},
		{"Automatische Antwort: Lyngk Board 101", true},
		{"Nicht im Büro: Lyngk", true},
		{"Réponse automatique : Lyngk Board 101", true},
		{"Absent du bureau", true},
		{"Respuesta automática: Lyngk Board 101", true},
		{"Fuera de la oficina", true},
		{"Risposta automatica: Lyngk Board 101", true},
		{"Fuori ufficio", true},
		{"Automatisch antwoord: Lyngk Board 101", true},
		{"Afwezig: Lyngk", true},
		{"Resposta automática: Lyngk Board 101", true},
		{"Fora do escritório", true},
		{"Re: Lyngk Board 101 alice", false},
		{"lyngk show 101", false},
		{"Autoreplies are off", false},
		{"Outofoffice", false},
		{"multiple", false},
		{"", false},
	} {
		if got := outOfOffice(tt.subject); got != tt.want {
			t.Errorf("outOfOffice(%q) = %v, want %v", tt.subject, got, tt.want)
		}
	}
}

// FuzzStripComments checks that comment removal terminates, never grows the
// value, keeps it UTF-8, and leaves no comment behind in what it keeps
// outside quoted strings.
func FuzzStripComments(f *testing.F) {
	f.Add("(comment) auto-replied")
	f.Add(`"a(b" (c\) d) e`)
	f.Add("((((")
	f.Fuzz(func(t *testing.T, v string) {
		v = toUTF8(v)
		out := stripComments(v)
		if len(out) > len(v) {
			t.Errorf("stripComments(%q) grew to %q", v, out)
		}
		if !utf8.ValidString(out) {
			t.Errorf("stripComments(%q) = %q, not UTF-8", v, out)
		}
		if !strings.Contains(v, `"`) && !strings.Contains(v, `\`) && strings.Contains(out, "(") {
			t.Errorf("stripComments(%q) = %q keeps a comment", v, out)
		}
		_ = outOfOffice(out)
	})
}

// TestParseBody covers MIME structure and encodings beyond the fixtures.
func TestParseBody(t *testing.T) {
	tests := []struct {
		name string
		mail string
		want string
	}{
		{"CRLF and lone CR become LF",
			"From: a@example.com\r\n\r\none\r\ntwo\rthree\r\n",
			"one\ntwo\nthree\n"},
		{"8-bit text without charset is Windows-1252",
			"From: a@example.com\n\nna\xefve \x80\n",
			"naïve €\n"},
		{"UTF-8 without charset stays UTF-8",
			"From: a@example.com\n\nnaïve\n",
			"naïve\n"},
		{"text attachment dropped, inline parts joined",
			"From: a@example.com\nContent-Type: multipart/mixed; boundary=b\n\n" +
				"--b\nContent-Type: text/plain\n\ne4-e5\n--b\nContent-Type: text/plain\nContent-Disposition: attachment; filename=notes.txt\n\nsecret notes\n" +
				"--b\nContent-Type: text/plain; charset=utf-8\nContent-Disposition: inline\n\nsecond part\n--b--\n",
			"e4-e5\nsecond part"},
		{"empty plain part gives way to HTML",
			"From: a@example.com\nContent-Type: multipart/alternative; boundary=b\n\n" +
				"--b\nContent-Type: text/plain\n\n \n--b\nContent-Type: text/html\n\n<p>b1-b2</p>\n--b--\n",
			"b1-b2\n"},
		{"unknown transfer encoding keeps the raw text",
			"From: a@example.com\nContent-Transfer-Encoding: x-rot13\n\nyatlx fubj 101\n",
			"yatlx fubj 101\n"},
		{"unknown transfer encoding inside multipart",
			"From: a@example.com\nContent-Type: multipart/mixed; boundary=b\n\n" +
				"--b\nContent-Transfer-Encoding: x-uuencode\n\nraw text\n--b\nContent-Type: text/plain\n\nnext\n--b--\n",
			"raw text\nnext"},
		{"broken base64 keeps what decoded",
			"From: a@example.com\nContent-Transfer-Encoding: base64\n\nbHluZ2sgc2hvdyAxMDEK\n!!!!\n",
			"lyngk show 101\n"},
		{"missing closing boundary",
			"From: a@example.com\nContent-Type: multipart/mixed; boundary=b\n\n--b\n\nb1-b2\n",
			"b1-b2"},
		{"multipart without boundary",
			"From: a@example.com\nContent-Type: multipart/mixed\n\n--b\n\nb1-b2\n--b--\n",
			""},
		{"sloppy content-type parameters",
			"From: a@example.com\nContent-Type: text/plain; charset=utf-8; format=flowed;;\n\nb1-b2\n",
			"b1-b2\n"},
		{"nesting within the bound",
			"From: a@example.com\n" + nest(maxDepth, "b1-b2\n"),
			"b1-b2"},
		{"nesting beyond the bound is not read",
			"From: a@example.com\n" + nest(maxDepth+1, "b1-b2\n"),
			""},
		{"attachment with a sloppy file name",
			"From: a@example.com\nContent-Type: multipart/mixed; boundary=b\n\n" +
				"--b\n\nb1-b2\n--b\nContent-Type: text/plain; name=my notes.txt\nContent-Disposition: attachment; filename=my notes.txt\n\nsecret\n--b--\n",
			"b1-b2"},
		{"only an attachment",
			"From: a@example.com\nContent-Type: application/octet-stream\n\nb1-b2\n",
			""},
		{"delsp=yes",
			"From: a@example.com\nContent-Type: text/plain; format=flowed; delsp=yes\n\nlyngk move 101 alice pass \nword b1-b2\n",
			"lyngk move 101 alice password b1-b2\n"},
		{"quoted-printable soft breaks and trailing space",
			"From: a@example.com\nContent-Transfer-Encoding: quoted-printable\n\nlong=\nline=20\nmore\n",
			"longline \nmore\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(strings.NewReader(tt.mail), 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			if got.Body != tt.want {
				t.Errorf("Body = %q, want %q", got.Body, tt.want)
			}
		})
	}
}

// nest wraps a text part in depth multipart/mixed levels; the header of
// the outermost level comes first.
func nest(depth int, text string) string {
	var b strings.Builder
	for i := range depth {
		fmt.Fprintf(&b, "Content-Type: multipart/mixed; boundary=b%d\n\n--b%d\n", i, i)
	}
	b.WriteString("Content-Type: text/plain\n\n" + text)
	for i := depth - 1; i >= 0; i-- {
		fmt.Fprintf(&b, "--b%d--\n", i)
	}
	return b.String()
}

func TestParseLimit(t *testing.T) {
	head := "From: a@example.com\nSubject: lyngk show 101\nX-Long: " + strings.Repeat("y", 100) + "\n\n"
	mail := head + "body\n"
	tests := []struct {
		name   string
		limit  int64
		want   Inbound
		wantOK bool
	}{
		{"exactly at the limit", int64(len(mail)),
			Inbound{From: "a@example.com", Subject: "lyngk show 101", Body: "body\n", Size: len(mail)}, true},
		{"no limit", 0,
			Inbound{From: "a@example.com", Subject: "lyngk show 101", Body: "body\n", Size: len(mail)}, true},
		{"one byte over", int64(len(mail) - 1),
			Inbound{From: "a@example.com", Subject: "lyngk show 101", Size: len(mail), TooBig: true}, true},
		{"cut inside the header keeps the fields before the cut", 60,
			Inbound{From: "a@example.com", Subject: "lyngk show 101", Size: 61, TooBig: true}, true},
		{"cut inside the first field name", 3, Inbound{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(strings.NewReader(mail), tt.limit)
			if (err == nil) != tt.wantOK {
				t.Fatalf("err = %v, want ok %v", err, tt.wantOK)
			}
			checkInbound(t, got, tt.want)
		})
	}
}

func TestParseErrors(t *testing.T) {
	readErr := errors.New("connection reset")
	tests := []struct {
		name string
		mail string
	}{
		{"empty", ""},
		{"no header", "hello world\n"},
		{"continuation first", " From: a@example.com\n\nx\n"},
		{"blank line first", "\nFrom: a@example.com\n"},
		{"bad field name", "Fr om: a@example.com\n\nx\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Parse(strings.NewReader(tt.mail), 1<<20); err == nil || !strings.HasPrefix(err.Error(), "mailer: ") {
				t.Errorf("err = %v, want a mailer error", err)
			}
		})
	}
	t.Run("read error", func(t *testing.T) {
		_, err := Parse(iotest.ErrReader(readErr), 1<<20)
		if !errors.Is(err, readErr) {
			t.Errorf("err = %v, want %v", err, readErr)
		}
	})
}

func TestHTMLToText(t *testing.T) {
	tests := []struct {
		name, html, want string
	}{
		{"br and entities", "a&amp;b<br>c &lt;d&gt; &#233;&eacute;&nbsp;x", "a&b\nc <d> éé x\n"},
		{"white space collapses", "  one\n\t two  <b>three</b>\n", "one two three\n"},
		{"gmail divs", `<div dir="ltr">e4-e5<div><br></div><div>nice</div></div>`, "e4-e5\n\nnice\n"},
		{"paragraphs", "<P>one</P><p>two<p>three", "one\ntwo\nthree\n"},
		{"blank lines collapse", "a<br><br><br><br>b", "a\n\nb\n"},
		{"blockquote quotes", "reply<blockquote>q1<br>q2<blockquote>deeper</blockquote>back</blockquote>after",
			"reply\n> q1\n> q2\n> > deeper\n> back\nafter\n"},
		{"pre keeps spaces", "<pre>  A   B  \n  1   2</pre>x", "  A   B\n  1   2\nx\n"},
		{"script, style, title and comments skipped",
			"<head><title>T</title><style>p{color:red}</style></head><script>if (a<b) x()</script><!-- c<br> -->v<!--[if mso]>m<![endif]-->w",
			"vw\n"},
		{"unclosed script hides the rest", "a<script>b", "a\n"},
		{"quoted > in attribute", `<a title="x>y" href='z>'>link</a> text`, "link text\n"},
		{"literal less-than", "a < b and 3<4", "a < b and 3<4\n"},
		{"unclosed tag at end", "text<a href=", "text\n"},
		{"doctype and processing instruction", "<!DOCTYPE html><?xml version=\"1.0\"?>x", "x\n"},
		{"table cells", "<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>", "a b\nc\n"},
		{"list items", "<ul><li>one</li><li>two</li></ul>", "one\ntwo\n"},
		{"stray closing blockquote", "</blockquote>a", "a\n"},
		{"quote prefix capped", strings.Repeat("<blockquote>", 10) + "deep", "> > > > > > > > deep\n"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := htmlToText(tt.html); got != tt.want {
				t.Errorf("htmlToText(%q) = %q, want %q", tt.html, got, tt.want)
			}
		})
	}
}

func TestUnflow(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		delsp bool
		want  string
	}{
		{"joins flowed lines", "one \ntwo \nthree\nfour\n", false, "one two three\nfour\n"},
		{"delsp removes the space", "abc\ndef \nghi\n", true, "abc\ndefghi\n"},
		{"space-stuffing undone", " From here\n  two spaces\n", false, "From here\n two spaces\n"},
		{"quote depth ends a paragraph", "> quoted \nnot quoted\n", false, "> quoted \nnot quoted\n"},
		{"quoted paragraph", ">> a \n>> b\n>\n", false, ">> a b\n>\n"},
		{"signature separator is fixed", "-- \nAlice\n", false, "-- \nAlice\n"},
		{"no final line end", "a \nb", false, "a b"},
		{"flowed last line", "a \n", false, "a \n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := unflow(tt.in, tt.delsp); got != tt.want {
				t.Errorf("unflow(%q, %v) = %q, want %q", tt.in, tt.delsp, got, tt.want)
			}
		})
	}
}

// FuzzParse checks that no input panics (Parse turns a library panic into
// an "internal error", which fails here) and that every result keeps the
// promises of Inbound.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "mime", "*.eml"))
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		f.Add(readFixture(f, filepath.Base(file)), int64(0))
	}
	f.Add([]byte("From: a@b\nContent-Type: text/html\n\n<blockquote><pre>x</pre>"), int64(40))
	f.Add([]byte("From: a\nReferences: <<>> <a@b\n\n"), int64(0))
	f.Fuzz(func(t *testing.T, raw []byte, limit int64) {
		in, err := Parse(bytes.NewReader(raw), limit)
		if err != nil {
			if strings.Contains(err.Error(), "internal error") {
				t.Fatal(err)
			}
			return
		}
		for name, s := range map[string]string{"From": in.From, "FromName": in.FromName,
			"ReturnPath": in.ReturnPath, "Subject": in.Subject, "Body": in.Body} {
			if !utf8.ValidString(s) {
				t.Errorf("%s is not UTF-8: %q", name, s)
			}
		}
		if strings.Contains(in.Body, "\r") {
			t.Errorf("Body has a CR: %q", in.Body)
		}
		if strings.ContainsAny(in.Subject+in.FromName, "\r\n") {
			t.Errorf("Subject %q or FromName %q has a line break", in.Subject, in.FromName)
		}
		if in.TooBig && in.Body != "" {
			t.Errorf("TooBig with Body %q", in.Body)
		}
		if limit > 0 && int64(in.Size) > limit+1 || in.Size > len(raw) {
			t.Errorf("Size %d for %d bytes, limit %d", in.Size, len(raw), limit)
		}
		ids := append(append([]string{}, in.InReplyTo...), in.References...)
		if in.MessageID != "" {
			ids = append(ids, in.MessageID)
		}
		for _, id := range ids {
			// Compose must accept every parsed id, or answering the
			// mail would fail.
			if !validMsgID(id) {
				t.Errorf("bad message id %q", id)
			}
		}
	})
}

// FuzzHTMLToText checks that the renderer terminates on any input with
// tidy UTF-8 lines.
func FuzzHTMLToText(f *testing.F) {
	f.Add("<div>a<blockquote>b<pre> c \n</pre></blockquote></div>")
	f.Add("<script>x</scr<!--")
	f.Fuzz(func(t *testing.T, s string) {
		out := htmlToText(toUTF8(s))
		if !utf8.ValidString(out) {
			t.Errorf("not UTF-8: %q", out)
		}
		for line := range strings.Lines(out) {
			if l := strings.TrimSuffix(line, "\n"); strings.HasSuffix(l, " ") || strings.HasSuffix(l, "\t") {
				t.Errorf("trailing space in %q", line)
			}
		}
		if strings.HasPrefix(out, "\n") || strings.Contains(out, "\n\n\n") {
			t.Errorf("untidy blank lines: %q", out)
		}
	})
}

func BenchmarkParse(b *testing.B) {
	for _, name := range []string{"thunderbird-reply.eml", "gmail-alternative.eml", "outlook-html-cp1252.eml"} {
		raw := readFixture(b, name)
		b.Run(strings.TrimSuffix(name, ".eml"), func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(bytes.NewReader(raw), 1<<20); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestAuthFailed: the trusted authserv-id's Authentication-Results says the
// From is forged when SPF failed and DKIM did not pass; another id's field
// (which anybody may add) counts for nothing, nor any field without a
// trusted id.
func TestAuthFailed(t *testing.T) {
	const id = "mx.example.org"
	for _, c := range []struct {
		results []string
		id      string
		want    bool
	}{
		{[]string{"mx.example.org; spf=fail smtp.mailfrom=a@b.example; dkim=none"}, id, true},
		{[]string{"mx.example.org 1; spf=softfail smtp.mailfrom=b.example; dkim=fail header.d=b.example"}, id, true},
		{[]string{"MX.Example.Org; spf=fail smtp.mailfrom=b.example"}, id, true},
		{[]string{"mx.example.org; spf=fail smtp.mailfrom=b.example; dkim=pass header.d=b.example"}, id, false},
		{[]string{"mx.example.org; spf=pass smtp.mailfrom=b.example; dkim=none"}, id, false},
		{[]string{"mx.example.org; spf=neutral; dkim=none"}, id, false},
		{[]string{"evil.example; spf=fail; dkim=fail"}, id, false},
		{[]string{"mx.example.org; spf=pass; dkim=pass", "mx.example.org; spf=fail; dkim=fail"}, id, false},
		{[]string{"mx.example.org; spf=fail; dkim=fail"}, "", false},
		{nil, id, false},
	} {
		if got := AuthFailed(c.results, c.id); got != c.want {
			t.Errorf("AuthFailed(%q, %q) = %v, want %v", c.results, c.id, got, c.want)
		}
	}
	in, err := Parse(strings.NewReader("From: a@b.example\r\nAuthentication-Results: mx.example.org;\r\n spf=fail smtp.mailfrom=b.example;\r\n dkim=none\r\nSubject: help\r\n\r\nhelp\r\n"), 0)
	if err != nil || !AuthFailed(in.AuthResults, id) {
		t.Fatalf("parsed %q: %v", in.AuthResults, err)
	}
}
