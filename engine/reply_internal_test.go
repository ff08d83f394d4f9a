package engine

import (
	"os"
	"strings"
	"testing"
)

// copySent is a board mail's text as kept by keepSent in the fuzz test and
// the benchmark: the board block has lines that occur twice.
const copySent = "Summary of Lyngk Board 101\n\nIt is bob's turn.\n\n   A   B   C\n   1   4   7\n\n   G   B   K\n       G   I\n   G   B   K\n\n   A   B   C\n   1   1   1\n\n" +
	"************************************************************\nalice writes:\nthanks\nthanks\na1-b2\n"

// FuzzCutCopies: whatever a reply says, cutCopies only drops whole lines
// of it, and keeps a reply none of whose lines is a line of the mail as it
// is.
func FuzzCutCopies(f *testing.F) {
	f.Add("e4-e5\nthanks\n\n" + copySent)
	f.Add(copySent + "e4-e5\n> thanks\n")
	f.Add("thanks\na1-b2\n\n   G   B   K\r\n\tG I\n")
	f.Add("e4-e5\n\nOn Sat, Nov 28, 2026 at 12:40 PM PBeM Server <\nlyngk@example.org> wrote:\n\n> " +
		strings.ReplaceAll(copySent, "\n", "\n> "))
	f.Add("On Sat, 28 Nov 2026 12:40:19 +0000\nPBeM Server <lyngk@example.org> wrote:\n" + copySent + "e4-e5\n")
	parts := [][]byte{lineHashes(copySent), lineHashes("Summary of Lyngk Board 101\nthanks a1-b2\n")}
	f.Fuzz(func(t *testing.T, body string) {
		got := cutCopies(body, parts)
		in := strings.SplitAfter(body, "\n")
		j := 0
		for l := range strings.Lines(got) {
			for j < len(in) && in[j] != l {
				j++
			}
			if j == len(in) {
				t.Fatalf("cutCopies(%q) = %q: not lines of the reply in order", body, got)
			}
			j++
		}
		mailLine := map[string]bool{}
		for l := range strings.Lines(copySent + "Summary of Lyngk Board 101\nthanks a1-b2\n") {
			mailLine[copyLine(l)] = true
		}
		for l := range strings.Lines(body) {
			if s := copyLine(l); s != "" && mailLine[s] {
				return
			}
		}
		if len(strings.Fields(body)) < 40 && got != body {
			t.Fatalf("cutCopies(%q) = %q, no line of it is the mail's", body, got)
		}
	})
}

// BenchmarkCutCopiesHostile: the worst reply for cutCopies, 64 KB of lines
// that are each in the mail several times, copies that never count
// (blank lines between), searched in full.
func BenchmarkCutCopiesHostile(b *testing.B) {
	var sent strings.Builder
	for range maxSentLines {
		sent.WriteString("x\n")
	}
	parts := [][]byte{lineHashes(sent.String()), lineHashes(sent.String())}
	body := strings.Repeat("x\n\n", MaxReply/3)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if got := cutCopies(body, parts); got != body {
			b.Fatal("a copy counted")
		}
	}
}

// BenchmarkCutCopies: a reply with a copy of the mail below the move.
func BenchmarkCutCopies(b *testing.B) {
	parts := [][]byte{lineHashes(copySent), nil}
	body := "e4-e5\nNice.\n\n" + copySent
	for b.Loop() {
		if got := cutCopies(body, parts); got != "e4-e5\nNice.\n\n" {
			b.Fatalf("got %q", got)
		}
	}
}

// BenchmarkHTMLText is the text of a board mail's HTML part (the golden
// of TestBoardHTML), made for keepSent's line hashes of every board mail
// with pictures.
func BenchmarkHTMLText(b *testing.B) {
	page, err := os.ReadFile("testdata/board-html.golden")
	if err != nil {
		b.Fatal(err)
	}
	s := string(page)
	b.ReportAllocs()
	for b.Loop() {
		htmlText(s)
	}
}
