package engine

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The bounds on what one incoming mail may cause (engine/doc.go, "Bounds").
// A forged From points everything a mail causes at a victim, so none of
// these depends on who the sender claims to be.
const (
	// MaxMails and MaxBytes bound the mails one incoming mail causes, the
	// summary of what was left out included.
	MaxMails = 25
	MaxBytes = 4 << 20
	// MaxReply bounds every mail's size on the wire, its board picture
	// apart.
	MaxReply = 64 << 10
	// StrangerPerHour bounds the mails to an address that is no account's,
	// per hour; each incoming mail sends such an address at most one.
	StrangerPerHour = 5
	// MaxSubscribers bounds the subscribers of a game, so that the board
	// mails of one move (two players, the subscribers, and players who
	// resigned and stay on) always fit in MaxMails with the summary's slot.
	MaxSubscribers = 20
	// MaxEcho is the length in characters to which an argument echoed in
	// an error mail is cut (with "…"); MaxQuote bounds the quote of the
	// offending mail in bytes.
	MaxEcho  = 100
	MaxQuote = 2 << 10
	// PictureAllowance is what a board mail may add to its text when its
	// recipient takes pictures (a PNG of at most 100 KB in base64, and an
	// HTML part): counted against MaxBytes for every board mail that is
	// not TextOnly.
	PictureAllowance = 160 << 10
)

// Threading bounds: at most maxRefs Message-IDs in References, each at most
// maxIDLen bytes, so that an incoming mail's header cannot swell the reply.
const (
	maxRefs  = 10
	maxIDLen = 250
)

// bucketStrangers holds the hourly count of mails to each address that is
// no account's: a rateCount keyed by the lower-cased address.
const bucketStrangers = "strangers"

// errNoRoom stops the commands of a mail once one that changes the game or
// an account finds no room for its mails: it is not run, nor anything after
// it, and the summary says so.
var errNoRoom = errors.New("engine: no room left in this mail's bounds")

// budget is what one incoming mail has caused so far.
type budget struct {
	bounded   bool  // an incoming mail; the timers are not bounded
	bytes     int   // the wire size of the mails in out
	full      bool  // something was left out: the summary is due
	left      []int // boards of the mails left out, in order, each once
	leftSet   map[int]bool
	leftOther int
	notRun    []string
	mailed    map[string]bool // strangers who got their one mail
}

// reserve checks that n more mails of a command that changes state fit,
// with a slot and MaxReply left for the summary. The first command of a
// mail always runs: MaxSubscribers makes any one game's mails fit.
func (r *request) reserve(n int) error {
	if !r.bounded || len(r.out) == 0 && !r.full {
		return nil
	}
	if r.full || len(r.out)+n > MaxMails-1 || r.bytes+n*(PictureAllowance+8<<10) > MaxBytes-MaxReply {
		return errNoRoom
	}
	return nil
}

// roomFor reports whether a mail about board can still be sent; when not,
// the board is recorded for the summary. Loops that would render many
// mails ask first, so a mail that asks for thousands costs no more than
// one that asks for MaxMails.
func (r *request) roomFor(board int) bool {
	if r.bounded && r.full {
		r.leave(board)
		return false
	}
	return true
}

// leave records a mail that was not sent.
func (r *request) leave(board int) {
	switch {
	case board == 0:
		r.leftOther++
	case !r.leftSet[board]:
		if r.leftSet == nil {
			r.leftSet = map[int]bool{}
		}
		r.leftSet[board] = true
		r.left = append(r.left, board)
	}
}

// bound applies the bounds to m on its way out: strangers' limits, the
// size of one mail, the mails and bytes of the incoming mail. A mail that
// does not fit is left out (recorded for the summary); to make room for
// the summary, the last mail gives way.
func (r *request) bound(m Mail) error {
	if r.full {
		r.leave(m.board)
		return nil
	}
	to, strangers, err := r.recipients(m.To)
	if err != nil || len(to) == 0 {
		return err
	}
	m.To = to
	if len(strangers) > 0 {
		m.TextOnly = true
	}
	if m.TextOnly {
		m.HTML, m.Picture, m.PictureID = "", nil, ""
	}
	m.Body = cutBody(m, MaxReply)
	size := mailCost(m)
	if len(r.out) >= MaxMails || r.bytes+size > MaxBytes-MaxReply {
		r.full = true
		if len(r.out) >= MaxMails {
			last := r.out[len(r.out)-1]
			r.out = r.out[:len(r.out)-1]
			r.bytes -= mailCost(last)
			r.leave(last.board)
		}
		r.leave(m.board)
		return nil
	}
	if err := r.mailedStrangers(strangers); err != nil {
		return err
	}
	r.out = append(r.out, m)
	r.bytes += size
	return nil
}

