package engine

import (
	"regexp"
	"strings"

	"lyngk.example/lyngk/templates"
)

// Attributions. A client writes a line above the mail it quotes, "On
// <date>, <name> <addr> wrote:" in one of many languages and forms, and
// wraps it where it likes: Gmail after the "<" of the address ("On Sat,
// Nov 28, 2026 at 12:40 PM PBeM Server <" / "lyngk@example.org> wrote:")
// or before its verb (Portuguese "Em sáb., 28 de nov. de 2026 às 12:59,
// PBeM Server <addr>" / "escreveu:"); Claws Mail puts the date on a line of
// its own ("On Sat, 28 Nov 2026 12:40:19 +0000" / "PBeM Server <addr>
// wrote:"). An attribution is up to maxAttributionLines lines, none blank
// or quoted, that together end in ":" and name an address, the robot
// (templates.DefaultServer) or a date, and either end a line with a "wrote"-like verb
// (wroteEnd, wroteMid) or stand right above the quoted mail. Each of its
// lines but the last ends without a sentence's punctuation (a full stop
// only after an opening word: "Am Sa., 28. Nov." wraps there), and its
// first line names the sender or opens the attribution ("On", "Am", "Em",
// …). A player's line right above a shorter attribution stays his: the
// shorter one is the attribution when the longer has no opening word and
// the shorter begins as one does (attributionBegins: "See you at 10:30"
// above Claws Mail's two lines), or when the longer's line ends in a full
// stop and the shorter has an opening word.
const (
	maxAttributionLines = 3
	// maxAttributionLine bounds a line looked at as part of an
	// attribution: the longest clients write are around 120 characters.
	maxAttributionLine = 300
)

var (
	// attributionStart is the first word of an attribution in the
	// languages of the clients known to write one: English, French,
	// German, Spanish and Portuguese ("El", "Em", "No"), Dutch, Italian,
	// Scandinavian ("Den"), Polish ("W dniu", "Dnia"), Czech ("Dne"),
	// Romanian ("Pe"), Greek.
	attributionStart = regexp.MustCompile(`^(On|Le|Am|El|Em|No|Op|Il|Den|Dne|Dnia|W dniu|Pe|Στις) `)
	// wroteEnd is a line of an attribution that ends with its verb ("…
	// wrote:", "… a écrit :", "escreveu:"), in English, French, German,
	// Portuguese, Spanish, Italian, Dutch (Apple's "het volgende
	// geschreven"), Polish, the Scandinavian languages, Finnish, Czech,
	// Hungarian, Romanian, Turkish, Greek and Russian; wroteMid the verb of
	// the languages that put the name after it ("Am … schrieb PBeM Server
	// <addr>:", "… skrev PBeM Server:", K-9's "PBeM Server <addr> schrieb
	// am 21. November 2026 22:52:07 MEZ:").
	wroteEnd = regexp.MustCompile(`(?i)(^|[\s,)>])(wrote|writes|a écrit|schrieb|escreveu|escribió|escribio|ha scritto|scrisse|` +
		`schreef|geschreven|napisał|napisała|napisal|skrev|kirjoitti|napsal|napsala|írta|a scris|yazdı|έγραψε|написал|написала)\s*[:,]?$`)
	wroteMid = regexp.MustCompile(`(?i)(^|\s)(schrieb|schreef|skrev|kirjoitti|napisał|napisała|napsal|napsala|írta|написал|написала)\s.*:$`)
	// attributionOpenEnd is how a line of an attribution that goes on may
	// end: not with a sentence's punctuation (a player's "Good game!").
	attributionOpenEnd = regexp.MustCompile(`[.!?:;]$`)
)

// attribution recognises the attribution that starts at lines[i] (any
// line ending in ":" that names the sender right above a quoted block,
// whatever its words: NeoMutt's "* PBeM Server <addr> [2026-11-26
// 11:58]:", a Japanese client's "2026年11月26日(木) 11:58 PBeM Server
// <addr>:"). It returns the number of lines it takes: 0 for none.
func attribution(lines []string, i int) int {
	return attributionAt(lines, i, false)
}

