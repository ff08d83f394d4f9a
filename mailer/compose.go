package mailer

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/emersion/go-message"
	"github.com/emersion/go-message/mail"
	"github.com/emersion/go-message/textproto"
)

// Outgoing is one reply mail to compose.
type Outgoing struct {
	From    string   // the server's address, bare or with a display name
	To      []string // bare or with display names
	Subject string
	// Body is UTF-8 text with LF line ends. It is sent quoted-printable,
	// never format=flowed, so the board block keeps its trailing spaces and
	// its line breaks (SPEC §4).
	Body          string
	MessageID     string   // without <>; "" generates one in From's domain
	InReplyTo     string   // without <>
	References    []string // without <>
	AutoSubmitted string   // "auto-replied" (the default) or "auto-generated" (RFC 3834 §5)
	Date          time.Time
	// HTML, when set, is an HTML rendering of Body: the mail becomes
	// multipart/alternative, Body first, then a multipart/related part with
	// the HTML and the Inline parts it shows by cid: URLs.
	HTML   string
	Inline []InlinePart
	// Attachments are files the mail carries after its text (and HTML):
	// the mail becomes multipart/mixed, the text or the alternative part
	// first, then each file in base64 as an attachment.
	Attachments []Attachment
}

// Attachment is a file attached to a mail (a game's SGF record).
type Attachment struct {
	Filename    string // plain ASCII, no quote: "yinsh-101.sgf"
	ContentType string // "application/x-go-sgf"
	Data        []byte
}

// InlinePart is a picture an HTML part shows as "cid:" + ContentID.
type InlinePart struct {
	ContentID   string // without <>
	ContentType string // "image/png"
	Filename    string
	Data        []byte
}

// Compose renders m as an RFC 5322 mail with CRLF line ends: one text/plain
// part in UTF-8, quoted-printable; with HTML, a multipart/alternative of
// that part and a multipart/related one (the HTML, quoted-printable, and
// its inline pictures, base64). A zero Date means now. The Subject is
// RFC 2047-encoded only when it is not plain ASCII. The MIME boundaries are
// derived from the Message-ID, so a mail composes to the same bytes twice.
func Compose(m Outgoing) ([]byte, error) {
	from, err := mail.ParseAddress(m.From)
	if err != nil {
		return nil, fmt.Errorf("mailer: compose: From %q: %w", m.From, err)
	}
	if len(m.To) == 0 {
		return nil, errors.New("mailer: compose: no recipient")
	}
	to := make([]*mail.Address, len(m.To))
	for i, a := range m.To {
		if to[i], err = mail.ParseAddress(a); err != nil {
			return nil, fmt.Errorf("mailer: compose: To %q: %w", a, err)
		}
	}
	for _, id := range []string{m.MessageID, m.InReplyTo} {
		if id != "" && !validMsgID(id) {
			return nil, fmt.Errorf("mailer: compose: bad message id %q", id)
		}
	}
	for _, id := range m.References {
		if !validMsgID(id) {
			return nil, fmt.Errorf("mailer: compose: bad message id %q", id)
		}
	}
	auto := m.AutoSubmitted
	switch auto {
	case "":
		auto = "auto-replied"
	case "auto-replied", "auto-generated":
	default:
		return nil, fmt.Errorf("mailer: compose: bad Auto-Submitted %q", auto)
	}
	date := m.Date
	if date.IsZero() {
		date = time.Now()
	}

	for _, p := range m.Inline {
		if !validMsgID(p.ContentID) || p.ContentType == "" {
			return nil, fmt.Errorf("mailer: compose: bad inline part %q (%s)", p.ContentID, p.ContentType)
		}
	}
	for _, a := range m.Attachments {
		if _, _, err := mime.ParseMediaType(a.ContentType); err != nil || a.Filename == "" || strings.ContainsAny(a.Filename, "\"/\r\n") {
			return nil, fmt.Errorf("mailer: compose: bad attachment %q (%s)", a.Filename, a.ContentType)
		}
	}

	// go-message writes header fields in the reverse order of insertion, so
	// they are added bottom-up.
	var h mail.Header
	if m.HTML == "" && len(m.Attachments) == 0 {
		h.Set("Content-Transfer-Encoding", "quoted-printable")
		h.SetContentType("text/plain", map[string]string{"charset": "utf-8"})
	}
	// Raw fields keep the customary spelling, which go-message would
	// canonicalise to "Mime-Version" and "Message-Id".
	h.AddRaw([]byte("MIME-Version: 1.0\r\n"))
	h.Set("Auto-Submitted", auto)
	h.SetMsgIDList("References", m.References)
	if m.InReplyTo != "" {
		h.SetMsgIDList("In-Reply-To", []string{m.InReplyTo})
	}
	id := m.MessageID
	if id == "" {
		var gen mail.Header
		_, domain, _ := strings.Cut(from.Address, "@")
		if err := gen.GenerateMessageIDWithHostname(domain); err != nil {
			return nil, fmt.Errorf("mailer: compose: message id: %w", err)
		}
		id = strings.Trim(gen.Get("Message-Id"), "<>")
	}
	h.AddRaw([]byte("Message-ID: <" + id + ">\r\n"))
	// Invalid UTF-8 would make the charset label a lie; refusing it instead
	// would fail the whole transaction of the mail being answered.
	h.SetSubject(strings.ToValidUTF8(m.Subject, "\uFFFD"))
	h.SetAddressList("To", to)
	h.SetAddressList("From", []*mail.Address{from})
	h.SetDate(date)

	// A bare CR cannot travel in a text mail (RFC 5322 §2.3): it is a line
	// end like the LF it usually stands next to.
	body := normalizeNewlines(strings.ToValidUTF8(m.Body, "\uFFFD"))
	var buf bytes.Buffer
	if len(m.Attachments) > 0 {
		if err := composeMixed(&buf, h, id, body, m); err != nil {
			return nil, fmt.Errorf("mailer: compose: %w", err)
		}
		return buf.Bytes(), nil
	}
	if m.HTML == "" {
		w, err := mail.CreateSingleInlineWriter(&buf, h)
		if err != nil {
			return nil, fmt.Errorf("mailer: compose: %w", err)
		}
		if _, err := io.WriteString(w, body); err != nil {
			return nil, fmt.Errorf("mailer: compose: %w", err)
		}
		if err := w.Close(); err != nil {
			return nil, fmt.Errorf("mailer: compose: %w", err)
		}
		return buf.Bytes(), nil
	}
	if err := composeAlternative(&buf, h, id, body, m); err != nil {
		return nil, fmt.Errorf("mailer: compose: %w", err)
	}
	return buf.Bytes(), nil
}

