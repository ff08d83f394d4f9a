package mailer

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"html"
	"io"
	"math"
	"mime"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/emersion/go-message"
	"github.com/emersion/go-message/charset"
	"github.com/emersion/go-message/mail"
	"github.com/emersion/go-message/textproto"
)

// Inbound is one received mail reduced to what the server acts on.
type Inbound struct {
	MessageID  string // without <>, "" if absent
	From       string // bare address, lower-cased domain, e.g. "alice@example.com"
	FromName   string // display name, decoded
	ReturnPath string // bare address; "" when absent or null ("<>", which sets Auto)
	Subject    string // decoded (RFC 2047, any charset), unfolded
	// Body is the plain text in UTF-8 with LF line ends: the text/plain parts
	// if they hold any text, else the text/html parts rendered as text.
	// Attachments are dropped; quoted text and signatures are kept, because
	// the engine decides what is a command.
	Body       string
	InReplyTo  []string // message ids without <>
	References []string // message ids without <>
	// Auto is non-empty when the mail must not be answered (RFC 3834 §2,
	// RFC 3464, RFC 8098, SPEC §3). It names the first reason found:
	// "auto-submitted", "multipart/report", "precedence bulk" (or junk,
	// list, auto_reply), "x-autoreply", "x-auto-response-suppress", "list
	// header", "null return path", "mailer-daemon", "postmaster" or
	// "out-of-office subject".
	Auto string
	// AuthResults are the Authentication-Results fields (RFC 8601), as
	// they stand, the receiving provider's first: see [AuthFailed].
	AuthResults []string
	Size        int  // raw size in bytes; limit+1 when TooBig
	TooBig      bool // larger than the limit: only the header was parsed, Body is ""
}

// Parse reads one RFC 5322 mail. At most limit+1 bytes are read (limit <= 0
// means no limit): a larger mail is only classified by its header, so the
// server can refuse it without quoting it back (SPEC §3).
//
// Parse is lenient, because the mail comes from anyone: an unknown charset or
// transfer encoding keeps the raw text, broken MIME structure keeps what was
// read before the break, garbage in address and message-id fields yields
// what can be recognised. Only a mail whose header cannot be read at all is an
// error, and the caller rejects it.
func Parse(r io.Reader, limit int64) (in Inbound, err error) {
	// go-message and the standard library parse hostile input here; a panic
	// in them must cost one mail, not the daemon.
	defer func() {
		if p := recover(); p != nil {
			in, err = Inbound{}, fmt.Errorf("mailer: parse: internal error: %v", p)
		}
	}()

	if limit <= 0 || limit == math.MaxInt64 {
		limit = math.MaxInt64 - 1
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return Inbound{}, fmt.Errorf("mailer: read mail: %w", err)
	}
	in.Size = len(data)
	in.TooBig = int64(len(data)) > limit

	// A mail handed over by a local delivery agent may still start with
	// its mbox "From " envelope line, which is no header field.
	hdr := data
	if bytes.HasPrefix(hdr, []byte("From ")) {
		_, hdr, _ = bytes.Cut(hdr, []byte("\n"))
	}
	br := bufio.NewReader(bytes.NewReader(hdr))
	th, err := textproto.ReadHeader(br)
	// A mail cut at the limit may end inside its header: the fields read
	// before the cut still tell who sent it.
	if err != nil && !(in.TooBig && th.Len() > 0) {
		return Inbound{}, fmt.Errorf("mailer: parse header: %w", err)
	}
	if th.Len() == 0 {
		return Inbound{}, errors.New("mailer: parse header: no header fields")
	}
	h := mail.Header{Header: message.Header{Header: th}}
	parseHeader(&in, &h)
	if in.TooBig {
		return in, nil
	}

	// New fails only for an unknown transfer encoding or charset, and then
	// still returns an entity with the undecoded body.
	e, _ := message.New(h.Header, br)
	in.Body = bodyText(e)
	return in, nil
}

