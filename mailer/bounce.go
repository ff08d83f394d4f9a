package mailer

import (
	"bufio"
	"bytes"
	"io"
	"net/textproto"
	"regexp"
	"slices"
	"strings"

	"github.com/emersion/go-message"
	"github.com/emersion/go-message/mail"
)

// This file reads bounces: delivery status notifications (RFC 3464, and
// RFC 6533's message/global-delivery-status) and the common older formats
// that servers still send as plain text (qmail's QSBMF, Exim without DSN,
// Microsoft Exchange and Outlook.com reports that carry no readable
// delivery-status part, the "Delivery to the following recipient failed
// permanently" of old Gmail, and Yahoo's). Like Mailman's bounce processor
// it only says which addresses failed and how, and which mails of ours it
// names; the engine decides what that means for an account (a bounce
// counts only for a mail the server sent to the address it names).

// Bounce is what a bounce says.
type Bounce struct {
	// Format names the recogniser: "dsn" (RFC 3464), or "qmail", "exim",
	// "microsoft", "failed-permanently", "yahoo" for the plain-text ones.
	Format string
	// To are the addresses the bounce was sent to (To, Delivered-To,
	// X-Original-To, Envelope-To): a VERP envelope sender shows there.
	To []string
	// MessageIDs are the Message-IDs the bounce names as the mail that
	// bounced, without <>, in this order: the returned message's or
	// headers' (DSN part or plain text), then the bounce's own
	// In-Reply-To and References. ID is the bounce's own.
	MessageIDs []string
	ID         string
	// Recipients are the failed (or delayed) addresses.
	Recipients []BounceRecipient
}

// BounceRecipient is one address a bounce reports.
type BounceRecipient struct {
	// Addr is the failed address: the DSN's Final-Recipient (its
	// Original-Recipient when it has none), or the address a plain-text
	// bounce lists; lower-cased domain, as Inbound.From.
	Addr string
	// Original is the DSN's Original-Recipient (the address as the
	// sender gave it, before a forward) when it differs from Addr.
	Original string
	// Hard is a permanent failure (Action failed with a 5.x.x status, or
	// a plain-text bounce that says it is permanent); otherwise the
	// failure is temporary (delayed, 4.x.x).
	Hard   bool
	Status string // the RFC 3463 status code when given (5.1.1), else ""
}

// Bounds on what one bounce may report: a bounce comes from anyone.
const (
	maxBounceRecipients = 16
	maxBounceIDs        = 8
	maxBounceTo         = 8
)

// ParseBounce reads raw as a bounce; ok is false when it is none (an
// out-of-office reply, a read receipt, anything else).
func ParseBounce(raw []byte) (b Bounce, ok bool) {
	defer func() {
		if recover() != nil {
			b, ok = Bounce{}, false
		}
	}()
	e, err := message.Read(bytes.NewReader(raw))
	if e == nil || (err != nil && !message.IsUnknownCharset(err) && !message.IsUnknownEncoding(err)) {
		return Bounce{}, false
	}
	h := mail.Header{Header: e.Header}
	b.ID = firstOrEmpty(msgIDList(&h, "Message-Id"))
	for _, k := range []string{"Delivered-To", "X-Original-To", "Envelope-To", "To"} {
		for _, v := range h.Values(k) {
			for _, part := range strings.Split(v, ",") {
				if a, _ := address(part); a != "" && len(b.To) < maxBounceTo && !containsFold(b.To, a) {
					b.To = append(b.To, a)
				}
			}
		}
	}
	defer func() {
		if ok {
			for _, id := range append(msgIDList(&h, "In-Reply-To"), msgIDList(&h, "References")...) {
				addID(&b, id)
			}
		}
	}()
	t, params, _ := e.Header.ContentType()
	if t == "multipart/report" && (params["report-type"] == "delivery-status" || params["report-type"] == "global-delivery-status") {
		readDSN(e, &b)
		if len(b.Recipients) > 0 {
			b.Format = "dsn"
			return b, true
		}
		// A report without a readable status part (Exchange's, some of
		// them): its text says who failed.
		e, err = message.Read(bytes.NewReader(raw))
		if e == nil || (err != nil && !message.IsUnknownCharset(err) && !message.IsUnknownEncoding(err)) {
			return Bounce{}, false
		}
	}
	text := bounceText(e, raw)
	for _, f := range textBounces {
		if f.marker.MatchString(text) {
			readTextBounce(f, text, &b)
			if len(b.Recipients) > 0 {
				return b, true
			}
		}
	}
	return Bounce{}, false
}

