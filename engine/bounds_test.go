package engine

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzCutBody checks that a cut body, whatever its text, keeps m within
// the limit as bodyCost reckons it, is a prefix of the text (plus the
// note), and stays UTF-8.
func FuzzCutBody(f *testing.F) {
	f.Add(strings.Repeat("é", 40000), 4096)
	f.Add(strings.Repeat("line of text\n", 9000), 65536)
	f.Add("x", 700)
	f.Fuzz(func(t *testing.T, body string, limit int) {
		body = strings.ToValidUTF8(body, "\uFFFD")
		limit = 2000 + abs(limit)%(1<<17)
		m := Mail{To: []string{"alice@example.com"}, Subject: "Lyngk Board 101 alice", Body: body}
		got := cutBody(m, limit)
		if got == body {
			if headerCost(m)+bodyCost(body) > limit {
				t.Fatalf("not cut, but %d bytes over %d", headerCost(m)+bodyCost(body), limit)
			}
			return
		}
		kept, ok := strings.CutSuffix(got, cutNote)
		if !ok || !strings.HasPrefix(body, kept) {
			t.Fatalf("cut body is not a prefix and the note")
		}
		if n := headerCost(m) + bodyCost(got); n > limit {
			t.Fatalf("cut to %d bytes, over %d", n, limit)
		}
		if !utf8.ValidString(got) {
			t.Fatalf("cut inside a character")
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// FuzzQuoteAndEcho checks the cuts of what an error mail quotes back:
// at most MaxEcho characters for an argument, MaxQuote bytes (and the
// marks) for the quote, valid UTF-8 throughout.
func FuzzQuoteAndEcho(f *testing.F) {
	f.Add("Subject: "+strings.Repeat("é", 3000), "lyngk show x")
	f.Add("", "")
	f.Fuzz(func(t *testing.T, a, b string) {
		a, b = strings.ToValidUTF8(a, "?"), strings.ToValidUTF8(b, "?")
		e := echo(a)
		if n := utf8.RuneCountInString(e); n > MaxEcho || n < MaxEcho && e != a {
			t.Fatalf("echo of %d characters gave %d", utf8.RuneCountInString(a), n)
		}
		q := quoteLines([]string{a, "", b})
		n := 0
		for _, l := range q {
			if !utf8.ValidString(l) {
				t.Fatalf("quote line not UTF-8: %q", l)
			}
			n += len(l) + 1
		}
		if n > MaxQuote+len("…")+1 {
			t.Fatalf("quote of %d bytes", n)
		}
	})
}

// FuzzCleanText checks that relayed text keeps no control character but
// TAB and LF, and loses nothing else.
func FuzzCleanText(f *testing.F) {
	f.Add("a\x00b\x1b[31mc\u0085d\te\nf\x7f")
	f.Fuzz(func(t *testing.T, s string) {
		got := cleanText(s)
		if !utf8.ValidString(got) {
			t.Fatalf("not UTF-8: %q", got)
		}
		for _, r := range got {
			if r != '\t' && r != '\n' && (r < 0x20 || r >= 0x7f && r < 0xa0) {
				t.Fatalf("control %U kept in %q", r, got)
			}
		}
		if utf8.ValidString(s) && len(got) < len(s) && !strings.ContainsFunc(s, func(r rune) bool {
			return r != '\t' && r != '\n' && (r < 0x20 || r >= 0x7f && r < 0xa0)
		}) {
			t.Fatalf("clean text %q lost characters: %q", s, got)
		}
	})
}
