package mailer

import (
	"math/rand/v2"
	"time"
)

// RetrySchedule is the wait after each failed SMTP delivery attempt of one
// mail (entry n after attempt n+1): quick retries for a server that
// restarts, then hours for one that is down for a day. A mail whose last
// attempt fails, about 40 hours after the first, is given up: a game reply
// that old is stale.
var RetrySchedule = []time.Duration{
	30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute,
	15 * time.Minute, 30 * time.Minute, time.Hour, 2 * time.Hour,
	4 * time.Hour, 8 * time.Hour, 8 * time.Hour, 8 * time.Hour,
	8 * time.Hour, 8 * time.Hour,
}

// ReconnectSchedule is the wait before the n-th IMAP reconnection in a row
// (and between retries of a failing mail handler): fast enough to ride out a
// server restart, slow enough not to hammer a server that is down; the last
// step repeats.
var ReconnectSchedule = []time.Duration{
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second,
	30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute,
}

// RelaySchedule is the sender's wait before the n-th reconnection in a row
// to an SMTP relay that failed (no connection, TLS, authentication, 421);
// the last step repeats. It stops at 30 s so that the outbox goes out within
// a minute of the relay's return, however long it was away.
var RelaySchedule = []time.Duration{
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second,
}

// backoff returns the wait before retry number n (0-based) of schedule, with
// the last step repeating. The result is jittered down by up to a quarter so
// that many clients cut off at once do not come back in lockstep.
func backoff(schedule []time.Duration, n int) time.Duration {
	if len(schedule) == 0 {
		return 0
	}
	d := schedule[min(n, len(schedule)-1)]
	if q := int64(d / 4); q > 0 {
		d -= time.Duration(rand.Int64N(q))
	}
	return d
}
