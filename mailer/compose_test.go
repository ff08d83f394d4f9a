package mailer

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/emersion/go-message"

	"lyngk.example/lyngk/engine/golden"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata")

// boardMail is a reply as the engine writes it: the board block has
// trailing spaces that must survive.
var boardMail = Outgoing{
	From:    "lyngk@example.net",
	To:      []string{"Jörg Schäfer <joerg@example.de>"},
	Subject: "Lyngk Board 102 jörg",
	Body: "Summary of Lyngk Board 102\n\nIt is jörg's turn.\n\n" +
		"                          \n   alice        jörg      \n   1 g2-d5      2 c1-e2   \n\n" +
		"Available Colors: (Red)\nalice: 0 stacks (Blue,Green) claimed.\njörg: 0 stacks (Ivory,blacK) claimed.\n\n" +
		"   A   B   C   D   E   F   G   H   I\n" +
		"           -       KG      J            \n" +
		"               R       R                    \n",
	MessageID:  "lyngk.102.3.k3j4h5g6@example.net",
	InReplyTo:  "7f1d2c3b-4a5e-6f70-8192-a3b4c5d6e7f8@example.com",
	References: []string{"lyngk.102.2.p9q8r7s6@example.net", "7f1d2c3b-4a5e-6f70-8192-a3b4c5d6e7f8@example.com"},
	Date:       time.Date(2026, 11, 3, 9, 12, 45, 0, time.FixedZone("CET", 3600)),
}

func TestComposeGolden(t *testing.T) {
	got, err := Compose(boardMail)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "mime", "composed-reply.golden"), string(got), *update)
}

// TestComposeFormat checks the properties SPEC §4 and RFC 5322 ask of every
// reply, on mails that the golden file does not show.
func TestComposeFormat(t *testing.T) {
	m := boardMail
	m.MessageID, m.AutoSubmitted, m.Subject = "", "auto-generated", "Nag: Lyngk Board 102 bob"
	m.Body = strings.Repeat("long line ", 30) + "\n.\nFrom here\n"
	raw, err := Compose(m)
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	for _, want := range []string{
		"\r\nSubject: Nag: Lyngk Board 102 bob\r\n", // ASCII: not encoded
		"\r\nAuto-Submitted: auto-generated\r\n",
		"\r\nMIME-Version: 1.0\r\n",
		"\r\nContent-Type: text/plain; charset=utf-8\r\n",
		"\r\nContent-Transfer-Encoding: quoted-printable\r\n",
		"\r\n.\r\nFrom here\r\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("mail lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "flowed") {
		t.Errorf("mail is format=flowed:\n%s", s)
	}
	if strings.Count(s, "\n") != strings.Count(s, "\r\n") || strings.Count(s, "\r") != strings.Count(s, "\r\n") {
		t.Errorf("line ends are not all CRLF:\n%q", s)
	}
	for line := range strings.Lines(s) {
		if len(line) > 78 {
			t.Errorf("line longer than 78 characters: %q", line)
		}
	}
	generated := regexp.MustCompile(`\r\nMessage-ID: <[0-9A-Z]+\.[0-9A-Z]+@example\.net>\r\n`)
	if !generated.MatchString(s) {
		t.Errorf("no generated Message-ID in the robot's domain:\n%s", s)
	}
	again, err := Compose(m)
	if err != nil {
		t.Fatal(err)
	}
	if id := generated.FindString(string(again)); id == generated.FindString(s) {
		t.Errorf("the same Message-ID twice: %s", id)
	}
}

func TestComposeDefaults(t *testing.T) {
	m := Outgoing{From: "lyngk@example.net", To: []string{"bob@example.com"}, Body: "x\n"}
	before := time.Now().Truncate(time.Second)
	raw, err := Compose(m)
	if err != nil {
		t.Fatal(err)
	}
	in, err := Parse(bytes.NewReader(raw), 0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), "\r\nAuto-Submitted: auto-replied\r\n") {
		t.Errorf("Auto-Submitted is not auto-replied by default:\n%s", raw)
	}
	if strings.Contains(string(raw), "In-Reply-To") || strings.Contains(string(raw), "References") {
		t.Errorf("empty In-Reply-To or References written:\n%s", raw)
	}
	if in.InReplyTo != nil || in.References != nil {
		t.Errorf("InReplyTo %q, References %q, want none", in.InReplyTo, in.References)
	}
	date, _, _ := strings.Cut(strings.SplitAfter(string(raw), "Date: ")[1], "\r\n")
	d, err := time.Parse(time.RFC1123Z, date)
	if err != nil || d.Before(before) || d.After(time.Now()) {
		t.Errorf("Date %q is not now (%v)", date, err)
	}
}