// addID adds a Message-ID the bounce names, once, within the bound.
func addID(b *Bounce, id string) {
	if id != "" && len(b.MessageIDs) < maxBounceIDs && !slices.Contains(b.MessageIDs, id) {
		b.MessageIDs = append(b.MessageIDs, id)
	}
}

// readDSN walks the report's parts: the delivery-status part gives the
// recipients, the returned message (or its headers) the original
// Message-ID.
func readDSN(e *message.Entity, b *Bounce) {
	mr := e.MultipartReader()
	if mr == nil {
		return
	}
	for {
		p, err := mr.NextPart()
		if err != nil {
			return
		}
		t, _, _ := p.Header.ContentType()
		switch t {
		case "message/delivery-status", "message/global-delivery-status":
			readStatus(io.LimitReader(p.Body, 64<<10), b)
		case "message/rfc822", "text/rfc822-headers", "message/global", "message/global-headers":
			readReturnedHeader(p.Body, b)
		}
	}
}

// readStatus reads the delivery-status fields (RFC 3464 §2.1): a block of
// per-message fields, then one block per recipient.
func readStatus(r io.Reader, b *Bounce) {
	tr := textproto.NewReader(bufio.NewReader(r))
	for first := true; len(b.Recipients) < maxBounceRecipients; first = false {
		f, err := tr.ReadMIMEHeader()
		// The first block is the per-message one, unless a sloppy
		// report starts with a recipient.
		if (len(f) > 0 && !first) || f.Get("Final-Recipient") != "" {
			addRecipient(f, b)
		}
		if err != nil {
			return
		}
	}
}

// addRecipient adds a failed or delayed recipient block; delivered,
// relayed and expanded ones (RFC 3464 §2.3.3) are no bounce.
func addRecipient(f textproto.MIMEHeader, b *Bounce) {
	action := strings.ToLower(strings.TrimSpace(f.Get("Action")))
	if action != "failed" && action != "delayed" {
		return
	}
	addr, orig := dsnAddress(f.Get("Final-Recipient")), dsnAddress(f.Get("Original-Recipient"))
	if addr == "" {
		addr, orig = orig, ""
	}
	if addr == "" {
		return
	}
	if strings.EqualFold(orig, addr) {
		orig = ""
	}
	status, _, _ := strings.Cut(strings.TrimSpace(f.Get("Status")), " ")
	// RFC 3463: class 5 is permanent, 4 transient; a failed action with
	// no usable status counts as permanent.
	hard := action == "failed" && !strings.HasPrefix(status, "4")
	b.Recipients = append(b.Recipients, BounceRecipient{Addr: addr, Original: orig, Hard: hard, Status: status})
}

// dsnAddress reads a recipient field: "rfc822; alice@example.org" (RFC
// 3464 §2.3.2), or "utf-8; ..."; "" when it holds no address.
func dsnAddress(v string) string {
	if _, a, ok := strings.Cut(v, ";"); ok {
		v = a
	}
	addr, _ := address(strings.TrimSpace(v))
	return addr
}

// readReturnedHeader takes the Message-ID of the returned mail.
func readReturnedHeader(r io.Reader, b *Bounce) {
	tr := textproto.NewReader(bufio.NewReader(io.LimitReader(r, 64<<10)))
	f, _ := tr.ReadMIMEHeader()
	h := mail.HeaderFromMap(f)
	addID(b, firstOrEmpty(msgIDList(&h, "Message-Id")))
}

// textBounce is one plain-text format: marker recognises it, and the
// failed addresses are listed after it (up to the returned mail);
// permanent tells a hard bounce (nil: always hard).
type textBounce struct {
	name      string
	marker    *regexp.Regexp
	permanent *regexp.Regexp
}