// composeAlternative writes the multipart/alternative mail: the text
// first (clients show the last part they can, so the HTML wins where it is
// shown, and the text stays for the others), then the HTML with its
// pictures in a multipart/related part (RFC 2387), which every client
// resolves cid: URLs in.
func composeAlternative(buf *bytes.Buffer, h mail.Header, id, body string, m Outgoing) error {
	boundary := boundaryOf(id)
	h.SetContentType("multipart/alternative", map[string]string{"boundary": boundary + "_a"})
	root, err := message.CreateWriter(buf, h.Header)
	if err != nil {
		return err
	}
	return writeAlternative(root, boundary, body, m)
}

// boundaryOf derives the MIME boundaries of a mail from its Message-ID.
func boundaryOf(id string) string {
	sum := sha256.Sum256([]byte(id))
	return "=_" + hex.EncodeToString(sum[:12])
}

// writePart writes one part of data under parent.
func writePart(parent *message.Writer, h message.Header, data []byte) error {
	w, err := parent.CreatePart(h)
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		return err
	}
	return w.Close()
}

// textPart is the header of the text part.
func textPart() message.Header {
	var text message.Header
	text.Set("Content-Transfer-Encoding", "quoted-printable")
	text.SetContentType("text/plain", map[string]string{"charset": "utf-8"})
	return text
}

// composeMixed writes a mail with attachments (RFC 2046 §5.1.3,
// multipart/mixed): its text, or the alternative of text and HTML, then
// each attachment, base64, with its file name (RFC 2183).
func composeMixed(buf *bytes.Buffer, h mail.Header, id, body string, m Outgoing) error {
	boundary := boundaryOf(id)
	h.SetContentType("multipart/mixed", map[string]string{"boundary": boundary + "_m"})
	root, err := message.CreateWriter(buf, h.Header)
	if err != nil {
		return err
	}
	if m.HTML == "" {
		if err := writePart(root, textPart(), []byte(body)); err != nil {
			return err
		}
	} else {
		var ah message.Header
		ah.SetContentType("multipart/alternative", map[string]string{"boundary": boundary + "_a"})
		alt, err := root.CreatePart(ah)
		if err != nil {
			return err
		}
		if err := writeAlternative(alt, boundary, body, m); err != nil {
			return err
		}
	}
	for _, a := range m.Attachments {
		var ph message.Header
		ph.Set("Content-Transfer-Encoding", "base64")
		ph.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": a.Filename}))
		t, params, _ := mime.ParseMediaType(a.ContentType)
		ph.SetContentType(t, params)
		if err := writePart(root, ph, a.Data); err != nil {
			return err
		}
	}
	return root.Close()
}