// parseHeader fills the header fields of in and classifies the mail.
func parseHeader(in *Inbound, h *mail.Header) {
	in.MessageID = firstOrEmpty(msgIDList(h, "Message-Id"))
	in.InReplyTo = msgIDList(h, "In-Reply-To")
	in.References = msgIDList(h, "References")
	in.From, in.FromName = address(headerValue(h, "From"))
	in.Subject = decodeText(headerValue(h, "Subject"))

	rp := headerValue(h, "Return-Path")
	nullSender := strings.Join(strings.Fields(rp), "") == "<>"
	if !nullSender {
		in.ReturnPath, _ = address(rp)
	}
	sender, _ := address(headerValue(h, "Sender"))
	in.Auto = autoReason(h, nullSender, in.From, sender)
	for _, v := range h.Values("Authentication-Results") {
		if len(in.AuthResults) < maxAuthResults {
			in.AuthResults = append(in.AuthResults, v)
		}
	}
}

// maxAuthResults bounds the Authentication-Results fields kept.
const maxAuthResults = 10

// AuthFailed reports whether the Authentication-Results field of the
// trusted authserv-id (the receiving provider's own, which it removes from
// incoming mail, RFC 8601 §5) says SPF failed (fail or softfail) and DKIM
// did not pass (fail, none, or no dkim result): the From is forged. The
// first field of that authserv-id counts; "" trusts none.
func AuthFailed(results []string, authservID string) bool {
	if authservID == "" {
		return false
	}
	for _, r := range results {
		parts := strings.Split(r, ";")
		id, _, _ := strings.Cut(strings.TrimSpace(parts[0]), " ")
		if !strings.EqualFold(id, authservID) {
			continue
		}
		spf, dkimPass := "", false
		for _, p := range parts[1:] {
			method, result, ok := strings.Cut(strings.TrimSpace(p), "=")
			if !ok {
				continue
			}
			result, _, _ = strings.Cut(strings.ToLower(strings.TrimSpace(result)), " ")
			switch strings.ToLower(method) {
			case "spf":
				if spf == "" {
					spf = result
				}
			case "dkim":
				dkimPass = dkimPass || result == "pass"
			}
		}
		return (spf == "fail" || spf == "softfail") && !dkimPass
	}
	return false
}

// autoReason applies the loop guards, in order: RFC 3834 §2 (Auto-Submitted,
// and the older Precedence and X-Autoreply marks), RFC 3464 and RFC 8098
// (delivery and disposition reports are multipart/report), RFC 2369 and
// RFC 2919 (every List-* field marks list traffic), Microsoft's
// X-Auto-Response-Suppress, the null return path and the daemons' own
// addresses, and last an out-of-office subject for the vacation programs
// that set none of these.
func autoReason(h *mail.Header, nullSender bool, from, sender string) string {
	// RFC 3834 §5: any value but "no" is automatic; comments are allowed
	// anywhere in the field, so they go before the keyword is read.
	if h.Has("Auto-Submitted") && firstToken(stripComments(headerValue(h, "Auto-Submitted"))) != "no" {
		return "auto-submitted"
	}
	if t := firstToken(stripComments(headerValue(h, "Content-Type"))); t == "multipart/report" {
		return "multipart/report"
	}
	switch v := firstToken(stripComments(headerValue(h, "Precedence"))); v {
	case "bulk", "junk", "list", "auto_reply":
		return "precedence " + v
	}
	// Vacation programs older than RFC 3834 still mark their replies so.
	if h.Has("X-Autoreply") || h.Has("X-Autorespond") {
		return "x-autoreply"
	}
	for _, v := range strings.Split(headerValue(h, "X-Auto-Response-Suppress"), ",") {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "all", "oof", "autoreply":
			return "x-auto-response-suppress"
		}
	}
	for f := h.Fields(); f.Next(); {
		if len(f.Key()) > 5 && strings.EqualFold(f.Key()[:5], "List-") {
			return "list header"
		}
	}
	if nullSender {
		return "null return path"
	}
	for _, a := range []string{from, sender} {
		local, _, _ := strings.Cut(a, "@")
		switch strings.ToLower(local) {
		case "mailer-daemon":
			return "mailer-daemon"
		case "postmaster":
			return "postmaster"
		}
	}
	if outOfOffice(decodeText(headerValue(h, "Subject"))) {
		return "out-of-office subject"
	}
	return ""
}

