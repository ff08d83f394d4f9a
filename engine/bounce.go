package engine

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"html"
	"io"
	"slices"
	"strings"
	"time"

	"lyngk.example/lyngk/templates"
)

// Bounces, as Mailman handles them, but only real ones. A bounce counts
// only when it names a mail this server sent to that very address; a
// stranger who forges a delivery report cannot stop a player's mail:
//
//   - the caller keeps, for every copy of a mail queued to a confirmed
//     address, its Message-ID and the address (engine/daemon, in the store's
//     sent records, 14 days), and hands Bounce, in Bounce.Sent, the
//     addresses each Message-ID the report names was sent to. The report
//     must name one of them as a failed recipient (Final-Recipient, or
//     Original-Recipient). A board mail's Message-ID carries its reply
//     token, which its "move on the web" link shows; the caller adds to
//     each copy's Message-ID a random mark the link does not show
//     (CopyMessageID), so a token is no proof;
//   - with VERP (Config.VERP off or on is the caller's choice, cmd/lyngk's
//     bounce_verp), mail to a confirmed address leaves with the envelope
//     sender robot+b-TAG@domain, TAG an HMAC of the address with a secret
//     of the store (drawn from crypto/rand at the first use), so the
//     bounce comes back to that address whatever it says. A tag that is
//     not the HMAC of the address it is recorded for is ignored.
//
// Hard bounces (permanent failures) of 3 different mails within 14 days
// mark the address bouncing: nothing is sent to it any more but
// confirmation mails, and when all of an account's confirmed addresses are
// bouncing its games pause as on vacation (no reminder, no forfeit). A mail
// from the address lifts the mark for one more try: the next hard bounce
// of a mail marks it again, and the answer to that mail
// says so (bounceNotice); the player's web page shows the mark. A
// confirmation of the address (after `change address`) or any `change
// address` of the account clears the mark and the count, and the paused
// clocks restart then, as after a vacation. Soft bounces (temporary
// failures) are only counted. Mail to strangers is not recorded: only
// confirmed addresses have a bounce record, so a flood of forged senders
// leaves none behind.

const bucketBounces = "bounces"

// Bounce thresholds.
const (
	BounceMails  = 3                   // hard bounces of different mails...
	BounceWindow = 14 * 24 * time.Hour // ...within this window mark an address bouncing
	// maxBounceHits bounds the hard bounces kept per address.
	maxBounceHits = 8
	// verpTag starts the tag in the envelope sender's local part.
	verpTag = "+b-"
	// verpLen is the length of a tag: 80 bits of the HMAC, base32.
	verpLen = 16
	// copyMarkLen is the length of the mark CopyMessageID adds: 80
	// random bits, base32.
	copyMarkLen = 16
	// keyVERP is the key, in bucket meta, of the VERP secret.
	keyVERP = "verp"
	// verpPrefix keys, in bucket bounces, the address of a VERP tag.
	verpPrefix = "verp "
)

// bounceRec is a record of bucket bounces, keyed by the lower-cased
// address; verpPrefix + TAG keys a bounceToken.
type bounceRec struct {
	V int `json:"v"`
	// Hard are the hard bounces in the window, one per mail that bounced.
	Hard     []bounceHit `json:"hard,omitempty"`
	Soft     int         `json:"soft,omitempty"` // soft bounces, ever
	LastSoft time.Time   `json:"last_soft,omitzero"`
	// Bouncing is when the address was marked bouncing; zero: it is not.
	Bouncing time.Time `json:"bouncing,omitzero"`
	// Retry: a mail from the address lifted the mark for one more try;
	// the next hard bounce of a mail marks it again.
	Retry bool `json:"retry,omitempty"`
}

type bounceHit struct {
	Mail string    `json:"mail"` // Message-ID of the mail that bounced (or of the bounce, with VERP)
	At   time.Time `json:"at"`
}

type bounceToken struct {
	V       int    `json:"v"`
	Address string `json:"address"`
}

// verpSecret is the record of keyVERP in bucket meta.
type verpSecret struct {
	V   int    `json:"v"`
	Key []byte `json:"key"`
}

func (b *bounceRec) version() int   { return b.V }
func (b *bounceToken) version() int { return b.V }
func (s *verpSecret) version() int  { return s.V }

// Bounce is a bounce as read by the mailer (mailer.Bounce), with the mails
// it names that the server sent.
type Bounce struct {
	To         []string // where the bounce was sent: the VERP address shows here
	MessageIDs []string // of the mail that bounced
	ID         string   // the bounce's own Message-ID
	Recipients []BounceRecipient
	// Sent holds, for each of MessageIDs that is a mail the server queued
	// within BounceWindow, the addresses (lower-cased) it was queued for.
	Sent map[string][]string
}

