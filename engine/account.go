package engine

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/crypto/bcrypt"
)

// startRating is every player's first Elo rating (SPEC §3).
const startRating = 1600

// userIDPattern: no spaces, quotes or colons (SPEC §3), and more: a userid
// also appears in subjects, the move list and the games listing.
var userIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,15}$`)

// validUserID also wants a letter, so that a userid never reads as a board
// number, and keeps the filter words of show and games free.
func validUserID(id string) bool {
	return userIDPattern.MatchString(id) && strings.ContainsFunc(id, unicode.IsLetter) &&
		!slices.Contains(filters, strings.ToLower(id))
}

// validPassword: bcrypt reads at most 72 bytes; quotes and colons are out as
// in pbmserv.
func validPassword(pw string) bool {
	return len(pw) >= 1 && len(pw) <= 72 && !strings.ContainsFunc(pw, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || strings.ContainsRune(`'"`+"`:‘’“”", r)
	})
}

// maxAddressLen is the longest mail address (RFC 5321 §4.5.3.1.3, as
// mailer.MaxAddressLen): a longer one is refused like bad syntax, so it
// never becomes a store key (bbolt refuses keys over 32 KB).
const maxAddressLen = 254

// addresses reads address arguments; without any, mail goes to the sender.
// Each must be a plain address (validAddress); the domain is lower-cased.
func (r *request) addresses(args []string) ([]string, error) {
	if len(args) == 0 {
		args = []string{r.in.From}
	}
	var out []string
	for _, a := range args {
		if !validAddress(a, r.e.cfg.Domain) {
			return nil, refuse(whyBadAddress, kv{"Addr": a})
		}
		local, domain, _ := strings.Cut(a, "@")
		s := local + "@" + strings.ToLower(domain)
		if len(s) > maxAddressLen {
			return nil, refuse(whyBadAddress, kv{"Addr": a})
		}
		if !slices.ContainsFunc(out, func(o string) bool { return strings.EqualFold(o, s) }) {
			out = append(out, s)
		}
	}
	return out, nil
}

// validAddress accepts a plain local@domain (RFC 5322 §3.4.1) and nothing
// else: the local part a dot-atom (no quoted string), the domain a host
// name with a dot or our own domain (so NAME@localhost in local mode),
// never an address literal ([192.0.2.1]) or a bare IP address. Anything
// more is a mail the relay may refuse or read otherwise than we do, and
// an account whose every reply would be lost.
func validAddress(a, own string) bool {
	local, domain, ok := strings.Cut(a, "@")
	if !ok || len(a) > 254 || len(local) > 64 || !dotAtom.MatchString(local) {
		return false
	}
	if strings.EqualFold(domain, own) {
		return true
	}
	labels := strings.Split(domain, ".")
	if len(labels) < 2 || len(domain) > 253 {
		return false
	}
	for _, l := range labels {
		if !hostLabel.MatchString(l) {
			return false
		}
	}
	// No top-level domain is numeric: 192.0.2.1 is an IP address.
	return strings.ContainsFunc(labels[len(labels)-1], unicode.IsLetter)
}