// outOfOfficePrefixes start the subjects that vacation programs and mail
// servers put on their automatic replies, lower-cased, in English, German,
// French, Spanish, Italian, Dutch and Portuguese (with and without accents,
// as some programs drop them).
var outOfOfficePrefixes = []string{
	// English
	"out of office", "out of the office", "automatic reply", "auto reply", "auto-reply", "autoreply",
	"auto response", "auto-response", "autoresponse", "automated reply", "automated response",
	"away from the office", "away from my desk", "on vacation", "on holiday", "on leave", "vacation reply",
	"auto:",
	// German
	"abwesenheitsnotiz", "abwesenheit", "automatische antwort", "nicht im büro", "nicht im buero",
	"außer haus", "ausser haus", "urlaubsbenachrichtigung", "abwesend",
	// French
	"réponse automatique", "reponse automatique", "absence du bureau", "absent du bureau",
	"message d'absence", "absent:", "absente:", "absence:",
	// Spanish
	"respuesta automática", "respuesta automatica", "fuera de la oficina", "fuera de oficina",
	"respuesta de ausencia", "ausente:", "ausencia:",
	// Italian
	"risposta automatica", "fuori ufficio", "fuori sede", "assente dall'ufficio", "assenza:", "assente:",
	// Dutch
	"automatisch antwoord", "afwezigheidsbericht", "afwezig", "niet aanwezig", "buiten kantoor",
	"automatisch bericht",
	// Portuguese
	"resposta automática", "resposta automatica", "fora do escritório", "fora do escritorio",
	"ausência temporária", "ausencia temporaria", "ausente do escritório", "ausência:",
}

// outOfOffice reports whether subject starts like an automatic reply: one of
// outOfOfficePrefixes, case-insensitive, as a whole word (so "Autoreplies
// are off" is a human's subject, "Automatic reply: Lyngk Board 101" not).
func outOfOffice(subject string) bool {
	s := strings.ToLower(strings.TrimSpace(subject))
	for _, p := range outOfOfficePrefixes {
		if !strings.HasPrefix(s, p) {
			continue
		}
		rest := s[len(p):]
		if rest == "" || strings.HasSuffix(p, ":") {
			return true
		}
		if r, _ := utf8.DecodeRuneInString(rest); !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

// stripComments removes the RFC 5322 §3.2.2 comments (parenthesised, nested,
// with backslash escapes) from a structured field value. An unclosed
// comment runs to the end of the value.
func stripComments(v string) string {
	if !strings.Contains(v, "(") {
		return v
	}
	var b strings.Builder
	depth := 0
	quoted := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '\\' && (depth > 0 || quoted):
			if depth == 0 {
				b.WriteByte(c)
				if i+1 < len(v) {
					b.WriteByte(v[i+1])
				}
			}
			i++
		case c == '"' && depth == 0:
			quoted = !quoted
			b.WriteByte(c)
		case c == '(' && !quoted:
			if depth == 0 {
				b.WriteByte(' ')
			}
			depth++
		case c == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// firstToken is the lower-cased keyword that starts a structured field value
// such as "auto-replied; owner-email=x" or "bulk (newsletter)".
func firstToken(v string) string {
	v = strings.TrimSpace(v)
	if i := strings.IndexAny(v, "; \t("); i >= 0 {
		v = v[:i]
	}
	return strings.ToLower(v)
}

// headerValue is the first field named key, in UTF-8. Raw 8-bit header
// bytes are RFC 6532 UTF-8 when valid, else taken as the Windows-1252 that
// older clients send unannounced.
func headerValue(h *mail.Header, key string) string {
	return toUTF8(h.Get(key))
}

// wordDecoder decodes RFC 2047 encoded words in every charset go-message
// knows. The bytes of a word in an unknown charset are kept as they are, as
// for a body: a command in the subject is ASCII either way.
var wordDecoder = mime.WordDecoder{CharsetReader: func(label string, input io.Reader) (io.Reader, error) {
	if r, err := charset.Reader(label, input); err == nil {
		return r, nil
	}
	raw, err := io.ReadAll(input)
	return strings.NewReader(toUTF8(string(raw))), err
}}

// decodeText decodes an unstructured field such as Subject.
func decodeText(v string) string {
	if d, err := wordDecoder.DecodeHeader(v); err == nil {
		v = toUTF8(d)
	}
	return oneLine(v)
}

// oneLine turns line breaks into spaces: encoded words may carry them, and
// a header field's text is one line.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' {
			return ' '
		}
		return r
	}, s)
}

// MaxAddressLen is the longest mail address there is: RFC 5321
// §4.5.3.1.3 allows 256 octets for a path, angle brackets included.
const MaxAddressLen = 254