// writeAlternative writes the parts of the multipart/alternative root
// (the text, then the related HTML and pictures) and closes it.
func writeAlternative(root *message.Writer, boundary, body string, m Outgoing) error {
	if err := writePart(root, textPart(), []byte(body)); err != nil {
		return err
	}
	var rel message.Header
	rel.SetContentType("multipart/related", map[string]string{"type": "text/html", "boundary": boundary + "_r"})
	related, err := root.CreatePart(rel)
	if err != nil {
		return err
	}
	var html message.Header
	html.Set("Content-Transfer-Encoding", "quoted-printable")
	html.SetContentType("text/html", map[string]string{"charset": "utf-8"})
	if err := writePart(related, html, []byte(normalizeNewlines(strings.ToValidUTF8(m.HTML, "\uFFFD")))); err != nil {
		return err
	}
	for _, p := range m.Inline {
		var ph message.Header
		ph.Set("Content-Transfer-Encoding", "base64")
		disp := "inline"
		if p.Filename != "" {
			disp = mime.FormatMediaType(disp, map[string]string{"filename": p.Filename})
		}
		ph.Set("Content-Disposition", disp)
		ph.Set("Content-ID", "<"+p.ContentID+">")
		ph.SetContentType(p.ContentType, nil)
		// The part as related.CreatePart would write it after the HTML
		// part (its boundary, its header, the body in base64), but with
		// the body encoded once per picture: a move's board mails show
		// the same one.
		if _, err := io.WriteString(related, "\r\n--"+boundary+"_r\r\n"); err != nil {
			return err
		}
		if err := textproto.WriteHeader(related, ph.Header); err != nil {
			return err
		}
		if _, err := related.Write(pictures.base64(p.Data)); err != nil {
			return err
		}
	}
	if err := related.Close(); err != nil {
		return err
	}
	return root.Close()
}

// pictures keeps the base64 bodies of the last pictures composed.
var pictures base64Cache

// base64Cache keeps the base64 bodies of the last few inline parts, as
// go-message writes a base64 part: lines of 76 characters joined by CRLF,
// no line end after the last. Each entry holds a copy of its data, which a
// lookup compares in full: a caller that reuses its buffer never gets
// another picture's encoding.
type base64Cache struct {
	mu   sync.Mutex
	last [8]struct{ data, enc []byte }
	next int
}

func (c *base64Cache) base64(data []byte) []byte {
	c.mu.Lock()
	for _, e := range c.last {
		if e.enc != nil && bytes.Equal(e.data, data) {
			c.mu.Unlock()
			return e.enc
		}
	}
	c.mu.Unlock()
	n := base64.StdEncoding.EncodedLen(len(data))
	flat := make([]byte, n)
	base64.StdEncoding.Encode(flat, data)
	enc := make([]byte, 0, n+2*(n/76))
	for len(flat) > 76 {
		enc = append(append(enc, flat[:76]...), "\r\n"...)
		flat = flat[76:]
	}
	enc = append(enc, flat...)
	c.mu.Lock()
	c.last[c.next].data, c.last[c.next].enc = bytes.Clone(data), enc
	c.next = (c.next + 1) % len(c.last)
	c.mu.Unlock()
	return enc
}

// MaxMsgIDLen is the longest Message-ID the mailer reads or writes: a
// msg-id cannot be folded, so with its brackets and the leading space of
// a folded line it must fit in RFC 5322's 998 characters. A longer one is
// taken as absent; that also keeps it out of the store's keys (bbolt
// refuses keys over 32 KB, and a key that cannot be written would make the
// mail fail again at every delivery).
const MaxMsgIDLen = 995

// validMsgID accepts what can stand between < and > in a header field: one
// non-empty run of at most MaxMsgIDLen visible characters without brackets
// (UTF-8 allowed, as in RFC 6532). It keeps a caller's id from injecting
// header lines; every id [Parse] returns passes, so replying to any parsed
// mail works.
func validMsgID(id string) bool {
	if id == "" || len(id) > MaxMsgIDLen || !utf8.ValidString(id) {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= ' ' || c == 0x7f || c == '<' || c == '>' {
			return false
		}
	}
	return true
}