// TestComposeRoundTrip composes and parses again: the body must come back
// byte for byte, as must the headers the engine relies on.
func TestComposeRoundTrip(t *testing.T) {
	tests := []struct {
		name, subject, body, wantBody string
	}{
		{"board block", boardMail.Subject, boardMail.Body, boardMail.Body},
		{"trailing spaces and tabs", "s", "a  \nb\t\n \n\t\nend   ", "a  \nb\t\n \n\t\nend   "},
		{"From and dot lines", "s", "From here\n.\n..\n>From there\nFrom\n", "From here\n.\n..\n>From there\nFrom\n"},
		{"long lines", "s", strings.Repeat("x", 77) + "\n" + strings.Repeat("é", 200) + "\n" + strings.Repeat("a b ", 60) + "\n",
			strings.Repeat("x", 77) + "\n" + strings.Repeat("é", 200) + "\n" + strings.Repeat("a b ", 60) + "\n"},
		{"equals signs", "s", "=\n=20\n==\nx=\n", "=\n=20\n==\nx=\n"},
		{"no final line end", "s", "last", "last"},
		{"empty", "s", "", ""},
		{"CRLF and CR become LF", "s", "a\r\nb\rc", "a\nb\nc"},
		{"non-ASCII subject", "Lyngk Board 101 Jörg ♟ 日本", "x", "x"},
		{"long ASCII subject", strings.Repeat("Lyngk Board 101 ", 8) + "end", "x", "x"},
		{"long non-ASCII subject", strings.Repeat("Zug für Jörg ", 10) + "Ende", "x", "x"},
		{"invalid UTF-8 replaced", "bad \xff", "bad \xff\n", "bad \uFFFD\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := boardMail
			m.Subject, m.Body = tt.subject, tt.body
			raw, err := Compose(m)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Parse(bytes.NewReader(raw), 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			want := Inbound{
				MessageID:  m.MessageID,
				From:       "lyngk@example.net",
				Subject:    strings.ToValidUTF8(tt.subject, "\uFFFD"),
				Body:       tt.wantBody,
				InReplyTo:  []string{m.InReplyTo},
				References: m.References,
				Auto:       "auto-submitted",
				Size:       len(raw),
			}
			checkInbound(t, got, want)
		})
	}
}

func TestComposeErrors(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*Outgoing)
	}{
		{"bad From", func(m *Outgoing) { m.From = "not an address" }},
		{"no To", func(m *Outgoing) { m.To = nil }},
		{"bad To", func(m *Outgoing) { m.To = []string{"bob@example.com", "bob at example"} }},
		{"header injection in Message-ID", func(m *Outgoing) { m.MessageID = "a@b>\r\nBcc: x@example.com" }},
		{"space in In-Reply-To", func(m *Outgoing) { m.InReplyTo = "a b@c" }},
		{"bracket in References", func(m *Outgoing) { m.References = []string{"<a@b>"} }},
		{"empty reference", func(m *Outgoing) { m.References = []string{""} }},
		{"unknown Auto-Submitted", func(m *Outgoing) { m.AutoSubmitted = "no" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := boardMail
			m.To = append([]string(nil), m.To...)
			tt.modify(&m)
			if raw, err := Compose(m); err == nil || !strings.HasPrefix(err.Error(), "mailer: compose: ") {
				t.Errorf("err = %v, want a compose error; mail:\n%s", err, raw)
			}
		})
	}
}

// FuzzComposeRoundTrip: any UTF-8 body comes back from Parse exactly, but
// for line ends, which a text mail only has as CRLF.
func FuzzComposeRoundTrip(f *testing.F) {
	f.Add(boardMail.Body, boardMail.Subject)
	f.Add("From x\n.\n=41 \t\n", "s")
	f.Add(strings.Repeat("é", 100)+"  ", "Ünïcödé")
	f.Fuzz(func(t *testing.T, body, subject string) {
		if !utf8.ValidString(body) || !utf8.ValidString(subject) {
			t.Skip()
		}
		m := boardMail
		m.Body, m.Subject = body, subject
		raw, err := Compose(m)
		if err != nil {
			t.Fatal(err)
		}
		in, err := Parse(bytes.NewReader(raw), 0)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.ReplaceAll(strings.ReplaceAll(body, "\r\n", "\n"), "\r", "\n")
		if in.Body != want {
			t.Errorf("Body = %q, want %q", in.Body, want)
		}
		if !reflect.DeepEqual(in.References, m.References) || in.MessageID != m.MessageID {
			t.Errorf("ids = %q %q, want %q %q", in.MessageID, in.References, m.MessageID, m.References)
		}
	})
}

func BenchmarkCompose(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compose(boardMail); err != nil {
			b.Fatal(err)
		}
	}
}

// htmlMail is boardMail with its HTML alternative and the board picture.
func htmlMail() Outgoing {
	m := boardMail
	m.HTML = "<!DOCTYPE html>\n<html><body><p>It is j\u00f6rg's turn.</p><img src=\"cid:board.102@example.net\" width=\"600\" height=\"600\" alt=\"Board 102\"></body></html>\n"
	m.Inline = []InlinePart{{ContentID: "board.102@example.net", ContentType: "image/png", Filename: "board-102.png", Data: []byte("\x89PNG\r\n\x1a\nnot really a picture \x00\xff")}}
	return m
}

