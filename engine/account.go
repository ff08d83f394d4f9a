package engine

import (
	"fmt"
	"net/mail"
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
func (r *request) addresses(args []string) ([]string, error) {
	if len(args) == 0 {
		return []string{r.in.From}, nil
	}
	var out []string
	for _, a := range args {
		addr, err := mail.ParseAddress(a)
		if err != nil {
			return nil, refuse("bad-address", kv{"Addr": a})
		}
		local, domain, _ := strings.Cut(addr.Address, "@")
		s := local + "@" + strings.ToLower(domain)
		if len(s) > maxAddressLen {
			return nil, refuse("bad-address", kv{"Addr": a})
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

// player loads a userid that is to play: known and not signed off. The
// robot's account is made on its first challenge, and exists only while
// the robot plays.
func (r *request) player(id string) (*user, error) {
	u, ok, err := r.loadUser(id)
	if strings.EqualFold(id, RobotID) && (!ok || u.Robot) {
		u, ok, err = r.robotUser()
		ok = ok && r.e.cfg.RobotPlayer
	}
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, refuse("unknown-user", kv{"User": id})
	case !u.Left.IsZero():
		return nil, refuse("signed-off", kv{"User": u.ID})
	}
	return u, nil
}

// hash makes the bcrypt hash of a new password (or takes the one Verify
// made), and lets the cache know the password, so that its first use costs
// no second bcrypt run.
func (r *request) hash(pw string) (string, error) {
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
	Robot     string
	Addresses []string
	What      string
	Boards    []int
}

func (r *request) signup(c Command) error {
	id, pw := c.Args[0], c.Args[1]
	if !validUserID(id) {
		return refuse("bad-userid", kv{"User": id})
	}
	if !validPassword(pw) {
		return refuse("bad-new-password", nil)
	}
	addrs, err := r.addresses(c.Args[2:])
	if err != nil {
		return err
	}
	_, taken, err := r.loadUser(id)
	if err != nil {
		return err
	}
	taken = taken || (r.e.cfg.RobotPlayer && strings.EqualFold(id, RobotID))
	if taken {
		return refuse("userid-taken", kv{"User": id})
	}
	h, err := r.hash(pw)
	if err != nil {
		return err
	}
	u := &user{ID: id, Hash: h, Addresses: addrs, Created: r.now, Rating: startRating}
	if err := r.saveUser(u); err != nil {
		return err
	}
	return r.mail("signup", addrs, accountView{User: id, Robot: r.e.cfg.Robot, Addresses: addrs})
}

func (r *request) changePassword(c Command) error {
	u, err := r.authenticate(c.Args[0], c.Args[1])
	if err != nil {
		return err
	}
	if !validPassword(c.Args[2]) {
		return refuse("bad-new-password", nil)
	}
	if u.Hash, err = r.hash(c.Args[2]); err != nil {
		return err
	}
	if err := r.saveUser(u); err != nil {
		return err
	}
	return r.mail("account", u.Addresses, accountView{User: u.ID, What: "password"})
}

func (r *request) changeAddress(c Command) error {
	u, err := r.authenticate(c.Args[0], c.Args[1])
	if err != nil {
		return err
	}
	addrs, err := r.addresses(c.Args[2:])
	if err != nil {
		return err
	}
	// Old and new addresses hear of the change: a stolen password cannot
	// quietly take an account over.
	to := slices.Clone(u.Addresses)
	for _, a := range addrs {
		if !slices.Contains(to, a) {
			to = append(to, a)
		}
	}
	u.Addresses = addrs
	if err := r.saveUser(u); err != nil {
		return err
	}
	return r.mail("account", to, accountView{User: u.ID, What: "address", Addresses: addrs})
}

// signoff resigns the user's running games, ends their subscriptions, and
// keeps the record (marked as left) so that the userid stays taken and the
// history stays readable.
func (r *request) signoff(c Command) error {
	u, err := r.authenticate(c.Args[0], c.Args[1])
	if err != nil {
		return err
	}
	key := strings.ToLower(u.ID)
	gs, err := r.allGames()
	if err != nil {
		return err
	}
	var boards []int
	for _, g := range gs {
		if i := slices.Index(g.Subscribers, key); i >= 0 {
			g.Subscribers = slices.Delete(g.Subscribers, i, i+1)
			if err := r.saveGame(g); err != nil {
				return err
			}
		}
		if p := g.player(key); p != 0 && !g.over() {
			boards = append(boards, g.Board)
			if err := r.resign(g, p, nil); err != nil {
				return err
			}
		}
	}
	u.Left = r.now
	if err := r.saveUser(u); err != nil {
		return err
	}
	return r.mail("account", u.Addresses, accountView{User: u.ID, What: "signoff", Boards: boards})
}

// changeFormat: change format USERID PASSWORD html|text. html (the
// default) gives the mails that show a board an HTML part with the
// picture beside the text; text gives the text part alone.
func (r *request) changeFormat(c Command) error {
	u, err := r.authenticate(c.Args[0], c.Args[1])
	if err != nil {
		return err
	}
	switch strings.ToLower(c.Args[2]) {
	case "html":
		u.Format = ""
	case formatText:
		u.Format = formatText
	default:
		return refuse("usage", kv{"Name": "change format"})
	}
	if err := r.saveUser(u); err != nil {
		return err
	}
	return r.mail("account", u.Addresses, accountView{User: u.ID, What: "format-" + strings.ToLower(c.Args[2])})
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
		return refuse("usage", kv{"Name": "vacation"})
	}
	if err := r.saveUser(u); err != nil {
		return err
	}
	return r.mail("account", u.Addresses, accountView{User: u.ID, What: what})
}
