package engine

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// cleanText removes the control characters other than TAB and the line
// end from text that is relayed to other people (comments, chat): NUL,
// ESC and the rest of C0, DEL and C1 would reach their terminals and mail
// programs as they are (ANSI escape sequences, cut strings). Invalid UTF-8
// becomes U+FFFD.
func cleanText(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || r != '\t' && r != '\n' && unicode.IsControl(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r != '\t' && r != '\n' && unicode.IsControl(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}