// TestComposeAlternative checks the structure of a mail with HTML: a
// multipart/alternative of the text (byte for byte, trailing spaces kept)
// and a multipart/related of the HTML and its picture, the picture's
// Content-ID the one the HTML names; composing twice gives the same bytes.
func TestComposeAlternative(t *testing.T) {
	m := htmlMail()
	raw, err := Compose(m)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Compose(m)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(raw, again) {
		t.Error("composing twice gives different bytes")
	}
	golden.Check(t, filepath.Join("testdata", "mime", "composed-alternative.golden"), string(raw), *update)
	e, err := message.Read(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var walk func(e *message.Entity, depth int)
	walk = func(e *message.Entity, depth int) {
		t.Helper()
		ct, params, _ := e.Header.ContentType()
		got = append(got, strings.Repeat(" ", depth)+ct)
		if mr := e.MultipartReader(); mr != nil {
			for {
				p, err := mr.NextPart()
				if err != nil {
					break
				}
				walk(p, depth+1)
			}
			return
		}
		b, err := io.ReadAll(e.Body)
		if err != nil {
			t.Fatal(err)
		}
		switch ct {
		case "text/plain":
			if string(b) != strings.ReplaceAll(m.Body, "\n", "\r\n") || params["format"] != "" {
				t.Errorf("text part %q (params %v), want the body unchanged", b, params)
			}
		case "text/html":
			if !strings.Contains(string(b), "jörg's turn") {
				t.Errorf("html part %q", b)
			}
		case "image/png":
			if !bytes.Equal(b, m.Inline[0].Data) || e.Header.Get("Content-Id") != "<board.102@example.net>" {
				t.Errorf("picture %q with Content-ID %q", b, e.Header.Get("Content-Id"))
			}
		}
	}
	walk(e, 0)
	want := []string{"multipart/alternative", " text/plain", " multipart/related", "  text/html", "  image/png"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("structure %q, want %q", got, want)
	}
	// The text part is what a reader of the mail gets as its text.
	in, err := Parse(bytes.NewReader(raw), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if in.Body != m.Body {
		t.Errorf("parsed body %q, want %q", in.Body, m.Body)
	}
}

// movePicture stands for a board picture: 20 KB that do not compress, the
// size of a PNG of the board.
func movePicture() []byte {
	p := make([]byte, 20<<10)
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range p {
		p[i] = byte(rnd.Uint32())
	}
	return p
}

// BenchmarkComposeMove composes the two board mails of a move: the same
// picture (one slice, as the engine shares it), a 4 KB HTML part each,
// different recipients and Message-IDs.
func BenchmarkComposeMove(b *testing.B) {
	m := htmlMail()
	m.HTML = strings.Repeat("<p>A line of the board mail's HTML part, with its <b>words</b>.</p>\n", 60)
	m.Inline[0].Data = movePicture()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		for _, to := range []string{"alice@example.org", "bob@example.org"} {
			m.To = []string{to}
			m.MessageID = fmt.Sprintf("move-%d-%s@example.net", i, to)
			if _, err := Compose(m); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestComposePictureBase64: a picture's part body is encoded once and kept
// (base64Cache), and is byte for byte what go-message's base64 writer
// makes, for every length of the last line; the composed mail carries the
// picture whole, and a caller's buffer reused for another picture gets
// that one.
func TestComposePictureBase64(t *testing.T) {
	big := movePicture()
	for _, n := range append([]int{0, 1, 2, 3, 56, 57, 58, 113, 114, 115, 1000}, len(big)) {
		data := big[:n]
		var want bytes.Buffer
		var h message.Header
		h.Set("Content-Transfer-Encoding", "base64")
		w, err := message.CreateWriter(&want, h)
		if err != nil {
			t.Fatal(err)
		}
		// go-message's body follows its header's blank line.
		start := want.Len()
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		var c base64Cache
		if got := c.base64(data); !bytes.Equal(got, want.Bytes()[start:]) {
			t.Errorf("%d bytes: base64 body\n%q\nwant\n%q", n, got, want.Bytes()[start:])
		}
	}
	picture := func(raw []byte) []byte {
		t.Helper()
		e, err := message.Read(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		var found []byte
		_ = e.Walk(func(_ []int, p *message.Entity, err error) error {
			if ct, _, _ := p.Header.ContentType(); ct == "image/png" {
				found, err = io.ReadAll(p.Body)
			}
			return err
		})
		return found
	}
	m := htmlMail()
	buf := bytes.Clone(big)
	m.Inline[0].Data = buf
	raw, err := Compose(m)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(picture(raw), big) {
		t.Error("the composed mail's picture differs from the picture given")
	}
	for i := range buf {
		buf[i] ^= 0x55
	}
	if raw, err = Compose(m); err != nil {
		t.Fatal(err)
	}
	if got := picture(raw); !bytes.Equal(got, buf) {
		t.Error("a buffer reused for another picture composed to the first picture")
	}
}
