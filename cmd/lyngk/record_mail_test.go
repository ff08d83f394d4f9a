package main

import (
	"bytes"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/emersion/go-message"

	"lyngk.example/lyngk/engine"
)

// TestComposeAttachments: the engine's attachments (the SGF of `GAME
// record BOARD`) reach the composed mail as an attached file, byte for
// byte, after the text.
func TestComposeAttachments(t *testing.T) {
	a := testApp(t, filepath.Join(t.TempDir(), "lyngk.db"))
	sgf := []byte("(;\nGM[24]\nSU[Yinsh]\n)\n")
	raw, err := a.compose(engine.Mail{To: []string{"alice@example.com"}, Subject: "Yinsh Board 101 record", Body: "The record.\n",
		Attachments: []engine.Attachment{{Filename: "yinsh-101.sgf", ContentType: "application/x-go-sgf; charset=utf-8", Data: sgf}}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	e, err := message.Read(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	mr := e.MultipartReader()
	if mr == nil {
		t.Fatalf("not multipart:\n%s", raw)
	}
	var parts []string
	for p, err := mr.NextPart(); err == nil; p, err = mr.NextPart() {
		ct, _, _ := p.Header.ContentType()
		parts = append(parts, ct)
		if _, params, _ := p.Header.ContentDisposition(); params["filename"] == "yinsh-101.sgf" {
			if b, _ := io.ReadAll(p.Body); !bytes.Equal(b, sgf) {
				t.Errorf("attachment %q", b)
			}
		}
	}
	if len(parts) != 2 || parts[0] != "text/plain" || parts[1] != "application/x-go-sgf" {
		t.Errorf("parts %v\n%s", parts, raw)
	}
}
