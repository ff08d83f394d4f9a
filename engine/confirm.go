package engine

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Confirmed addresses (double opt-in). signup and change address mail a
// confirmation to each new address; the address receives mail (game mail,
// account notices) only once it is confirmed, by a reply to that mail or by
// "confirm USERID CODE". A confirmation mail costs the address's owner a
// mail, so each mailbox (whatever its +tag, case or gmail dots) gets at
// most Config.ConfirmsPerDay of them (3 by default) in a window of
// confirmWindow that opens with the first.
const (
	confirmWindow = 24 * time.Hour
	// confirmKeep is how long a confirmation code is kept, used or not:
	// an unused one confirms nothing after it (a new one comes with
	// change address), a used one answers a late second use "already
	// confirmed" until then. Tick deletes older ones (pruneStale, by the
	// expiry index), so
	// signups leave no record for good.
	confirmKeep = 7 * 24 * time.Hour
	// confirmPrefix begins the Message-ID of a confirmation mail:
	// <lyngk-confirm.CODE@DOMAIN>, the code being 160 random bits as a
	// reply token's.
	confirmPrefix = "lyngk-confirm."
)

// canPlay reports whether u may be named in a challenge: an account plays
// once it has a confirmed address, where its game mail goes; the robot
// player, which reads the store rather than mail, always.
func (u *user) canPlay() bool { return u.Robot || len(u.Addresses) > 0 }

// ConfirmedAddress reports whether addr is a confirmed address of some
// account that has not signed off (compared without regard to case).
func ConfirmedAddress(tx Tx, addr string) (bool, error) {
	var a address
	found, err := load(tx, bucketAddresses, strings.ToLower(strings.TrimSpace(addr)), &a)
	return found && len(a.Users) > 0, err
}

// index adds (or removes) the user key to (from) the accounts for which
// addr is confirmed.
func (r *request) index(addr, key string, add bool) error {
	k := strings.ToLower(addr)
	var a address
	if _, err := load(r.tx, bucketAddresses, k, &a); err != nil {
		return err
	}
	i := slices.Index(a.Users, key)
	switch {
	case add && i < 0:
		a.Users = append(a.Users, key)
	case !add && i >= 0:
		a.Users = slices.Delete(a.Users, i, i+1)
	default:
		return nil
	}
	a.V = recordVersion
	return saveAddress(r.tx, k, &a)
}

// confirmsAllowed refuses when one of addrs has had its confirmation mails
// for the window: nothing is sent then, nor changed.
func (r *request) confirmsAllowed(addrs []string) error {
	if r.asked+len(addrs) > MaxConfirmsPerMail {
		return refuse(whyConfirmsPerMail, kv{"Max": MaxConfirmsPerMail})
	}
	for _, ad := range addrs {
		var a address
		if _, err := load(r.tx, bucketAddresses, mailbox(ad), &a); err != nil {
			return err
		}
		if r.now.Sub(a.Start) < confirmWindow && a.Sent >= r.e.cfg.ConfirmsPerDay {
			return refuse(whyConfirmLimit, kv{"Addr": ad, "Limit": r.e.cfg.ConfirmsPerDay})
		}
	}
	return nil
}

// confirmView is the data of the confirmation mail.
type confirmView struct {
	User, Server, Addr, Code string
	Signup                   bool
	Limit                    int
}

// askConfirm mails a confirmation to each of addrs for u, each with its own
// code; confirmsAllowed has passed.
func (r *request) askConfirm(u *user, addrs []string, signup bool) error {
	// A confirmation goes to the address named, whoever asked: it is no
	// answer to the sender (silent), and has bounds of its own.
	silent := r.silent
	r.silent = false
	defer func() { r.silent = silent }()
	for _, ad := range addrs {
		r.asked++
		k := mailbox(ad)
		var a address
		if _, err := load(r.tx, bucketAddresses, k, &a); err != nil {
			return err
		}
		if r.now.Sub(a.Start) >= confirmWindow {
			a.Start, a.Sent = r.now, 0
		}
		a.Sent++
		a.V = recordVersion
		if err := saveAddress(r.tx, k, &a); err != nil {
			return err
		}
		code, err := drawToken(r.e.cfg.Rand, 20)
		if err != nil {
			return fmt.Errorf("engine: confirmation code: %w", err)
		}
		if old, err := r.tx.Get(bucketConfirms, code); err != nil || old != nil {
			if err == nil {
				err = fmt.Errorf("engine: confirmation code %s drawn twice: broken random source", code)
			}
			return err
		}
		rec := confirmation{V: recordVersion, User: strings.ToLower(u.ID), Address: ad, Sent: r.now}
		if err := saveConfirm(r.tx, code, &rec); err != nil {
			return err
		}
		v := confirmView{User: u.ID, Server: r.e.cfg.Server, Addr: ad, Code: code,
			Signup: signup, Limit: r.e.cfg.ConfirmsPerDay}
		if err := r.mailAbout("confirm", v, envelope{to: []string{ad}, id: confirmPrefix + code + "@" + r.e.cfg.Domain}); err != nil {
			return err
		}
	}
	return nil
}