// BounceRecipient is one address a bounce reports failed.
type BounceRecipient struct {
	Addr     string // Final-Recipient, or the address a plain-text bounce names
	Original string // Original-Recipient, when given
	Hard     bool
}

// BounceOutcome is what became of a bounce.
type BounceOutcome struct {
	Address string // the confirmed address it was matched to; "" for none
	Hard    bool
	Marked  bool // the address is bouncing from now on
}

// VERP is the envelope sender that brings the bounces of a mail to the
// address with tag back with the tag: robot's local part + "+b-" + tag.
func VERP(robot, tag string) string {
	local, domain, _ := strings.Cut(robot, "@")
	return local + verpTag + tag + "@" + domain
}

// verpToken is the tag of a VERP address of robot, "" when to is none.
func verpToken(robot, to string) string {
	local, domain, _ := strings.Cut(robot, "@")
	tl, td, ok := strings.Cut(to, "@")
	if !ok || !strings.EqualFold(td, domain) {
		return ""
	}
	tok, ok := strings.CutPrefix(strings.ToLower(tl), strings.ToLower(local)+verpTag)
	if !ok || len(tok) != verpLen {
		return ""
	}
	return tok
}

// verpHMAC is the tag of the lower-cased address key under secret.
func verpHMAC(secret []byte, key string) string {
	h := hmac.New(sha256.New, secret)
	h.Write([]byte(key))
	return tokenEncoding.EncodeToString(h.Sum(nil)[:verpLen*5/8])
}

// verpKey returns the VERP secret, drawn from crypto/rand (never from
// Config.Rand, which tests make predictable) and stored at the first use.
func verpKey(tx Tx) ([]byte, error) {
	var s verpSecret
	if ok, err := load(tx, bucketMeta, keyVERP, &s); err != nil || ok && len(s.Key) == 32 {
		return s.Key, err
	}
	s = verpSecret{V: recordVersion, Key: make([]byte, 32)}
	if _, err := rand.Read(s.Key); err != nil {
		return nil, fmt.Errorf("engine: verp secret: %w", err)
	}
	return s.Key, save(tx, bucketMeta, keyVERP, &s)
}

// BounceToken returns the VERP tag of a confirmed address, recording which
// address it stands for; "" for an address that is nobody's confirmed one
// (such mail leaves with the robot's plain address).
func (e *Engine) BounceToken(tx Tx, addr string) (string, error) {
	key := strings.ToLower(addr)
	if ok, err := confirmed(tx, key); err != nil || !ok {
		return "", err
	}
	secret, err := verpKey(tx)
	if err != nil {
		return "", err
	}
	tag := verpHMAC(secret, key)
	var t bounceToken
	if ok, err := load(tx, bucketBounces, verpPrefix+tag, &t); err != nil || ok && t.Address == key {
		return tag, err
	}
	return tag, save(tx, bucketBounces, verpPrefix+tag, &bounceToken{V: recordVersion, Address: key})
}

// Tracked reports whether mail to addr is recorded for its bounces: it is
// some account's confirmed address (engine/daemon records the copies of mails
// to such addresses only, so strangers cannot fill the records).
func (e *Engine) Tracked(tx Tx, addr string) (bool, error) {
	return confirmed(tx, strings.ToLower(addr))
}

// CopyMessageID is the Message-ID a copy of a mail with id leaves with: a
// reply-token Message-ID (lyngk.TOKEN@domain) gets "." and a random mark
// after its token, which no link shows (replyToken reads the token without
// it); any other id is left as it is (it is random already, or is no
// board mail's). rnd is crypto/rand but in tests.
func CopyMessageID(id string, rnd io.Reader) (string, error) {
	local, domain, ok := strings.Cut(id, "@")
	if !ok || !strings.HasPrefix(local, tokenPrefix) || strings.Contains(local[len(tokenPrefix):], ".") {
		return id, nil
	}
	mark, err := drawToken(rnd, copyMarkLen*5/8)
	if err != nil {
		return "", fmt.Errorf("engine: copy mark: %w", err)
	}
	return local + "." + mark + "@" + domain, nil
}

// confirmed reports whether the lower-cased address is some account's
// confirmed address.
func confirmed(tx Tx, key string) (bool, error) {
	var a address
	ok, err := load(tx, bucketAddresses, key, &a)
	return ok && len(a.Users) > 0, err
}

// Bounce records a bounce (see the top of this file). It sends nothing.
func (e *Engine) Bounce(tx Tx, b Bounce, now time.Time) (BounceOutcome, error) {
	var out BounceOutcome
	hits, err := e.matchBounce(tx, b)
	if err != nil {
		return out, err
	}
	for _, h := range hits {
		if ok, err := confirmed(tx, h.addr); err != nil || !ok {
			if err != nil {
				return out, err
			}
			continue
		}
		marked, err := recordBounce(tx, h, now)
		if err != nil {
			return out, err
		}
		if out.Address == "" || marked {
			out = BounceOutcome{Address: h.addr, Hard: h.hard, Marked: marked}
		}
	}
	return out, nil
}

