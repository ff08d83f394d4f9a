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
	var c rateCount
	if _, err := load(r.tx, bucketRate, key, &c); err != nil {
		return false, false, err
	}
	if r.now.Sub(c.Start) >= time.Hour || r.now.Before(c.Start) {
		c = rateCount{Start: r.now}
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
