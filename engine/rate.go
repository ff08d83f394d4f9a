package engine

import (
	"strings"
	"time"
)

// throttle counts n commands against the sender's hourly allowance (a fixed
// window from the first command). Over the limit, the sender gets one
// notice, then silence until the window ends: answering every mail of a
// flood would make us part of it.
func (r *request) throttle(n int) (allowed, notice bool, err error) {
	limit := r.e.cfg.RatePerHour
	if limit == 0 {
		return true, false, nil
	}
	key := strings.ToLower(r.in.From)
	c, err := r.rateWindow(key)
	if err != nil {
		return false, false, err
	}
	switch {
	case c.Notified:
	case c.Count+n > limit:
		c.Notified, notice = true, true
	default:
		c.Count += n
		allowed = true
	}
	c.V = recordVersion
	return allowed, notice, save(r.tx, bucketRate, key, &c)
}

// rateWindow is the count of key in bucket rate for the current hour.
func (r *request) rateWindow(key string) (rateCount, error) {
	var c rateCount
	if _, err := load(r.tx, bucketRate, key, &c); err != nil {
		return c, err
	}
	if r.now.Sub(c.Start) >= time.Hour || r.now.Before(c.Start) {
		c = rateCount{Start: r.now}
	}
	return c, nil
}

// mayRun says, without counting them, whether throttle would let n more
// commands of the sender run: Checks asks it so that a mail the limit
// refuses costs no bcrypt run.
func (r *request) mayRun(n int) (bool, error) {
	limit := r.e.cfg.RatePerHour
	if limit == 0 {
		return true, nil
	}
	c, err := r.rateWindow(strings.ToLower(r.in.From))
	return !c.Notified && c.Count+n <= limit, err
}

// signupsKey is the key, in bucket rate, of the hourly count of new
// accounts in all: no sender address has a space.
const signupsKey = "signups *"

// signupsAllowed refuses a signup when Config.SignupsPerHour accounts were
// made in this hour's window already (the window opens with the first);
// planned counts signups of this mail not yet saved (Checks' forecast).
func (r *request) signupsAllowed(planned int) error {
	limit := r.e.cfg.SignupsPerHour
	if limit == 0 {
		return nil
	}
	c, err := r.rateWindow(signupsKey)
	if err != nil {
		return err
	}
	if c.Count+planned >= limit {
		return refuse(whySignupsFull, kv{"Limit": limit, "Until": c.Start.Add(time.Hour).UTC().Format("15:04 MST")})
	}
	return nil
}

// countSignup counts a new account against Config.SignupsPerHour.
func (r *request) countSignup() error {
	if r.e.cfg.SignupsPerHour == 0 {
		return nil
	}
	c, err := r.rateWindow(signupsKey)
	if err != nil {
		return err
	}
	c.Count++
	c.V = recordVersion
	return save(r.tx, bucketRate, signupsKey, &c)
}
