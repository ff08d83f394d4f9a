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

// MaxChecks bounds the password work one mail may ask for: password
// checks and new password hashes, each counted once however often the mail
// repeats it (one player's commands with his password are one check). The
// commands past it are refused without a bcrypt run, so a mail of a
// hundred password lines costs what one of five does.
const MaxChecks = 5

// checkWork and hashWork name a unit of password work for spend.
func checkWork(id, pw string) string { return "check " + strings.ToLower(id) + " " + pw }
func hashWork(id string) string      { return "hash " + strings.ToLower(id) }

// spend counts the password work w against the mail's MaxChecks; work
// already counted costs nothing more, and neither does the check of a
// password this mail has just hashed (signup carol PW, then a command with
// carol's PW).
func (r *request) spend(w string) error {
	if r.work[w] || r.free[w] {
		return nil
	}
	if len(r.work) >= MaxChecks {
		return refuse(whyTooManyChecks, kv{"Max": MaxChecks})
	}
	if r.work == nil {
		r.work = map[string]bool{}
	}
	r.work[w] = true
	return nil
}

// madeHash notes that this mail hashed pw for id: checking it costs no
// bcrypt run (the cache knows it), so it is free of MaxChecks.
func (r *request) madeHash(id, pw string) {
	if r.free == nil {
		r.free = map[string]bool{}
	}
	r.free[checkWork(id, pw)] = true
}

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
// new passwords of signup (a free userid, once per userid, within the
// signups of the hour) and change password (after an old password that
// may be right). Whatever Handle would refuse unchecked costs nothing
// here: a mail past the sender's hourly commands gets no check at all, and
// one mail at most MaxChecks.
// It only reads tx. It is a forecast: a check it misses (say, a password
// changed by another mail in between) is still run by Handle, inside the
// transaction, and counted by [Engine.InlineChecks].
func (e *Engine) Checks(tx Tx, in Inbound, now time.Time) ([]Check, error) {
	in.From = strings.TrimSpace(in.From)
	if e.unanswerable(in) || in.TooBig {
		return nil, nil
	}
	r := &request{e: e, tx: tx, in: in, now: now}
	script := e.ReadMail(in.Subject, r.withoutCopies(in.Body))
	if ok, err := r.mayRun(max(1, len(script.Lines))); err != nil || !ok {
		return nil, err
	}
	var out []Check
	left := map[string]int{}       // lower-cased userid -> wrong passwords left
	listed := map[[2]string]bool{} // (hash, password) already in out
	signups := map[string]bool{}   // lower-cased userids signed up by this mail
	for _, line := range script.Lines {
		if !e.isCommandLine(line) {
			continue
		}
		c, err := e.ParseCommand(line)
		if err != nil {
			continue
		}
		r.word = c.Game
		if cmd, _ := e.command(c.Name, c.Game != ""); cmd.arg(newPassword) >= 0 && cmd.arg(passwordArg) < 0 {
			// A new account (signup): its password is hashed, once per
			// free userid.
			id, pw := c.Args[cmd.arg(userArg)], c.Args[cmd.arg(newPassword)]
			if !validUserID(id) || !validPassword(pw) || signups[strings.ToLower(id)] ||
				e.robotOn(id) {
				continue
			}
			if _, taken, err := r.loadUser(id); err != nil || taken {
				if err != nil {
					return nil, err
				}
				continue
			}
			addrs, err := r.addresses(c.Args[2:])
			if err == nil {
				err = r.confirmsAllowed(addrs)
			}
			if err == nil {
				err = r.signupsAllowed(len(signups))
			}
			if err == nil {
				err = r.spend(hashWork(id))
			}
			if ref := new(refusal); errors.As(err, &ref) {
				continue
			} else if err != nil {
				return nil, err
			}
			signups[strings.ToLower(id)] = true
			r.madeHash(id, pw)
			out = append(out, Check{User: id, password: pw})
			continue
		}
		id, pw, board, fresh, ok := e.passwordArgs(c)
		if !ok {
			continue
		}
		newHash := func(u *user) {
			if fresh != "" && validPassword(fresh) && r.spend(hashWork(u.ID)) == nil {
				r.madeHash(u.ID, fresh)
				out = append(out, Check{User: u.ID, password: fresh})
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
		if cmd, _ := e.command(c.Name, c.Game != ""); !found || !u.Left.IsZero() && !cmd.left || !u.Deleted.IsZero() {
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
		if n <= 0 || r.spend(checkWork(u.ID, pw)) != nil {
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

// passwordArgs finds, by the roles of the command table, the USERID
// PASSWORD arguments of a command that takes them, the board argument of
// the game commands and a new password to hash (change password).
func (e *Engine) passwordArgs(c Command) (id, pw, board, fresh string, ok bool) {
	cmd, found := e.command(c.Name, c.Game != "")
	if !found {
		return "", "", "", "", false
	}
	at := func(ro role) string {
		if i := cmd.arg(ro); i >= 0 && i < len(c.Args) {
			return c.Args[i]
		}
		return ""
	}
	if cmd.arg(userArg) < 0 || cmd.arg(passwordArg) < 0 {
		return "", "", "", "", false
	}
	return at(userArg), at(passwordArg), at(boardArg), at(newPassword), true
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
	return r.verify(u, password)
}

// verify checks the password of u, counting a wrong one against u's
// window (authenticate; delete, which also takes an account that signed
// off).
func (r *request) verify(u *user, password string) (*user, error) {
	key := strings.ToLower(u.ID)
	l, err := r.loadLockout(key)
	if err != nil {
		return nil, err
	}
	if l.locked() {
		return nil, refuse(whyLockedOut, kv{"User": u.ID, "Until": l.until().UTC().Format("15:04 MST")})
	}
	if err := r.spend(checkWork(u.ID, password)); err != nil {
		return nil, err
	}
	ok, known := r.e.auth.lookup(u.Hash, password)
	switch {
	case !known && r.forecast:
		ok = false // Forecast runs no bcrypt; the mail's pictures may be missed
	case !known:
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
	return nil, refuse(whyBadPassword, kv{"User": u.ID})
}

// lockoutView is the data of the owner's lockout notice.
type lockoutView struct {
	User  string
	Max   int
	Until string
}