// address returns the first address of an address-list field as a bare
// address with a lower-cased domain (RFC 5321 §2.4: only the local part may
// be case-sensitive) and its decoded display name. A field that is not valid
// RFC 5322 still yields the <...> part or the first word with an @. An
// address longer than MaxAddressLen is none: no server would take mail for
// it, and it must not become a store key (bbolt refuses keys over 32 KB).
func address(v string) (addr, name string) {
	addr, name = anyAddress(v)
	if len(addr) > MaxAddressLen {
		return "", name
	}
	return addr, name
}

func anyAddress(v string) (addr, name string) {
	if strings.TrimSpace(v) == "" {
		return "", ""
	}
	if l, err := mail.ParseAddressList(v); err == nil && len(l) > 0 {
		return lowerDomain(l[0].Address), oneLine(l[0].Name)
	}
	if i := strings.LastIndexByte(v, '<'); i >= 0 {
		if j := strings.IndexByte(v[i:], '>'); j >= 0 {
			name = strings.Trim(strings.TrimSpace(v[:i]), `"`)
			return lowerDomain(strings.TrimSpace(v[i+1 : i+j])), decodeText(name)
		}
	}
	fields := strings.FieldsFunc(v, func(r rune) bool {
		return r == ' ' || r == '\t' || r == ',' || r == ';'
	})
	for _, f := range fields {
		if strings.Contains(f, "@") {
			return lowerDomain(strings.Trim(f, `<>()"`)), ""
		}
	}
	if len(fields) == 0 {
		return "", ""
	}
	// A bare local part, as in "From: MAILER-DAEMON": still worth a look by
	// the loop guard.
	return strings.Trim(fields[0], `<>()"`), ""
}

func lowerDomain(a string) string {
	if i := strings.LastIndexByte(a, '@'); i >= 0 {
		return a[:i+1] + strings.ToLower(a[i+1:])
	}
	return a
}

// msgIDList parses a Message-ID, In-Reply-To or References field. The strict
// RFC 5322 parser of go-message comes first; when it fails, every <...> is
// taken, or failing that every word, since some clients drop the brackets.
func msgIDList(h *mail.Header, key string) []string {
	if l, err := h.MsgIDList(key); err == nil {
		var ids []string
		for _, id := range l {
			if id = toUTF8(id); validMsgID(id) {
				ids = append(ids, id)
			}
		}
		return ids
	}
	v := headerValue(h, key)
	var ids []string
	for rest := v; ; {
		i := strings.IndexByte(rest, '<')
		if i < 0 {
			break
		}
		rest = rest[i+1:]
		// An unclosed "<" gives way to the next one.
		j := strings.IndexAny(rest, "<>")
		if j < 0 {
			break
		}
		if rest[j] == '<' {
			rest = rest[j:]
			continue
		}
		if id := strings.TrimSpace(rest[:j]); validMsgID(id) {
			ids = append(ids, id)
		}
		rest = rest[j+1:]
	}
	if ids != nil || strings.ContainsAny(v, "<>") {
		return ids
	}
	for _, id := range strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == '\t' || r == ',' }) {
		if validMsgID(id) {
			ids = append(ids, id)
		}
	}
	return ids
}

func firstOrEmpty(l []string) string {
	if len(l) == 0 {
		return ""
	}
	return l[0]
}

// bodyText walks the MIME tree and returns the readable text: the inline
// text/plain parts, or when they hold nothing but white space the text/html
// parts rendered as text. Both kinds are collected, so multipart/alternative
// prefers plain text however deeply it is nested. A broken part ends the
// walk and keeps what was read before it.
func bodyText(e *message.Entity) string {
	var plain, htm []string
	_ = e.Walk(func(path []int, part *message.Entity, _ error) error {
		if len(path) > maxDepth {
			return errTooDeep
		}
		t, params, err := part.Header.ContentType()
		if err != nil {
			// mime.ParseMediaType rejects sloppy parameters (unquoted
			// file names with spaces, stray semicolons); the type itself
			// is still good.
			t = firstToken(part.Header.Get("Content-Type"))
		}
		if t != "text/plain" && t != "text/html" || firstToken(part.Header.Get("Content-Disposition")) == "attachment" {
			return nil
		}
		// A read error (bad base64, truncated part) keeps the text read
		// so far.
		raw, _ := io.ReadAll(part.Body)
		text := toUTF8(normalizeNewlines(string(raw)))
		if t == "text/html" {
			htm = append(htm, htmlToText(text))
			return nil
		}
		if strings.EqualFold(params["format"], "flowed") {
			text = unflow(text, strings.EqualFold(params["delsp"], "yes"))
		}
		plain = append(plain, text)
		return nil
	})
	body := joinParts(plain)
	if strings.TrimSpace(body) == "" && len(htm) > 0 {
		return joinParts(htm)
	}
	return body
}