// recipients splits to into the addresses that may get this mail: every
// account's address, and each stranger that has not had its mail from this
// incoming mail nor StrangerPerHour mails this hour. strangers are the
// latter, counted once the mail is sent.
func (r *request) recipients(to []string) (keep, strangers []string, err error) {
	for _, a := range to {
		ok, err := r.confirmed(a)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			keep = append(keep, a)
			continue
		}
		key := strings.ToLower(a)
		if r.mailed[key] || slices.Contains(strangers, key) || r.silent && strings.EqualFold(a, r.in.From) {
			continue
		}
		c, err := r.strangerCount(key)
		if err != nil {
			return nil, nil, err
		}
		if c.Count >= StrangerPerHour {
			continue
		}
		keep = append(keep, a)
		strangers = append(strangers, key)
	}
	return keep, strangers, nil
}

// strangerCount is the stranger's count in the current hour.
func (r *request) strangerCount(key string) (rateCount, error) {
	var c rateCount
	if _, err := load(r.tx, bucketStrangers, key, &c); err != nil {
		return c, err
	}
	if r.now.Sub(c.Start) >= time.Hour || r.now.Before(c.Start) {
		c = rateCount{V: recordVersion, Start: r.now}
	}
	return c, nil
}

// mailedStrangers counts a mail sent to each of the strangers.
func (r *request) mailedStrangers(strangers []string) error {
	for _, key := range strangers {
		c, err := r.strangerCount(key)
		if err != nil {
			return err
		}
		c.Count++
		if err := save(r.tx, bucketStrangers, key, &c); err != nil {
			return err
		}
		if r.mailed == nil {
			r.mailed = map[string]bool{}
		}
		r.mailed[key] = true
	}
	return nil
}

// confirmed reports whether addr is a confirmed address of an account
// (ConfirmedAddress): one lookup in the index of confirmed addresses, which
// a confirmation earlier in this mail has already updated.
func (r *request) confirmed(addr string) (bool, error) { return ConfirmedAddress(r.tx, addr) }

