package engine_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/store"
)

const day = 24 * time.Hour

// TestTimers: reminders after 7 days without a move, weekly again, and a
// forfeit after 21 days, with the store reopened in between as a restarted
// daemon would.
func TestTimers(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	v.now = start.Add(time.Hour)
	v.cmd(addr("alice"), "lyngk move 101 alice pw-alice G,f5-f4")
	v.cmd(addr("bob"), "lyngk move 101 bob pw-bob b1-b2")
	moved := v.now.Add(-time.Second) // the clock moved on after the mail

	at := func(d time.Duration) []engine.Mail {
		t.Helper()
		v.now = moved.Add(d)
		return v.tick()
	}
	if out := at(7*day - time.Minute); len(out) != 0 {
		t.Fatalf("reminder before 7 days:\n%s", format(out))
	}
	out := at(7 * day)
	if len(out) != 1 || out[0].Subject != "Nag: Lyngk Board 101 alice" || !slices.Equal(out[0].To, []string{addr("alice")}) {
		t.Fatalf("want one reminder to alice, got:\n%s", format(out))
	}
	checkGolden(t, "nag", format(out))
	nag := out[0]
	if out := at(7*day + time.Minute); len(out) != 0 {
		t.Fatalf("second reminder a minute later:\n%s", format(out))
	}
	v.restart()
	if out := at(14*day - time.Minute); len(out) != 0 {
		t.Fatalf("reminder before a week passed:\n%s", format(out))
	}
	if out := at(14 * day); len(out) != 1 || !strings.HasPrefix(out[0].Subject, "Nag:") {
		t.Fatalf("no weekly reminder:\n%s", format(out))
	}
	v.restart()
	if out := at(21*day - time.Minute); len(out) != 0 {
		t.Fatalf("forfeit before 21 days:\n%s", format(out))
	}
	out = at(21 * day)
	if len(out) != 2 || out[0].Subject != "Lyngk Board 101" || !strings.Contains(out[0].Body, "\nGame won by bob.\n") ||
		!strings.Contains(out[0].Body, "   1 G,f5-f4    2 b1-b2   \n   3 Forfeit \n") {
		t.Fatalf("want the forfeit to both players, got:\n%s", format(out))
	}
	checkGolden(t, "forfeit", format(out))
	if out := at(30 * day); len(out) != 0 {
		t.Fatalf("timers of a finished game:\n%s", format(out))
	}
	// The reminder's reply token died with the game.
	out = v.reply(nag, addr("alice"), "a1-b2\n")
	if len(out) != 1 || !strings.HasPrefix(out[0].Body, "Lyngk Board 101 is over") {
		t.Errorf("reply to the reminder of a forfeited game:\n%s", format(out))
	}
}

// TestNagReply: a reminder is a board mail; answering it moves.
func TestNagReply(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	v.now = v.now.Add(8 * day)
	nag := v.tick()
	if len(nag) != 1 || nag[0].Subject != "Nag: Lyngk Board 101 alice" {
		t.Fatalf("want a reminder to alice:\n%s", format(nag))
	}
	out := v.reply(nag[0], addr("alice"), "G,f5-f4\n")
	if len(out) != 2 || out[0].Subject != "Lyngk Board 101 bob" {
		t.Errorf("reply to the reminder:\n%s", format(out))
	}
	// The move restarted the clock: bob has 7 days.
	v.now = v.now.Add(7*day - time.Minute)
	if out := v.tick(); len(out) != 0 {
		t.Errorf("reminder to bob too early:\n%s", format(out))
	}
}

// TestVacation: no reminders or forfeits while away; the clock restarts on
// return.
func TestVacation(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	out := v.cmd(addr("alice"), "vacation alice pw-alice on")
	checkGolden(t, "vacation-on", format(out))
	v.now = v.now.Add(60 * day)
	if out := v.tick(); len(out) != 0 {
		t.Fatalf("timers ran on vacation:\n%s", format(out))
	}
	back := v.now
	out = v.cmd(addr("alice"), "vacation alice pw-alice off")
	checkGolden(t, "vacation-off", format(out))
	v.now = back.Add(7*day - time.Minute)
	if out := v.tick(); len(out) != 0 {
		t.Fatalf("reminder within 7 days of the return:\n%s", format(out))
	}
	// alice never moved: the timer cancels the game rather than forfeit it.
	v.now = back.Add(21 * day)
	if out := v.tick(); len(out) != 2 || !strings.Contains(out[0].Body, "Game cancelled.") {
		t.Fatalf("no cancellation 21 days after the return:\n%s", format(out))
	}
}

// TestTimerCancels: a game whose player never moved is cancelled by the
// timer, not forfeited: both players are told, nobody's rating or record
// changes, and the listings show it as cancelled.
func TestTimerCancels(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	v.cmd(addr("alice"), "lyngk move 101 alice pw-alice G,f5-f4")
	before := v.dump(store.BucketUsers)
	v.now = v.now.Add(21 * day)
	out := v.tick()
	if len(out) != 2 || !strings.Contains(out[0].Body, "\nGame cancelled.\n") || strings.Contains(out[0].Body, "Forfeit") ||
		!slices.Equal(out[1].To, []string{addr("bob")}) {
		t.Fatalf("want the cancellation to both players, got:\n%s", format(out))
	}
	checkGolden(t, "cancel-timer", format(out))
	if after := v.dump(store.BucketUsers); after != before {
		t.Errorf("the cancelled game changed the users:\n%s", diff(before, after))
	}
	if out := v.cmd(addr("alice"), "lyngk games"); !strings.Contains(out[0].Body, "alice - bob: cancelled (timeout)") {
		t.Errorf("games:\n%s", out[0].Body)
	}
	if out := v.cmd(addr("alice"), "lyngk standings"); !strings.Contains(out[0].Body, "Nobody has finished a game yet.") {
		t.Errorf("standings count a cancelled game:\n%s", out[0].Body)
	}
}

// TestTickPrunesStrangers: a stranger's hourly counts (the strangers'
// mails, the sender's commands) stay while their hour runs and are gone at
// the first tick after it, so forged senders leave nothing in the store.
func TestTickPrunesStrangers(t *testing.T) {
	v := newEnv(t, func(c *engine.Config) { c.RatePerHour = 60 })
	v.cmd("victim@elsewhere.example", "help")
	for _, b := range []string{store.BucketStrangers, "rate"} {
		if got := v.dump(b); !strings.Contains(got, b+"/victim@elsewhere.example=") {
			t.Fatalf("no count for the stranger in %s: %q", b, got)
		}
	}
	v.now = v.now.Add(59 * time.Minute)
	v.tick()
	if got := v.dump(store.BucketStrangers, "rate"); !strings.Contains(got, "strangers/") || !strings.Contains(got, "rate/") {
		t.Fatalf("a count went before its hour was over: %q", got)
	}
	v.now = v.now.Add(2 * time.Minute)
	v.tick()
	if got := v.dump(store.BucketStrangers, "rate"); got != "" {
		t.Fatalf("counts of a past hour kept: %q", got)
	}
}
