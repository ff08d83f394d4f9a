package mailer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/emersion/go-message/mail"
)

// Outgoing is one reply mail to compose.
type Outgoing struct {
	From    string   // robot address, bare or with a display name
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
}

// Compose renders m as an RFC 5322 mail with CRLF line ends: one text/plain
// part in UTF-8, quoted-printable. A zero Date means now. The Subject is
// RFC 2047-encoded only when it is not plain ASCII.
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

	// go-message writes header fields in the reverse order of insertion, so
	// they are added bottom-up.
	var h mail.Header
	h.Set("Content-Transfer-Encoding", "quoted-printable")
	h.SetContentType("text/plain", map[string]string{"charset": "utf-8"})
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

	var buf bytes.Buffer
	w, err := mail.CreateSingleInlineWriter(&buf, h)
	if err != nil {
		return nil, fmt.Errorf("mailer: compose: %w", err)
	}
	// A bare CR cannot travel in a text mail (RFC 5322 §2.3): it is a line
	// end like the LF it usually stands next to.
	if _, err := io.WriteString(w, normalizeNewlines(strings.ToValidUTF8(m.Body, "\uFFFD"))); err != nil {
		return nil, fmt.Errorf("mailer: compose: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("mailer: compose: %w", err)
	}
	return buf.Bytes(), nil
}

// validMsgID accepts what can stand between < and > in a header field: one
// non-empty run of visible characters without brackets (UTF-8 allowed, as in
// RFC 6532). It keeps a caller's id from injecting header lines; every id
// [Parse] returns passes, so replying to any parsed mail works.
func validMsgID(id string) bool {
	if id == "" || !utf8.ValidString(id) {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= ' ' || c == 0x7f || c == '<' || c == '>' {
			return false
		}
	}
	return true
}