// maxDepth bounds multipart nesting: parts below it are not read. Real mail
// nests a handful of levels; each level adds a reader that every byte below
// it passes through, so a hostile mail nested thousands deep would cost
// quadratic time.
const maxDepth = 16

var errTooDeep = errors.New("mailer: multipart nested too deep")

// joinParts concatenates text parts, each starting on a line of its own.
func joinParts(parts []string) string {
	var b strings.Builder
	for _, p := range parts {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		b.WriteString(p)
	}
	return b.String()
}

// normalizeNewlines turns CRLF and lone CR line ends into LF.
func normalizeNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// toUTF8 returns s if it is valid UTF-8, else s decoded as Windows-1252: text
// that is not UTF-8 after charset decoding carries no or a wrong charset
// label, and Windows-1252 (the superset of Latin-1 that browsers also assume)
// is what such mail almost always is. Every byte maps to some character, so
// the result is valid UTF-8 and the ASCII commands survive.
func toUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	if r, err := charset.Reader("windows-1252", strings.NewReader(s)); err == nil {
		if b, err := io.ReadAll(r); err == nil {
			return string(b)
		}
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// unflow decodes format=flowed text (RFC 3676 §4): a line ending in a space
// continues on the next line of the same quote depth, and one leading space
// is stuffing. Quoted lines are rebuilt as ">" per level and one space.
func unflow(s string, delsp bool) string {
	var b, para strings.Builder
	depth := -1 // quote depth of the open paragraph; -1: none
	flush := func() {
		if depth < 0 {
			return
		}
		b.WriteString(strings.Repeat(">", depth))
		if depth > 0 && para.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(para.String())
		b.WriteByte('\n')
		para.Reset()
		depth = -1
	}
	for line := range strings.Lines(s) {
		line = strings.TrimSuffix(line, "\n")
		d := 0
		for d < len(line) && line[d] == '>' {
			d++
		}
		content := strings.TrimPrefix(line[d:], " ")
		// §4.3: the signature separator "-- " is never flowed.
		flowed := strings.HasSuffix(content, " ") && content != "-- "
		if depth >= 0 && depth != d {
			flush() // §4.5: a change of depth ends the paragraph
		}
		if flowed && delsp {
			content = content[:len(content)-1]
		}
		depth = d
		para.WriteString(content)
		if !flowed {
			flush()
		}
	}
	flush()
	out := b.String()
	if !strings.HasSuffix(s, "\n") {
		out = strings.TrimSuffix(out, "\n")
	}
	return out
}

// htmlToText renders HTML as the text a reader sees, with the standard
// library only: tags are dropped, entities decoded, white space collapsed
// outside <pre>; block elements and <br> end lines, and <blockquote> quotes
// its lines with "> " so quoted replies look as they do in plain text.
// Script, style and Outlook's <xml> islands are skipped with their content.
func htmlToText(s string) string {
	t := htmlWriter{bol: true}
	for len(s) > 0 {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			t.text(html.UnescapeString(s))
			break
		}
		t.text(html.UnescapeString(s[:i]))
		s = s[i:]
		switch {
		case strings.HasPrefix(s, "<!--"):
			// Outlook's conditional comments too: <!--[if mso]>...<![endif]-->
			_, s, _ = strings.Cut(s[4:], "-->")
		case len(s) > 1 && (s[1] == '!' || s[1] == '?'):
			_, s, _ = strings.Cut(s, ">")
		case len(s) > 1 && isASCIILetter(s[1]), len(s) > 2 && s[1] == '/' && isASCIILetter(s[2]):
			var name string
			var end bool
			name, end, s = scanTag(s)
			t.tag(name, end)
			if !end && skipContent[name] {
				s = s[indexFoldASCII(s, "</"+name):]
			}
		default:
			t.text("<")
			s = s[1:]
		}
	}
	return tidyLines(t.b.String())
}

