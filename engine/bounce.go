package engine

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Bounces, as Mailman handles them. A bounce is matched to the confirmed
// address it was for, by one of two keys a stranger cannot make up:
//
//   - the VERP token: with plus addressing (Config.VERP off or on is the
//     caller's choice, cmd/lyngk's bounce_verp), mail to a confirmed
//     address leaves with the envelope sender robot+b-TOKEN@domain, TOKEN
//     being the address's own random token, so the bounce comes back to
//     that address whatever it says;
//   - else the Message-ID of the mail that bounced, as the bounce returns
//     it: a mail with a reply token names its user, and the address the
//     bounce reports must be one of that user's confirmed addresses.
//
// Hard bounces (permanent failures) of 3 different mails within 14 days
// mark the address bouncing: nothing is sent to it any more but
// confirmation mails, and when all of an account's confirmed addresses are
// bouncing its games pause as on vacation (no reminder, no forfeit). A
// confirmation of the address (after `change address`) or any `change
// address` of the account clears the mark, and the paused clocks restart
// then, as after a vacation. Soft bounces (temporary failures) are only
// counted. Mail to strangers gets no token: only confirmed addresses have a
// bounce record, so a flood of forged senders leaves none behind.

const bucketBounces = "bounces"

// Bounce thresholds.
const (
	BounceMails  = 3                   // hard bounces of different mails...
	BounceWindow = 14 * 24 * time.Hour // ...within this window mark an address bouncing
	// maxBounceHits bounds the hard bounces kept per address.
	maxBounceHits = 8
	// verpTag starts the token in the envelope sender's local part.
	verpTag = "+b-"
)

// bounceRec is a record of bucket bounces, keyed by the lower-cased
// address; "token " + TOKEN keys a bounceToken.
type bounceRec struct {
	V     int    `json:"v"`
	Token string `json:"token,omitempty"` // the VERP token, made at the first mail
	// Hard are the hard bounces in the window, one per mail that bounced.
	Hard     []bounceHit `json:"hard,omitempty"`
	Soft     int         `json:"soft,omitempty"` // soft bounces, ever
	LastSoft time.Time   `json:"last_soft,omitzero"`
	// Bouncing is when the address was marked bouncing; zero: it is not.
	Bouncing time.Time `json:"bouncing,omitzero"`
}

type bounceHit struct {
	Mail string    `json:"mail"` // Message-ID of the mail that bounced (or of the bounce)
	At   time.Time `json:"at"`
}

type bounceToken struct {
	V       int    `json:"v"`
	Address string `json:"address"`
}

func (b *bounceRec) version() int   { return b.V }
func (b *bounceToken) version() int { return b.V }

// Bounce is a bounce as read by the mailer (mailer.Bounce).
type Bounce struct {
	To         []string // where the bounce was sent: the VERP address shows here
	MessageIDs []string // of the mail that bounced
	ID         string   // the bounce's own Message-ID
	Recipients []BounceRecipient
}

// BounceRecipient is one address a bounce reports failed.
type BounceRecipient struct {
	Addr string
	Hard bool
}

// BounceOutcome is what became of a bounce.
type BounceOutcome struct {
	Address string // the confirmed address it was matched to; "" for none
	Hard    bool
	Marked  bool // the address is bouncing from now on
}

// VERP is the envelope sender that brings the bounces of a mail to the
// address with token back with the token: robot's local part + "+b-" +
// token.
func VERP(robot, token string) string {
	local, domain, _ := strings.Cut(robot, "@")
	return local + verpTag + token + "@" + domain
}

// verpToken is the token of a VERP address of robot, "" when to is none.
func verpToken(robot, to string) string {
	local, domain, _ := strings.Cut(robot, "@")
	tl, td, ok := strings.Cut(to, "@")
	if !ok || !strings.EqualFold(td, domain) {
		return ""
	}
	tok, ok := strings.CutPrefix(strings.ToLower(tl), strings.ToLower(local)+verpTag)
	if !ok || tok == "" || len(tok) > 32 {
		return ""
	}
	return tok
}

