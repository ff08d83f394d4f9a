package mailer

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/emersion/go-message"
)

// TestComposeAttachments: a mail with a file attached is multipart/mixed,
// its text (or the alternative of text and HTML) first, then the file in
// base64 with its name; the file reads back byte for byte. A bad
// attachment is refused.
func TestComposeAttachments(t *testing.T) {
	sgf := []byte("(;\nGM[24]\nSU[Yinsh]\n; P0[0 Start White]\n)\n")
	file := Attachment{Filename: "yinsh-101.sgf", ContentType: "application/x-go-sgf; charset=utf-8", Data: sgf}
	text := boardMail
	text.Attachments = []Attachment{file}
	html := htmlMail()
	html.Attachments = []Attachment{file}
	for _, tt := range []struct {
		name string
		m    Outgoing
		want []string
	}{
		{"text", text, []string{"multipart/mixed", " text/plain", " application/x-go-sgf"}},
		{"html", html, []string{"multipart/mixed", " multipart/alternative", "  text/plain", "  multipart/related",
			"   text/html", "   image/png", " application/x-go-sgf"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := Compose(tt.m)
			if err != nil {
				t.Fatal(err)
			}
			e, err := message.Read(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			var walk func(e *message.Entity, depth int)
			walk = func(e *message.Entity, depth int) {
				ct, _, _ := e.Header.ContentType()
				got = append(got, strings.Repeat(" ", depth)+ct)
				if mr := e.MultipartReader(); mr != nil {
					for p, err := mr.NextPart(); err == nil; p, err = mr.NextPart() {
						walk(p, depth+1)
					}
					return
				}
				b, _ := io.ReadAll(e.Body)
				switch ct {
				case "text/plain":
					if string(b) != strings.ReplaceAll(tt.m.Body, "\n", "\r\n") {
						t.Errorf("text part %q", b)
					}
				case "application/x-go-sgf":
					_, params, _ := e.Header.ContentDisposition()
					if !bytes.Equal(b, sgf) || params["filename"] != "yinsh-101.sgf" {
						t.Errorf("attachment %q named %v", b, params)
					}
				}
			}
			walk(e, 0)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("structure\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
	for _, a := range []Attachment{{Filename: "", ContentType: "text/plain"}, {Filename: "a\"b", ContentType: "text/plain"},
		{Filename: "x.sgf", ContentType: ""}} {
		m := boardMail
		m.Attachments = []Attachment{a}
		if _, err := Compose(m); err == nil {
			t.Errorf("attachment %+v composed", a)
		}
	}
}