// attributionAt is attribution; aboveCopy says that a copy of our mail,
// cut (cutCopies), stands below the line where it could end, as a quote
// would.
func attributionAt(lines []string, i int, aboveCopy bool) int {
	for n := 1; n <= maxAttributionLines && i+n <= len(lines); n++ {
		t := strings.TrimSpace(lines[i+n-1])
		if t == "" || len(t) > maxAttributionLine || quoted(lines[i+n-1]) {
			return 0
		}
		if strings.HasSuffix(t, ":") {
			if attributionBlock(lines, i, n, aboveCopy) {
				return n
			}
			return 0
		}
	}
	return 0
}

// attributionBlock reports whether lines[i:i+n], whose last line alone
// ends in ":", is an attribution.
func attributionBlock(lines []string, i, n int, aboveCopy bool) bool {
	block := make([]string, n)
	for k := range block {
		block[k] = strings.TrimSpace(lines[i+k])
	}
	joined := strings.Join(block, " ")
	start := attributionStart.MatchString(block[0])
	verb := wroteMid.MatchString(joined)
	for _, l := range block {
		verb = verb || wroteEnd.MatchString(l)
	}
	switch {
	case !namesSender(joined) && !(start && verb):
		// "On the forum, alice wrote:" is a quote of the player's.
		return false
	case !verb && !aboveCopy && !aboveQuote(lines, i+n-1):
		return false
	case n == 1:
		return true
	case !start && !namesSender(block[0]):
		return false
	}
	abbreviated := false
	for _, l := range block[:n-1] {
		// A date's abbreviation may end a wrapped line ("Am Sa., 28.
		// Nov." / "2026 um 12:40 schrieb …:"), a sentence may not.
		if strings.HasSuffix(l, ".") && start {
			abbreviated = true
		} else if attributionOpenEnd.MatchString(l) {
			return false
		}
	}
	// The player's line right above a shorter attribution stays his: when
	// the block has no opening word and the shorter begins as one does
	// (attributionBegins), or when a line of the block ends in a full stop
	// and the shorter has an opening word ("On second thought, good
	// move." above "On Sat, 28 Nov 2026 …" / "PBeM Server <addr> wrote:").
	for k := 1; k < n && (!start || abbreviated); k++ {
		begins := attributionBegins(block[k])
		if abbreviated {
			begins = attributionStart.MatchString(block[k])
		}
		if begins && attributionBlock(lines, i+k, n-k, aboveCopy) {
			return false
		}
	}
	return true
}

// attributionBegins reports whether line t begins as an attribution does:
// with an opening word, the robot's name, or a date.
func attributionBegins(t string) bool {
	return attributionStart.MatchString(t) || strings.HasPrefix(strings.ToLower(t), strings.ToLower(templates.DefaultServer)) ||
		t != "" && t[0] >= '0' && t[0] <= '9'
}

// attributionAbove returns the first line of the attribution that ends at
// lines[end], right above a copy of our mail that cutCopies cuts; -1 for
// none. The longest wins: the last line of Gmail's "On … PBeM Server <" /
// "lyngk@example.org> wrote:" is an attribution by itself.
func attributionAbove(lines []string, end int) int {
	for n := maxAttributionLines; n >= 1; n-- {
		if end-n+1 >= 0 && attributionAt(lines, end-n+1, true) == n {
			return end - n + 1
		}
	}
	return -1
}

// aboveQuote reports whether the next line after lines[i] that is not blank
// is quoted.
func aboveQuote(lines []string, i int) bool {
	for j := i + 1; j < len(lines); j++ {
		if strings.TrimSpace(lines[j]) != "" {
			return quoted(lines[j])
		}
	}
	return false
}

// namesSender reports whether an attribution-like line names an address,
// the server or a date: what a player's own line ending in ":" above a
// quote ("I agree with this:") does not. The server is looked for by its
// default display name (templates.DefaultServer); one the operator chose is
// not, since the clients' attributions that name the sender name its
// address or the date as well.
func namesSender(t string) bool {
	return strings.Contains(t, "@") || strings.Contains(strings.ToLower(t), strings.ToLower(templates.DefaultServer)) || dateOrTime.MatchString(t)
}

// dateOrTime is a time ("11:58"), a year ("2026") or a numeric date
// ("26.11.26", "11/26/2026").
var dateOrTime = regexp.MustCompile(`\d{1,2}:\d{2}|(^|\D)(19|20)\d{2}(\D|$)|\d{1,2}[./-]\d{1,2}[./-]\d{2}`)