// BounceToken returns the VERP token of a confirmed address, made on first
// use; "" for an address that is nobody's confirmed one (such mail leaves
// with the robot's plain address).
func (e *Engine) BounceToken(tx Tx, addr string) (string, error) {
	key := strings.ToLower(addr)
	if ok, err := confirmed(tx, key); err != nil || !ok {
		return "", err
	}
	var rec bounceRec
	if _, err := load(tx, bucketBounces, key, &rec); err != nil {
		return "", err
	}
	if rec.Token != "" {
		return rec.Token, nil
	}
	tok, err := drawToken(e.cfg.Rand, 10)
	if err != nil {
		return "", fmt.Errorf("engine: bounce token: %w", err)
	}
	rec.V, rec.Token = recordVersion, tok
	if err := save(tx, bucketBounces, "token "+rec.Token, &bounceToken{V: recordVersion, Address: key}); err != nil {
		return "", err
	}
	return rec.Token, save(tx, bucketBounces, key, &rec)
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
	addr, hard, err := e.matchBounce(tx, b)
	if err != nil || addr == "" {
		return out, err
	}
	if ok, err := confirmed(tx, addr); err != nil || !ok {
		return out, err
	}
	out.Address, out.Hard = addr, hard
	var rec bounceRec
	if _, err := load(tx, bucketBounces, addr, &rec); err != nil {
		return out, err
	}
	rec.V = recordVersion
	if !hard {
		rec.Soft++
		rec.LastSoft = now
		return out, save(tx, bucketBounces, addr, &rec)
	}
	mail := b.ID
	if len(b.MessageIDs) > 0 {
		mail = b.MessageIDs[0]
	}
	rec.Hard = slices.DeleteFunc(rec.Hard, func(h bounceHit) bool { return now.Sub(h.At) >= BounceWindow })
	if !slices.ContainsFunc(rec.Hard, func(h bounceHit) bool { return h.Mail == mail }) {
		rec.Hard = append(rec.Hard, bounceHit{Mail: mail, At: now})
		if len(rec.Hard) > maxBounceHits {
			rec.Hard = rec.Hard[len(rec.Hard)-maxBounceHits:]
		}
	}
	if len(rec.Hard) >= BounceMails && rec.Bouncing.IsZero() {
		rec.Bouncing, out.Marked = now, true
	}
	return out, save(tx, bucketBounces, addr, &rec)
}

// matchBounce finds the confirmed address a bounce is about (lower-cased),
// and whether it is hard for it.
func (e *Engine) matchBounce(tx Tx, b Bounce) (addr string, hard bool, err error) {
	for _, to := range b.To {
		tok := verpToken(e.cfg.Robot, to)
		if tok == "" {
			continue
		}
		var t bounceToken
		if ok, err := load(tx, bucketBounces, "token "+tok, &t); err != nil || !ok {
			return "", false, err
		}
		// One address per envelope: the bounce is about it, whatever
		// address it names (a forward's, say).
		return t.Address, slices.ContainsFunc(b.Recipients, func(r BounceRecipient) bool { return r.Hard }), nil
	}
	for _, id := range b.MessageIDs {
		local, _, _ := strings.Cut(id, "@")
		tok, ok := strings.CutPrefix(local, tokenPrefix)
		if !ok || tok == "" || len(tok) > maxTokenLen {
			continue
		}
		var t token
		if ok, err := load(tx, bucketTokens, tok, &t); err != nil || !ok {
			if err != nil {
				return "", false, err
			}
			continue
		}
		u := new(user)
		if ok, err := load(tx, bucketUsers, t.User, u); err != nil || !ok {
			return "", false, err
		}
		for _, r := range b.Recipients {
			if slices.ContainsFunc(u.Addresses, func(a string) bool { return strings.EqualFold(a, r.Addr) }) {
				return strings.ToLower(r.Addr), r.Hard, nil
			}
		}
	}
	return "", false, nil
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
		if !ok || rec.Bouncing.IsZero() {
			continue
		}
		rec.Bouncing, rec.Hard = time.Time{}, nil
		if err := save(r.tx, bucketBounces, key, &rec); err != nil {
			return err
		}
		u.Back = r.now
	}
	return nil
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
		if strings.HasPrefix(k, "token ") {
			return nil
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
