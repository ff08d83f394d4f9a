package engine

import (
	"strings"
	"testing"
)

// FuzzAttribution: whatever the lines, an attribution takes at most
// maxAttributionLines of them, none blank or quoted, the last ending in
// ":"; attributionAbove finds one ending where it is asked to.
func FuzzAttribution(f *testing.F) {
	f.Add("e4-e5\nSee you at 10:30\nOn Sat, 28 Nov 2026 12:40:19 +0000\nPBeM Server <lyngk@example.org> wrote:\n> x\n")
	f.Add("Em sáb., 28 de nov. de 2026 às 12:59, PBeM Server <a@b>\nescreveu:\n")
	f.Add("PBeM Server <\nlyngk@example.org> wrote:\n\n\t x\n")
	f.Fuzz(func(t *testing.T, body string) {
		lines := strings.Split(body, "\n")
		for i := range lines {
			n := attribution(lines, i)
			if n < 0 || n > maxAttributionLines || i+n > len(lines) {
				t.Fatalf("attribution(%q, %d) = %d", lines, i, n)
			}
			if n == 0 {
				continue
			}
			for _, l := range lines[i : i+n] {
				if strings.TrimSpace(l) == "" || quoted(l) {
					t.Fatalf("attribution(%q, %d) = %d takes a blank or quoted line", lines, i, n)
				}
			}
			if !strings.HasSuffix(strings.TrimSpace(lines[i+n-1]), ":") {
				t.Fatalf("attribution(%q, %d) = %d does not end in a colon", lines, i, n)
			}
			if s := attributionAbove(lines, i+n-1); s < 0 || s > i+n-1 || i+n-1-s >= maxAttributionLines {
				t.Fatalf("attributionAbove(%q, %d) = %d", lines, i+n-1, s)
			}
		}
	})
}