// pruneWindows deletes the hourly counts whose hour is over, in the
// strangers bucket and in rate (senders' command counts and the userids'
// wrong-password windows, LockoutWindow being an hour too): the next mail
// opens a new window anyway, and a flood of forged senders must not grow
// the store for good. A record that does not decode goes too.
func pruneWindows(tx Tx, now time.Time) error {
	for _, bucket := range []string{bucketStrangers, bucketRate} {
		var old []string
		err := tx.ForEach(bucket, func(key string, val []byte) error {
			var c rateCount
			window := time.Hour
			if strings.HasPrefix(key, hintPrefix) {
				window = hintKeep
			}
			if json.Unmarshal(val, &c) != nil || now.Sub(c.Start) >= window || now.Before(c.Start) {
				old = append(old, key)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range old {
			if err := tx.Delete(bucket, k); err != nil {
				return err
			}
		}
	}
	return nil
}

// summaryView is the data of the summary mail (templates/lists.tmpl).
type summaryView struct {
	Mails, MB   int
	Boards      []string // the boards left out (at most summaryBoards), in lines
	MoreBoards  int      // boards left out beyond those
	Show        string
	Other       int // mails without a board left out (errors, listings)
	NotRun      []string
	MaxShowArgs int
}

// summaryBoards bounds the board numbers the summary lists.
const summaryBoards = 500

// summarize adds the summary of what was left out as the last mail.
func (r *request) summarize() error {
	v := summaryView{Mails: MaxMails, MB: MaxBytes >> 20, Other: r.leftOther, NotRun: r.notRun, MaxShowArgs: maxArgs}
	listed := r.left[:min(len(r.left), summaryBoards)]
	v.MoreBoards = len(r.left) - len(listed) + r.unlisted
	line := ""
	for _, n := range listed {
		if len(line) > 0 && len(line)+1+len(strconv.Itoa(n)) > 72 {
			v.Boards = append(v.Boards, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += strconv.Itoa(n)
	}
	if line != "" {
		v.Boards = append(v.Boards, line)
	}
	if len(r.left) > 0 {
		// The example is a show of the first board's game, with that
		// game's boards: a board of another game would be refused. Their
		// lines of the listings say their games (not their records).
		word := r.word
		same := func(n int) bool { return true }
		if g, ok, err := r.loadSummary(r.left[0]); err != nil {
			return err
		} else if ok {
			word = g.Game
			same = func(n int) bool {
				g, ok, err := r.loadSummary(n)
				return err == nil && ok && g.Game == word
			}
		}
		var b strings.Builder
		b.WriteString(word + " show")
		shown := 0
		for _, n := range r.left {
			if shown < maxArgs && same(n) {
				b.WriteString(" " + strconv.Itoa(n))
				shown++
			}
		}
		v.Show = b.String()
	}
	subject, err := r.e.cfg.Templates.Render("summary.subject", v)
	if err != nil {
		return err
	}
	body, err := r.e.cfg.Templates.Render("summary.body", v)
	if err != nil {
		return err
	}
	m := r.thread(Mail{To: []string{r.in.From}, Subject: subject, Body: body}, envelope{})
	to, strangers, err := r.recipients(m.To)
	if err != nil || len(to) == 0 {
		return err
	}
	m.To, m.TextOnly = to, len(strangers) > 0
	m.Body = cutBody(m, MaxReply)
	r.out = append(r.out, m)
	r.bytes += mailCost(m)
	return r.mailedStrangers(strangers)
}

// echo cuts an argument quoted back to the sender to MaxEcho characters,
// the last of them "…".
func echo(s string) string {
	return cutRunes(s, MaxEcho)
}

func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, k := 0, 0
	for i = range s {
		if k == n-1 {
			break
		}
		k++
	}
	return s[:i] + "…"
}

// quoteLines returns the lines of the offending mail to quote, at most MaxQuote
// bytes in all; a line that does not fit is cut with "…", and the lines
// after it are dropped.
func quoteLines(lines []string) []string {
	var out []string
	left := MaxQuote
	for _, l := range lines {
		if len(l) > left {
			cut := l[:max(left-len("…"), 0)]
			for !utf8.ValidString(cut) {
				cut = cut[:len(cut)-1]
			}
			return append(out, cut+"…")
		}
		out = append(out, l)
		left -= len(l) + 1
	}
	return out
}

// cutNote ends a body that was cut to fit MaxReply.
const cutNote = "\n[The rest of this mail was cut: a mail from this server is at most 64 KB.]\n"

// cutBody returns m's body cut at a line end so that m fits limit bytes on
// the wire, with cutNote after the cut.
func cutBody(m Mail, limit int) string {
	room := limit - headerCost(m) - attachmentCost(m)
	if bodyCost(m.Body) <= room {
		return m.Body
	}
	room -= bodyCost(cutNote)
	used, end := 0, 0
	for line := range strings.Lines(m.Body) {
		c := bodyCost(line)
		if used+c > room {
			break
		}
		used += c
		end += len(line)
	}
	if end == 0 {
		// One huge first line: cut inside it, on a character boundary.
		for i, ch := range m.Body {
			c := bodyCost(string(ch))
			if used+c > room {
				end = i
				break
			}
			used += c
		}
	}
	return m.Body[:end] + cutNote
}

// mailCost is m's size on the wire, plus its HTML part and picture, if
// any.
func mailCost(m Mail) int {
	n := headerCost(m) + bodyCost(m.Body) + attachmentCost(m)
	if m.HTML != "" {
		n += PictureAllowance
	}
	return n
}

// attachmentCost bounds the size of m's attachments as the mailer writes
// them: base64 (4 bytes for 3, a CRLF every 76) and a part header each.
func attachmentCost(m Mail) int {
	n := 0
	for _, a := range m.Attachments {
		b64 := (len(a.Data) + 2) / 3 * 4
		n += 300 + len(a.Filename) + len(a.ContentType) + b64 + b64/76*2
	}
	return n
}

// headerCost bounds the size of m's header as the mailer writes it: the
// fixed fields, the addresses and ids, the subject RFC 2047-encoded.
func headerCost(m Mail) int {
	n := 600 + 4*len(m.Subject) + len(m.MessageID) + len(m.InReplyTo)
	for _, a := range m.To {
		n += 4*len(a) + 4
	}
	for _, id := range m.References {
		n += len(id) + 4
	}
	return n
}

// bodyCost bounds the size of s in quoted-printable with CRLF line ends:
// printable ASCII but '=' is one byte, anything else three, each line end
// two, and a soft line break (three bytes) every 73 encoded bytes.
func bodyCost(s string) int {
	n := 0
	for line := range strings.Lines(s) {
		c := 0
		for i := 0; i < len(line); i++ {
			switch b := line[i]; {
			case b == '\n':
			case b >= ' ' && b < 0x7f && b != '=':
				c++
			default:
				c += 3
			}
		}
		n += c + c/73*3 + 2
	}
	return n
}