var textBounces = []textBounce{
	{"qmail", regexp.MustCompile(`(?i)this is the qmail-send program`), regexp.MustCompile(`(?i)this is a permanent error`)},
	{"exim", regexp.MustCompile(`(?i)could not be delivered to one or more of its\s+recipients|this message was created automatically by mail delivery software`),
		regexp.MustCompile(`(?i)this is a permanent error|following address\(es\) failed`)},
	// Exchange and Outlook.com: "Delivery has failed to these recipients
	// or groups:", older ones "The following recipient(s) cannot be
	// reached:"; the code ("Remote Server returned '550 5.1.1 ...'",
	// "#550 5.1.1 ...##") tells a temporary failure.
	{"microsoft", regexp.MustCompile(`(?i)delivery has failed to these recipients or (groups|distribution lists)|the following recipient\(s\) (cannot|could not) be reached|your message (did not|couldn't|could not) reach some or all of the intended recipients`), nil},
	{"failed-permanently", regexp.MustCompile(`(?i)delivery to the following recipients? failed permanently`), nil},
	{"yahoo", regexp.MustCompile(`(?i)sorry, we were unable to deliver your message to the following address`), nil},
}

var (
	emailRe = regexp.MustCompile(`<?([A-Za-z0-9.!#$%&'*+/=?^_{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)>?`)
	// The returned mail starts at a line such as "--- Below this line is
	// a copy of the message." or "------ This is a copy of the message";
	// addresses after it are the original's, not failed ones.
	returnedRe = regexp.MustCompile(`(?im)^.*(copy of the message|original message|below this line|returned message).*$`)
	msgIDRe    = regexp.MustCompile(`(?im)^message-id:\s*<([^>\s]{1,250})>`)
	statusRe   = regexp.MustCompile(`\b([245])\.\d{1,3}\.\d{1,3}\b|\b([45])\d\d[ -]`)
)

// readTextBounce takes the addresses listed after the marker and before
// the returned mail, and the Message-ID of the returned mail.
func readTextBounce(f textBounce, text string, b *Bounce) {
	start := f.marker.FindStringIndex(text)[1]
	section, returned := text[start:], ""
	if loc := returnedRe.FindStringIndex(section); loc != nil {
		section, returned = section[:loc[0]], section[loc[1]:]
	}
	hard := f.permanent == nil || f.permanent.MatchString(text)
	// A plain-text bounce that names a transient SMTP code is soft.
	if m := statusRe.FindStringSubmatch(section); m != nil && (m[1] == "4" || m[2] == "4") {
		hard = false
	}
	for _, m := range emailRe.FindAllStringSubmatch(section, -1) {
		addr, _ := address(m[1])
		if addr == "" || containsFold(b.To, addr) || slices.ContainsFunc(b.Recipients, func(r BounceRecipient) bool { return strings.EqualFold(r.Addr, addr) }) {
			continue
		}
		if len(b.Recipients) == maxBounceRecipients {
			break
		}
		b.Recipients = append(b.Recipients, BounceRecipient{Addr: addr, Hard: hard})
	}
	if m := msgIDRe.FindStringSubmatch(returned); m != nil {
		addID(b, m[1])
	}
	b.Format = f.name
}

// bounceText is the text to look for a plain-text bounce in: the text
// parts, or the raw body when the structure cannot be read.
func bounceText(e *message.Entity, raw []byte) string {
	var sb strings.Builder
	walkText(e, &sb, 0)
	if sb.Len() == 0 {
		_, body, _ := bytes.Cut(raw, []byte("\n\n"))
		sb.Write(body[:min(len(body), 256<<10)])
	}
	return sb.String()
}

func walkText(e *message.Entity, sb *strings.Builder, depth int) {
	if depth > 4 || sb.Len() > 256<<10 {
		return
	}
	if mr := e.MultipartReader(); mr != nil {
		for {
			p, err := mr.NextPart()
			if err != nil {
				return
			}
			walkText(p, sb, depth+1)
		}
	}
	t, _, _ := e.Header.ContentType()
	if t == "text/rfc822-headers" || t == "message/rfc822" {
		// The returned mail: what follows is the original's (returnedRe).
		sb.WriteString("\n--- returned message ---\n")
	}
	if t == "" || strings.HasPrefix(t, "text/") || t == "message/rfc822" {
		b, _ := io.ReadAll(io.LimitReader(e.Body, 256<<10))
		sb.Write(bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n")))
		sb.WriteByte('\n')
	}
}

func containsFold(list []string, s string) bool {
	return slices.ContainsFunc(list, func(x string) bool { return strings.EqualFold(x, s) })
}