var (
	// dotAtom is RFC 5322's dot-atom: atext runs joined by single dots.
	dotAtom = regexp.MustCompile("^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$")
	// hostLabel is a label of a host name (RFC 1123 §2.1).
	hostLabel = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$`)
)

// player loads a userid that is to play: known and not signed off. A
// robot's account is made on its first challenge, and plays only while
// its level is on; a level the operator did not choose is refused by
// name, so that a player who read of it elsewhere learns why.
func (r *request) player(id string) (*user, error) {
	u, ok, err := r.loadUser(id)
	if err == nil && r.e.robotName(id) && (!ok || u.Robot) {
		if u, ok, err = r.robotUser(id); err == nil && !ok && r.e.cfg.RobotPlayer {
			return nil, refuse(whyRobotOff, kv{"User": id, "Levels": r.e.robotIDs()})
		}
	}
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, refuse(whyUnknownUser, kv{"User": id})
	case !u.Left.IsZero():
		return nil, refuse(whySignedOff, kv{"User": u.ID})
	}
	return u, nil
}

// hash makes the bcrypt hash of a new password (or takes the one Verify
// made), and lets the cache know the password, so that its first use costs
// no second bcrypt run.
func (r *request) hash(pw string) (string, error) {
	if r.forecast {
		return "", nil // Forecast keeps what Verify made for Handle, and runs no bcrypt
	}
	if h, ok := r.e.auth.take(pw); ok {
		return h, nil // made by Verify, before the transaction
	}
	r.e.inline.Add(1)
	h, err := bcrypt.GenerateFromPassword([]byte(pw), r.e.cfg.BcryptCost)
	if err != nil {
		return "", fmt.Errorf("engine: bcrypt: %w", err)
	}
	r.e.auth.remember(string(h), pw)
	return string(h), nil
}

// accountView is the data of the signup and account mails.
type accountView struct {
	User      string
	Server    string
	Addresses []string
	Pending   []string // waiting for confirmation
	Replace   bool     // the first of Pending confirmed replaces Addresses
	Addr      string   // the address just confirmed
	What      string
	Boards    []int
	// Resigned are the boards signoff resigned, by game; Title is the
	// game of the board of "unsubscribed".
	Resigned []boardGroup
	Title    string
	// Games, RobotPlayer, Robots and Suggested are for the welcome mail:
	// the games offered, each with its own challenge, whether a robot
	// player takes challenges, which (helpView's), and the one to suggest.
	// (Not "Robot": overrides of old that still name the server's address
	// so must fail to render, not show a userid.)
	Games       []gameHelp
	RobotPlayer bool
	Robots      []robotView
	Suggested   string
}

// boardGroup is boards of one game, named by its title.
type boardGroup struct {
	Title  string
	Boards []int
}

// byGame groups boards by their game, in the order of their first board.
func (r *request) byGame(boards []int) ([]boardGroup, error) {
	var out []boardGroup
	at := map[string]int{}
	for _, n := range boards {
		g, ok, err := r.loadGame(n)
		if err != nil {
			return nil, err
		}
		title := r.title("")
		if ok {
			title = r.title(g.Game)
		}
		i, seen := at[title]
		if !seen {
			i, at[title] = len(out), len(out)
			out = append(out, boardGroup{Title: title})
		}
		out[i].Boards = append(out[i].Boards, n)
	}
	return out, nil
}

func (r *request) signup(c Command) error {
	id, pw := c.Args[0], c.Args[1]
	if !validUserID(id) {
		return refuse(whyBadUserid, kv{"User": id})
	}
	if !validPassword(pw) {
		return refuse(whyBadNewPassword, nil)
	}
	addrs, err := r.addresses(c.Args[2:])
	if err != nil {
		return err
	}
	_, taken, err := r.loadUser(id)
	if err != nil {
		return err
	}
	_, robot := r.e.robotLevel(id)
	taken = taken || robot
	if taken {
		return refuse(whyUseridTaken, kv{"User": id})
	}
	if err := r.confirmsAllowed(addrs); err != nil {
		return err
	}
	if err := r.signupsAllowed(0); err != nil {
		return err
	}
	if err := r.spend(hashWork(id)); err != nil {
		return err
	}
	h, err := r.hash(pw)
	if err != nil {
		return err
	}
	// The account plays once an address is confirmed; the welcome mail
	// comes then.
	r.madeHash(id, pw)
	u := &user{ID: id, Hash: h, Pending: addrs, Created: r.now}
	if err := r.saveUser(u); err != nil {
		return err
	}
	if err := r.countSignup(); err != nil {
		return err
	}
	return r.askConfirm(u, addrs, true)
}

func (r *request) changePassword(c Command) error {
	u, err := r.authenticate(c.Args[0], c.Args[1])
	if err != nil {
		return err
	}
	if !validPassword(c.Args[2]) {
		return refuse(whyBadNewPassword, nil)
	}
	if err := r.spend(hashWork(u.ID)); err != nil {
		return err
	}
	if u.Hash, err = r.hash(c.Args[2]); err != nil {
		return err
	}
	r.madeHash(u.ID, c.Args[2])
	if err := r.saveUser(u); err != nil {
		return err
	}
	return r.mail("account", u.Addresses, accountView{User: u.ID, What: "password"})
}

// changeAddress: the addresses named become the account's. Those already
// confirmed for it take effect at once; each other one gets a confirmation
// mail and takes effect when confirmed. While none of the named addresses
// is confirmed, mail keeps going to the old ones, so that a mistyped
// address cannot cut a player off from running games; the first
// confirmation then replaces them.
func (r *request) changeAddress(c Command) error {
	u, err := r.authenticate(c.Args[0], c.Args[1])
	if err != nil {
		return err
	}
	addrs, err := r.addresses(c.Args[2:])
	if err != nil {
		return err
	}
	if err := r.clearBounces(u, u.Addresses...); err != nil {
		return err
	}
	var keep, ask []string
	for _, a := range addrs {
		if slices.ContainsFunc(u.Addresses, func(o string) bool { return strings.EqualFold(o, a) }) {
			keep = append(keep, a)
		} else {
			ask = append(ask, a)
		}
	}
	if err := r.confirmsAllowed(ask); err != nil {
		return err
	}
	// Old and new addresses hear of the change: a stolen password cannot
	// quietly take an account over.
	old := u.Addresses
	key := strings.ToLower(u.ID)
	u.Pending, u.Replace = ask, false
	switch {
	case len(keep) > 0:
		u.Addresses = keep
		for _, a := range old {
			if !slices.ContainsFunc(keep, func(k string) bool { return strings.EqualFold(k, a) }) {
				if err := r.index(a, key, false); err != nil {
					return err
				}
			}
		}
	case len(old) > 0:
		u.Replace = true
	}
	if err := r.saveUser(u); err != nil {
		return err
	}
	if len(old) > 0 {
		err := r.mail("account", union(old, u.Addresses), accountView{User: u.ID, What: "address",
			Addresses: u.Addresses, Pending: u.Pending, Replace: u.Replace})
		if err != nil {
			return err
		}
	}
	return r.askConfirm(u, ask, false)
}

// signoff resigns the user's running games, ends their subscriptions, and
// keeps the record (marked as left) so that the userid stays taken and the
// history stays readable.
func (r *request) signoff(c Command) error {
	u, err := r.authenticate(c.Args[0], c.Args[1])
	if err != nil {
		return err
	}
	boards, u, err := r.quit(u)
	if err != nil {
		return err
	}
	groups, err := r.byGame(boards)
	if err != nil {
		return err
	}
	return r.mail("account", u.Addresses, accountView{User: u.ID, What: "signoff", Boards: boards, Resigned: groups})
}

// quit resigns u's running games, ends u's subscriptions, unindexes u's
// addresses and marks u as left (signoff, delete). It returns the boards
// resigned and u as saved, its ratings after them.
func (r *request) quit(u *user) (boards []int, _ *user, err error) {
	key := strings.ToLower(u.ID)
	gs, err := r.ownGames(key)
	if err != nil {
		return nil, nil, err
	}
	for _, g := range gs {
		if i := slices.Index(g.Subscribers, key); i >= 0 {
			g.Subscribers = slices.Delete(g.Subscribers, i, i+1)
			if err := r.saveGame(g); err != nil {
				return nil, nil, err
			}
		}
		if p := g.player(key); p != 0 && !g.over() {
			boards = append(boards, g.Board)
			if err := r.resign(g, p, nil); err != nil {
				return nil, nil, err
			}
		}
	}
	// The resignations rated the games and saved the user: read it again,
	// or the rating changes would be lost.
	if u, _, err = r.loadUser(key); err != nil {
		return nil, nil, err
	}
	for _, a := range u.Addresses {
		if err := r.index(a, key, false); err != nil {
			return nil, nil, err
		}
	}
	if u.Left.IsZero() {
		u.Left = r.now
	}
	u.Pending, u.Replace = nil, false
	return boards, u, r.saveUser(u)
}

// setting is a per-user choice, "change WORD USERID PASSWORD VALUE":
// values[0] is the default, stored as "" (a record written before the
// choice existed reads as the default), any other value as it is.
type setting struct {
	values []string
	field  func(*user) *string
}

// settings are the choices by command: format, html (the default: the
// mails that show a board carry an HTML part with the picture) or text;
// subject, gamerz (the default: subjects that say what changed) or game
// (one subject for every mail of a game); chat, copy (the default: the
// sender of a chat gets a copy) or confirm (a one-line confirmation);
// messages, on (the default: messages and broadcasts come) or off;
// review, on (the default: a mail after the game-over mail names the
// loser's costliest turns, reviews.go) or off.
var settings = map[string]setting{
	"change format":   {[]string{"html", formatText}, func(u *user) *string { return &u.Format }},
	"change subject":  {[]string{"gamerz", subjectGame}, func(u *user) *string { return &u.Subject }},
	"change chat":     {[]string{"copy", chatConfirm}, func(u *user) *string { return &u.Chat }},
	"change messages": {[]string{"on", messagesOff}, func(u *user) *string { return &u.Messages }},
	"change review":   {[]string{"on", reviewOff}, func(u *user) *string { return &u.Review }},
}

// changeSetting runs one of the settings' commands.
func (r *request) changeSetting(c Command) error {
	u, err := r.authenticate(c.Args[0], c.Args[1])
	if err != nil {
		return err
	}
	s := settings[c.Name]
	value := strings.ToLower(c.Args[2])
	i := slices.Index(s.values, value)
	if i < 0 {
		return r.e.usageRefusal(c.Name, "")
	}
	*s.field(u) = ""
	if i > 0 {
		*s.field(u) = value
	}
	if err := r.saveUser(u); err != nil {
		return err
	}
	v := accountView{User: u.ID, What: strings.TrimPrefix(c.Name, "change ") + "-" + value}
	if c.Name == "change subject" {
		// The example subject is of the game the player played last,
		// else of the first game the server offers.
		v.Title = r.e.cfg.Games[0].Title()
		last := 0
		for _, state := range []string{StateActive, StateFinished} {
			gs, _, err := r.listing([]string{strings.ToLower(u.ID)}, allScope, state, 0, 0, 1)
			if err != nil {
				return err
			}
			if len(gs) > 0 && gs[0].Board > last {
				last, v.Title = gs[0].Board, r.title(gs[0].Game)
			}
		}
	}
	return r.mail("account", u.Addresses, v)
}

func (r *request) vacation(c Command) error {
	u, err := r.authenticate(c.Args[0], c.Args[1])
	if err != nil {
		return err
	}
	what := "vacation-" + strings.ToLower(c.Args[2])
	switch what {
	case "vacation-on":
		u.Vacation = true
	case "vacation-off":
		if u.Vacation {
			u.Back = r.now
		}
		u.Vacation = false
	default:
		return r.e.usageRefusal("vacation", "")
	}
	if err := r.saveUser(u); err != nil {
		return err
	}
	return r.mail("account", u.Addresses, accountView{User: u.ID, What: what})
}