// confirmReference finds the code of a confirmation mail this mail answers,
// in In-Reply-To or References.
func (r *request) confirmReference() (string, bool) {
	for _, id := range append(slices.Clone(r.in.InReplyTo), r.in.References...) {
		local, _, ok := strings.Cut(strings.Trim(strings.TrimSpace(id), "<>"), "@")
		if ok && len(local) > len(confirmPrefix) && strings.EqualFold(local[:len(confirmPrefix)], confirmPrefix) {
			return strings.ToLower(local[len(confirmPrefix):]), true
		}
	}
	return "", false
}

// yesWord is a line that says yes: the word in any case, alone or with
// words after it ("Yes please", "YES.", "yes!"), not "yesterday".
var yesWord = regexp.MustCompile(`(?i)^yes($|[^\p{L}\p{N}])`)

// saysConfirm says whether a reply to the confirmation mail of code
// confirms: the first line the person wrote, above the quoted mail or
// below it (s-nail, mutt and Claws Mail put the cursor under the quote),
// says yes (yesWord), starts with "confirm", or holds the code. Only that
// line: an auto-responder or a ticket system that pastes the mail
// unquoted, its "confirm USERID CODE" line and all, confirms nothing.
func (r *request) saysConfirm(code string) bool {
	s := r.e.ReadMail("", r.withoutCopies(r.in.Body))
	if len(s.Lines) == 0 {
		return false
	}
	l := strings.ToLower(s.Lines[0])
	return yesWord.MatchString(l) || strings.HasPrefix(l, "confirm") || strings.Contains(l, code)
}

// confirmExpected is the answer to a reply to the confirmation mail of
// code that neither confirms nor holds a command: what that mail expects,
// "yes". A code unknown or too old gets the answer a "yes" would get.
// known says whether the code is one of ours: the answer to a known code
// is given once a day for that code, to another once a day for the
// sender, so that forged codes make no more answers than any mail does.
func (r *request) confirmExpected(code string) (ref *refusal, known bool, err error) {
	var rec confirmation
	found, err := load(r.tx, bucketConfirms, code, &rec)
	if err != nil {
		return nil, false, err
	}
	if !found || r.now.Sub(rec.Sent) >= confirmKeep {
		return refuse(whyConfirmUnknown, kv{"Days": int(confirmKeep / (24 * time.Hour))}), false, nil
	}
	return refuse(whyConfirmExpected, kv{"User": rec.User}), true, nil
}

// confirmCommand: confirm USERID CODE.
func (r *request) confirmCommand(c Command) error {
	return r.confirm(c.Args[0], strings.ToLower(c.Args[1]))
}

// confirm confirms the address of the code for its user (id, when given,
// must be that user). The first confirmed address of a new account brings
// the welcome mail; a later one a notice to the account's addresses.
func (r *request) confirm(id, code string) error {
	var rec confirmation
	found, err := load(r.tx, bucketConfirms, code, &rec)
	if err != nil {
		return err
	}
	if !found || (id != "" && !strings.EqualFold(id, rec.User)) || r.now.Sub(rec.Sent) >= confirmKeep {
		// A code past confirmKeep that Tick has not deleted yet gets
		// the answer it will get once deleted.
		return refuse(whyConfirmUnknown, kv{"Days": int(confirmKeep / (24 * time.Hour))})
	}
	u, err := r.player(rec.User)
	if err != nil {
		return err
	}
	ad := rec.Address
	i := slices.IndexFunc(u.Pending, func(a string) bool { return strings.EqualFold(a, ad) })
	if i < 0 {
		if slices.ContainsFunc(u.Addresses, func(a string) bool { return strings.EqualFold(a, ad) }) {
			return refuse(whyConfirmDone, kv{"User": u.ID, "Addr": ad})
		}
		return refuse(whyConfirmVoid, kv{"User": u.ID, "Addr": ad})
	}
	key := strings.ToLower(u.ID)
	u.Pending = slices.Delete(u.Pending, i, i+1)
	welcome := len(u.Addresses) == 0
	var dropped []string
	if u.Replace {
		dropped, u.Addresses, u.Replace = u.Addresses, []string{ad}, false
	} else {
		u.Addresses = append(u.Addresses, ad)
	}
	for _, a := range dropped {
		if err := r.index(a, key, false); err != nil {
			return err
		}
	}
	if err := r.index(ad, key, true); err != nil {
		return err
	}
	if err := r.clearBounces(u, ad); err != nil {
		return err
	}
	if err := r.saveUser(u); err != nil {
		return err
	}
	if welcome {
		robots, robot, err := r.robotViews()
		if err != nil {
			return err
		}
		return r.mail("signup", u.Addresses, accountView{User: u.ID, Server: r.e.cfg.Server, Addresses: u.Addresses,
			Games: r.e.gameHelps(), RobotPlayer: len(robots) > 0, Robots: robots, Suggested: robot})
	}
	return r.mail("account", union(dropped, u.Addresses), accountView{User: u.ID, What: "confirmed",
		Addr: ad, Addresses: u.Addresses, Pending: u.Pending})
}

// union is a followed by the elements of b it lacks (without regard to
// case).
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.ContainsFunc(out, func(o string) bool { return strings.EqualFold(o, s) }) {
			out = append(out, s)
		}
	}
	return out
}