// bounceMatch is one mail sent that a bounce is about.
type bounceMatch struct {
	addr string // lower-cased
	mail string // its Message-ID (with VERP: the first the bounce names, else the bounce's own)
	hard bool
}

// recordBounce counts h for its address; marked: the address is bouncing
// from now on.
func recordBounce(tx Tx, h bounceMatch, now time.Time) (marked bool, err error) {
	var rec bounceRec
	if _, err := load(tx, bucketBounces, h.addr, &rec); err != nil {
		return false, err
	}
	rec.V = recordVersion
	if !h.hard {
		rec.Soft++
		rec.LastSoft = now
		return false, save(tx, bucketBounces, h.addr, &rec)
	}
	rec.Hard = slices.DeleteFunc(rec.Hard, func(x bounceHit) bool { return now.Sub(x.At) >= BounceWindow })
	fresh := !slices.ContainsFunc(rec.Hard, func(x bounceHit) bool { return x.Mail == h.mail })
	if fresh {
		rec.Hard = append(rec.Hard, bounceHit{Mail: h.mail, At: now})
		if len(rec.Hard) > maxBounceHits {
			rec.Hard = rec.Hard[len(rec.Hard)-maxBounceHits:]
		}
	}
	if (len(rec.Hard) >= BounceMails || rec.Retry && fresh) && rec.Bouncing.IsZero() {
		rec.Bouncing, rec.Retry, marked = now, false, true
	}
	return marked, save(tx, bucketBounces, h.addr, &rec)
}

// matchBounce finds the mails sent that a bounce is about: by its VERP tag
// when it has a true one, else by the Message-IDs it names, each sent to
// an address the bounce reports failed.
func (e *Engine) matchBounce(tx Tx, b Bounce) ([]bounceMatch, error) {
	hardAny := slices.ContainsFunc(b.Recipients, func(r BounceRecipient) bool { return r.Hard })
	for _, to := range b.To {
		tag := verpToken(e.cfg.Server, to)
		if tag == "" {
			continue
		}
		var t bounceToken
		if ok, err := load(tx, bucketBounces, verpPrefix+tag, &t); err != nil || !ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		secret, err := verpKey(tx)
		if err != nil {
			return nil, err
		}
		if !hmac.Equal([]byte(verpHMAC(secret, t.Address)), []byte(tag)) {
			continue
		}
		// One address per envelope: the bounce is about it, whatever
		// address it names (a forward's, say). The mail is the one it
		// names that was sent to the address, else the bounce itself.
		mail := b.ID
		if len(b.MessageIDs) > 0 {
			mail = b.MessageIDs[0]
		}
		for _, id := range b.MessageIDs {
			if slices.Contains(b.Sent[id], t.Address) {
				mail = id
				break
			}
		}
		return []bounceMatch{{addr: t.Address, mail: mail, hard: hardAny}}, nil
	}
	var out []bounceMatch
	for _, id := range b.MessageIDs {
		for _, r := range b.Recipients {
			for _, a := range []string{r.Addr, r.Original} {
				a = strings.ToLower(a)
				if a == "" || !slices.Contains(b.Sent[id], a) {
					continue
				}
				if !slices.ContainsFunc(out, func(m bounceMatch) bool { return m.addr == a && m.mail == id }) {
					out = append(out, bounceMatch{addr: a, mail: id, hard: r.Hard})
				}
			}
		}
	}
	return out, nil
}

// bouncing reports whether the address is marked bouncing.
func bouncing(tx Tx, addr string) (bool, error) {
	var rec bounceRec
	ok, err := load(tx, bucketBounces, strings.ToLower(addr), &rec)
	return ok && !rec.Bouncing.IsZero(), err
}

// deliverable drops the bouncing addresses from to, unless the mail is a
// confirmation (kind "confirm"): that one is how an address comes back.
func (r *request) deliverable(kind string, to []string) ([]string, error) {
	if kind == "confirm" {
		return to, nil
	}
	var out []string
	for _, a := range to {
		b, err := bouncing(r.tx, a)
		if err != nil {
			return nil, err
		}
		if !b {
			out = append(out, a)
		}
	}
	return out, nil
}

// allBouncing reports whether every confirmed address of u is bouncing:
// its games then pause as on vacation.
func (r *request) allBouncing(u *user) (bool, error) {
	for _, a := range u.Addresses {
		if b, err := bouncing(r.tx, a); err != nil || !b {
			return false, err
		}
	}
	return len(u.Addresses) > 0, nil
}

