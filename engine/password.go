package engine

import (
	"errors"
	"strings"
	"time"
)

// Password checks and the per-userid lockout (see "Passwords" in doc.go).

// MaxWrongPasswords is how many wrong passwords one userid takes within
// LockoutWindow, from any senders, before its password commands are
// refused unchecked for the rest of that window.
const (
	MaxWrongPasswords = 10
	LockoutWindow     = time.Hour
)

// Check is one bcrypt run that a mail's commands will need: a password
// compared with an account's hash, or a new password (signup, change
// password) hashed. List them with [Engine.Checks] in a read transaction,
// run them with [Engine.Verify] outside any transaction, then
// [Engine.Handle] finds the verdicts and hashes in memory. The password
// stays inside the engine.
type Check struct {
	User           string // the userid as the command names it
	hash, password string // hash "": make a hash of password
}

// Checks lists the bcrypt runs that Handle would need for in: the
// passwords of the commands that take one, for existing accounts that are
// not locked out, minus those memory can already answer, at most as many
// per userid as it has wrong passwords left before the lockout; and the
// new passwords of signup (a free userid) and change password (after an
// old password that may be right).
// It only reads tx. It is a forecast: a check it misses (say, a password
// changed by another mail in between) is still run by Handle, inside the
// transaction, and counted by [Engine.InlineChecks].
func (e *Engine) Checks(tx Tx, in Inbound, now time.Time) ([]Check, error) {
	if in.Auto != "" || in.TooBig || strings.TrimSpace(in.From) == "" || strings.EqualFold(strings.TrimSpace(in.From), e.cfg.Robot) {
		return nil, nil
	}
	r := &request{e: e, tx: tx, in: in, now: now}
	var out []Check
	left := map[string]int{}       // lower-cased userid -> wrong passwords left
	listed := map[[2]string]bool{} // (hash, password) already in out
	for _, line := range ReadMail(in.Subject, r.withoutCopies(in.Body)).Lines {
		if !isCommandLine(line) {
			continue
		}
		c, err := ParseCommand(line)
		if err != nil {
			continue
		}
		if c.Name == "signup" {
			id, pw := c.Args[0], c.Args[1]
			if !validUserID(id) || !validPassword(pw) {
				continue
			}
			if _, taken, err := r.loadUser(id); err != nil || taken {
				if err != nil {
					return nil, err
				}
				continue
			}
			out = append(out, Check{User: id, password: pw})
			continue
		}
		id, pw, board, ok := passwordArgs(c)
		if !ok {
			continue
		}
		newHash := func(u *user) {
			if c.Name == "change password" && validPassword(c.Args[2]) {
				out = append(out, Check{User: u.ID, password: c.Args[2]})
			}
		}
		if board != "" {
			// Game commands look at the board first: no board, no check.
			if _, err := r.game(board); err != nil {
				if ref := new(refusal); errors.As(err, &ref) {
					continue
				}
				return nil, err
			}
		}
		u, found, err := r.loadUser(id)
		if err != nil {
			return nil, err
		}
		if !found || !u.Left.IsZero() {
			continue
		}
		key := strings.ToLower(u.ID)
		n, seen := left[key]
		if !seen {
			l, err := r.loadLockout(key)
			if err != nil {
				return nil, err
			}
			n = MaxWrongPasswords - l.Count
			if l.locked() {
				n = 0
			}
		}
		if n <= 0 {
			continue
		}
		if ok, known := e.auth.lookup(u.Hash, pw); known {
			if ok {
				newHash(u)
			} else {
				left[key] = n - 1
			}
			continue
		}
		left[key] = n - 1 // it may be wrong
		if pair := [2]string{u.Hash, pw}; !listed[pair] {
			listed[pair] = true
			out = append(out, Check{User: u.ID, hash: u.Hash, password: pw})
		}
		newHash(u)
	}
	return out, nil
}

// Verify runs bcrypt for c, which takes tens of milliseconds on purpose:
// call it outside the store's write transaction, as many at once as there
// are cores to spare. The verdict, or the new hash, is kept for Handle.
func (e *Engine) Verify(c Check) {
	if c.hash == "" {
		e.auth.make(c.password, e.cfg.BcryptCost)
		return
	}
	e.auth.check(c.hash, c.password)
}

// InlineChecks is the number of bcrypt runs (comparisons and new hashes)
// Handle made itself, inside the caller's transaction, because no Verify
// had done them.
func (e *Engine) InlineChecks() int64 { return e.inline.Load() }

// passwordArgs finds the USERID PASSWORD arguments of a command that takes
// them, and the board argument of the game commands.
func passwordArgs(c Command) (id, pw, board string, ok bool) {
	switch c.Name {
	case "change password", "change address", "signoff", "vacation":
		return c.Args[0], c.Args[1], "", true
	case "move", "resign", "subscribe", "unsubscribe", "chat":
		return c.Args[1], c.Args[2], c.Args[0], true
	}
	return "", "", "", false
}

// lockout is the wrong-password window of one userid: a record of bucket
// rate under the key "password USERID" (lower-cased), which no sender
// address can take.
type lockout struct {
	rateCount
	now time.Time
}

func lockoutKey(id string) string { return "password " + id }

func (r *request) loadLockout(id string) (*lockout, error) {
	l := &lockout{now: r.now}
	if _, err := load(r.tx, bucketRate, lockoutKey(id), &l.rateCount); err != nil {
		return nil, err
	}
	if r.now.Sub(l.Start) >= LockoutWindow || r.now.Before(l.Start) {
		l.rateCount = rateCount{}
	}
	return l, nil
}

// locked says the userid has had its MaxWrongPasswords in this window.
func (l *lockout) locked() bool { return l.Count >= MaxWrongPasswords }

// until is the end of the window.
func (l *lockout) until() time.Time { return l.Start.Add(LockoutWindow) }

// authenticate checks a userid and its password. A userid locked out is
// refused without a check; a wrong password counts against the userid, and
// the one that reaches MaxWrongPasswords tells the owner, once.
func (r *request) authenticate(id, password string) (*user, error) {
	u, err := r.player(id)
	if err != nil {
		return nil, err
	}
	key := strings.ToLower(u.ID)
	l, err := r.loadLockout(key)
	if err != nil {
		return nil, err
	}
	if l.locked() {
		return nil, refuse("locked-out", kv{"User": u.ID, "Until": l.until().UTC().Format("15:04 MST")})
	}
	ok, known := r.e.auth.lookup(u.Hash, password)
	if !known {
		r.e.inline.Add(1)
		ok = r.e.auth.check(u.Hash, password)
	}
	if ok {
		return u, nil
	}
	if l.Count == 0 {
		l.Start = r.now
	}
	l.Count++
	l.V = recordVersion
	if err := save(r.tx, bucketRate, lockoutKey(key), &l.rateCount); err != nil {
		return nil, err
	}
	if l.locked() {
		// The owner hears of it once per window: later attempts are
		// refused unchecked and tell nobody but their sender.
		if err := r.mail("lockout", u.Addresses, lockoutView{User: u.ID, Max: MaxWrongPasswords,
			Until: l.until().UTC().Format("2006-01-02 15:04 MST")}); err != nil {
			return nil, err
		}
	}
	return nil, refuse("bad-password", kv{"User": u.ID})
}

// lockoutView is the data of the owner's lockout notice.
type lockoutView struct {
	User  string
	Max   int
	Until string
}