// skipContent lists the elements whose content is not text to read.
var skipContent = map[string]bool{"script": true, "style": true, "title": true, "xml": true, "template": true}

// blockTags end the current line where they open and close.
var blockTags = map[string]bool{
	"address": true, "article": true, "aside": true, "center": true, "dd": true, "div": true,
	"dl": true, "dt": true, "fieldset": true, "figure": true, "footer": true, "form": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "header": true,
	"hr": true, "li": true, "main": true, "nav": true, "ol": true, "p": true, "section": true,
	"table": true, "tr": true, "ul": true,
}

func isASCIILetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// scanTag reads the tag at the start of s ("<name attrs>" or "</name>") and
// returns its lower-cased name and the rest of s. A '>' inside a quoted
// attribute value does not end the tag.
func scanTag(s string) (name string, end bool, rest string) {
	i := 1
	if s[i] == '/' {
		end = true
		i++
	}
	start := i
	for i < len(s) && (isASCIILetter(s[i]) || '0' <= s[i] && s[i] <= '9' || s[i] == ':' || s[i] == '-' || s[i] == '_') {
		i++
	}
	name = strings.ToLower(s[start:i])
	var prev byte
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '>':
			return name, end, s[i+1:]
		case (c == '"' || c == '\'') && prev == '=':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return name, end, ""
			}
			i += j + 1
		}
		if c != ' ' && c != '\t' && c != '\n' {
			prev = c
		}
	}
	return name, end, ""
}

// indexFoldASCII is the index of the first ASCII-case-insensitive match of
// pat in s, or len(s).
func indexFoldASCII(s, pat string) int {
	for i := 0; i+len(pat) <= len(s); i++ {
		match := true
		for j := 0; j < len(pat); j++ {
			if s[i+j]|0x20 != pat[j]|0x20 {
				match = false
				break
			}
		}
		if match {
			return i
		}
	}
	return len(s)
}

// htmlWriter accumulates the text of htmlToText.
type htmlWriter struct {
	b     strings.Builder
	quote int  // <blockquote> depth
	pre   int  // <pre> depth
	bol   bool // nothing written on the current line yet
	space bool // collapsed white space waiting to be written
}

func (t *htmlWriter) tag(name string, end bool) {
	switch {
	case name == "br":
		t.newline()
	case name == "blockquote":
		t.endLine()
		if !end {
			t.quote++
		} else if t.quote > 0 {
			t.quote--
		}
	case name == "pre":
		t.endLine()
		if !end {
			t.pre++
		} else if t.pre > 0 {
			t.pre--
		}
	case name == "td" || name == "th":
		t.space = true
	case blockTags[name]:
		t.endLine()
	}
}

// maxQuote bounds the "> " prefix of a line: without it, thousands of
// nested <blockquote> would make the text quadratically larger than the mail.
const maxQuote = 8

func (t *htmlWriter) startLine() {
	if t.bol {
		t.b.WriteString(strings.Repeat("> ", min(t.quote, maxQuote)))
		t.bol = false
	}
}

func (t *htmlWriter) newline() {
	t.startLine()
	t.b.WriteByte('\n')
	t.bol = true
	t.space = false
}

func (t *htmlWriter) endLine() {
	if !t.bol {
		t.newline()
	}
	t.space = false
}

func (t *htmlWriter) text(s string) {
	for _, r := range s {
		switch {
		case t.pre > 0 && r == '\n':
			t.newline()
		case t.pre > 0 && r == '\r':
		case t.pre == 0 && (r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f'):
			t.space = true
		default:
			if r == '\u00a0' { // &nbsp; is a space to a reader of text
				r = ' '
			}
			if t.bol {
				t.startLine()
			} else if t.space {
				t.b.WriteByte(' ')
			}
			t.space = false
			t.b.WriteRune(r)
		}
	}
}

// tidyLines drops trailing white space from every line, blank lines at the
// start and end, and runs of blank lines, which nested HTML blocks leave.
func tidyLines(s string) string {
	var b strings.Builder
	blank := false
	for line := range strings.Lines(s) {
		line = strings.TrimRight(line, " \t\n")
		if line == "" {
			blank = b.Len() > 0
			continue
		}
		if blank {
			b.WriteByte('\n')
			blank = false
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}