// clearBounces lifts the bouncing mark of addrs, with the hard bounces
// that led to it; u's clocks restart now if one was lifted (u is saved by
// the caller).
func (r *request) clearBounces(u *user, addrs ...string) error {
	for _, a := range addrs {
		key := strings.ToLower(a)
		var rec bounceRec
		ok, err := load(r.tx, bucketBounces, key, &rec)
		if err != nil {
			return err
		}
		// A mark this very mail lifted for a retry (retryBouncing) is
		// cleared all the same.
		if !ok || rec.Bouncing.IsZero() && !rec.Retry {
			continue
		}
		rec.Bouncing, rec.Hard, rec.Retry = time.Time{}, nil, false
		if err := save(r.tx, bucketBounces, key, &rec); err != nil {
			return err
		}
		u.Back = r.now
	}
	return nil
}

// retryBouncing lifts the bouncing mark of the sender's address for one
// more try (see the top of this file): one more hard bounce marks it, the
// clocks of the address's accounts restart now (their games were paused
// if it was their last address), and r.bounceNote tells the sender in the
// answer to this mail. A mail whose SPF and DKIM failed lifts nothing
// (Handle does not call it then).
func (r *request) retryBouncing() error {
	key := strings.ToLower(r.in.From)
	var rec bounceRec
	ok, err := load(r.tx, bucketBounces, key, &rec)
	if err != nil || !ok || rec.Bouncing.IsZero() {
		return err
	}
	marked := rec.Bouncing
	rec.Bouncing, rec.Retry = time.Time{}, true
	if err := save(r.tx, bucketBounces, key, &rec); err != nil {
		return err
	}
	var a address
	if _, err := load(r.tx, bucketAddresses, key, &a); err != nil {
		return err
	}
	for _, id := range a.Users {
		u, ok, err := r.loadUser(id)
		if err != nil || !ok {
			return err
		}
		u.Back = r.now
		if err := r.saveUser(u); err != nil {
			return err
		}
	}
	r.bounceNote, err = r.e.cfg.Templates.Render("bounce.note", kv{"Address": r.in.From,
		"Since": marked.UTC().Format("2 Jan 2006"), "Mails": BounceMails, "Days": int(BounceWindow / (24 * time.Hour))})
	r.bounceNote = templates.Wrap(r.bounceNote, templates.Width)
	return err
}

// withBounceNote opens m with r.bounceNote, once, when m goes to the
// sender.
func (r *request) withBounceNote(m Mail) Mail {
	if r.bounceNote == "" || !slices.ContainsFunc(m.To, func(a string) bool { return strings.EqualFold(a, r.in.From) }) {
		return m
	}
	m.Body = r.bounceNote + "\n\n" + m.Body
	if i := strings.Index(m.HTML, "<body"); i >= 0 {
		if j := strings.Index(m.HTML[i:], ">"); j >= 0 {
			at := i + j + 1
			m.HTML = m.HTML[:at] + "\n<p>" + html.EscapeString(r.bounceNote) + "</p>" + m.HTML[at:]
		}
	}
	r.bounceNote = ""
	return m
}

// BounceMark says whether addr is marked bouncing, since when, for the
// player's web page.
func BounceMark(tx Tx, addr string) (time.Time, error) {
	var rec bounceRec
	_, err := load(tx, bucketBounces, strings.ToLower(addr), &rec)
	return rec.Bouncing, err
}

// BounceInfo is one address with bounces, for `lyngk admin bounces` and
// the metrics.
type BounceInfo struct {
	Address  string
	Bouncing time.Time // zero: not bouncing
	Hard     int       // hard bounces in the window
	Soft     int
	LastSoft time.Time
}

// Bounces lists the addresses with a bounce on record, bouncing ones first
// (then by address).
func Bounces(tx Tx) ([]BounceInfo, error) {
	var out []BounceInfo
	err := tx.ForEach(bucketBounces, func(k string, v []byte) error {
		if strings.HasPrefix(k, verpPrefix) || strings.HasPrefix(k, "token ") {
			return nil // a tag's address, or an older release's random token
		}
		var rec bounceRec
		if _, err := load(tx, bucketBounces, k, &rec); err != nil {
			return err
		}
		if rec.Bouncing.IsZero() && len(rec.Hard) == 0 && rec.Soft == 0 {
			return nil
		}
		out = append(out, BounceInfo{Address: k, Bouncing: rec.Bouncing, Hard: len(rec.Hard), Soft: rec.Soft, LastSoft: rec.LastSoft})
		return nil
	})
	slices.SortStableFunc(out, func(a, b BounceInfo) int {
		if a.Bouncing.IsZero() != b.Bouncing.IsZero() {
			if a.Bouncing.IsZero() {
				return 1
			}
			return -1
		}
		return strings.Compare(a.Address, b.Address)
	})
	return out, err
}
