package store_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"lyngk.example/lyngk/store"
)

var time0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

const robot = "lyngk@example.com"

// enqueue queues one mail per recipient list and returns the IDs.
func enqueue(t *testing.T, db *store.DB, now time.Time, to ...[]string) []uint64 {
	t.Helper()
	var ids []uint64
	update(t, db, func(tx *store.Tx) error {
		for i, rcpt := range to {
			id, err := tx.Enqueue(robot, rcpt, fmt.Appendf(nil, "mail %d\r\n", i), now)
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	return ids
}

func ids(ms []store.OutMail) []uint64 {
	out := []uint64{}
	for _, m := range ms {
		out = append(out, m.ID)
	}
	return out
}

func due(t *testing.T, db *store.DB, now time.Time, max int) []uint64 {
	t.Helper()
	var ms []store.OutMail
	view(t, db, func(tx *store.Tx) error {
		var err error
		ms, _, err = tx.Due(now, max)
		return err
	})
	return ids(ms)
}

func outbox(t *testing.T, db *store.DB) []store.OutMail {
	t.Helper()
	var ms []store.OutMail
	view(t, db, func(tx *store.Tx) error {
		var err error
		ms, err = tx.Outbox()
		return err
	})
	return ms
}

func TestEnqueueRecord(t *testing.T) {
	db, _ := openTemp(t)
	local := time0.In(time.FixedZone("CET", 3600))
	var id uint64
	data := []byte("Subject: x\r\n\r\nbody  \r\n")
	update(t, db, func(tx *store.Tx) error {
		var err error
		id, err = tx.Enqueue(robot, []string{"a@example.com", "b@example.com"}, data, local)
		return err
	})
	want := store.OutMail{ID: id, From: robot, To: []string{"a@example.com", "b@example.com"}, Data: data,
		Queued: time0, NextAttempt: time0}
	got := outbox(t, db)
	if len(got) != 1 || !reflect.DeepEqual(got[0], want) {
		t.Errorf("Outbox() = %+v, want [%+v]", got, want)
	}
}

func TestEnqueueRefused(t *testing.T) {
	db, _ := openTemp(t)
	tests := []struct {
		name string
		to   []string
		data []byte
	}{
		{"no recipients", nil, []byte("x")},
		{"no data", []string{"a@example.com"}, nil},
	}
	for _, tc := range tests {
		err := db.Update(func(tx *store.Tx) error {
			_, err := tx.Enqueue(robot, tc.to, tc.data, time0)
			return err
		})
		if err == nil {
			t.Errorf("%s: Enqueue accepted it", tc.name)
		}
	}
}

func TestOutboxFIFO(t *testing.T) {
	db, _ := openTemp(t)
	var want []uint64
	// More than 255 mails, so byte order of the keys matters.
	for i := range 300 {
		want = append(want, enqueue(t, db, time0.Add(time.Duration(-i)*time.Second), []string{fmt.Sprintf("p%d@example.com", i)})...)
	}
	for i := 1; i < len(want); i++ {
		if want[i] <= want[i-1] {
			t.Fatalf("IDs do not rise: %d after %d", want[i], want[i-1])
		}
	}
	if got := ids(outbox(t, db)); !reflect.DeepEqual(got, want) {
		t.Errorf("Outbox order %v, want %v", got, want)
	}
	if got := due(t, db, time0, 0); !reflect.DeepEqual(got, want) {
		t.Errorf("Due order %v, want %v", got, want)
	}
	if got := due(t, db, time0, 5); !reflect.DeepEqual(got, want[:5]) {
		t.Errorf("Due with max 5 = %v, want %v", got, want[:5])
	}
}

func TestDueRespectsNextAttempt(t *testing.T) {
	db, _ := openTemp(t)
	id := enqueue(t, db, time0, []string{"a@example.com"}, []string{"b@example.com"}, []string{"c@example.com"})
	update(t, db, func(tx *store.Tx) error { return tx.RecordAttempt(id[1], time0.Add(time.Minute)) })
	tests := []struct {
		now  time.Time
		max  int
		want []uint64
	}{
		{time0.Add(-time.Second), 0, []uint64{}},
		{time0, 0, []uint64{id[0], id[2]}},
		{time0.Add(time.Minute - 1), 0, []uint64{id[0], id[2]}},
		{time0.Add(time.Minute), 0, id},
		{time0.Add(time.Minute), 2, id[:2]},
	}
	for _, tc := range tests {
		if got := due(t, db, tc.now, tc.max); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Due(%v, %d) = %v, want %v", tc.now, tc.max, got, tc.want)
		}
	}
}

// A recipient gets mail in queue order: while an earlier mail to them is
// queued, due or not, their later mails wait, so a round carries at most
// one mail per recipient.
func TestDueHoldsRecipientOrder(t *testing.T) {
	db, _ := openTemp(t)
	id := enqueue(t, db, time0,
		[]string{"bob@example.com"},                      // 0: will fail
		[]string{"alice@example.com"},                    // 1
		[]string{"Bob@Example.com"},                      // 2: same mailbox as 0
		[]string{"carol@example.com", "bob@example.com"}, // 3
		[]string{"carol@example.com"},                    // 4: after 3
		[]string{"dave@example.com"},                     // 5
		[]string{"alice@example.com"},                    // 6: after 1
	)
	if got, want := due(t, db, time0, 0), []uint64{id[0], id[1], id[5]}; !reflect.DeepEqual(got, want) {
		t.Errorf("Due = %v, want the first mail of each recipient %v", got, want)
	}
	update(t, db, func(tx *store.Tx) error { return tx.RecordAttempt(id[0], time0.Add(time.Hour)) })
	if got, want := due(t, db, time0, 0), []uint64{id[1], id[5]}; !reflect.DeepEqual(got, want) {
		t.Errorf("Due while bob's first mail waits = %v, want %v", got, want)
	}
	update(t, db, func(tx *store.Tx) error { return tx.Sent(id[1], time0) })
	if got, want := due(t, db, time0.Add(time.Hour), 0), []uint64{id[0], id[5], id[6]}; !reflect.DeepEqual(got, want) {
		t.Errorf("Due once it is due again = %v, want %v", got, want)
	}
	update(t, db, func(tx *store.Tx) error { return tx.Sent(id[0], time0) })
	if got, want := due(t, db, time0, 0), []uint64{id[2], id[5], id[6]}; !reflect.DeepEqual(got, want) {
		t.Errorf("Due after it was sent = %v, want %v", got, want)
	}
}

// An attempt is charged before the mail is sent; a refusal for now keeps it
// and records the error at once; a relay failure takes it back and makes the
// mail due at once, however far its retry was.
func TestAttemptOutcomes(t *testing.T) {
	db, _ := openTemp(t)
	id := enqueue(t, db, time0, []string{"a@example.com"})[0]
	steps := []struct {
		name     string
		op       func(tx *store.Tx) error
		attempts int
		next     time.Time
		err      string
	}{
		{"attempt", func(tx *store.Tx) error { return tx.RecordAttempt(id, time0.Add(time.Minute)) }, 1, time0.Add(time.Minute), ""},
		{"451", func(tx *store.Tx) error { return tx.Failed(id, "451 4.3.0 try again") }, 1, time0.Add(time.Minute), "451 4.3.0 try again"},
		{"attempt", func(tx *store.Tx) error { return tx.RecordAttempt(id, time0.Add(3*time.Minute)) }, 2, time0.Add(3 * time.Minute), "451 4.3.0 try again"},
		{"relay down", func(tx *store.Tx) error {
			return tx.RelayFailed(id, "dial tcp: connection refused", time0.Add(time.Minute))
		},
			1, time0.Add(time.Minute), "dial tcp: connection refused"},
	}
	for i, s := range steps {
		update(t, db, s.op)
		got := outbox(t, db)
		if len(got) != 1 || got[0].Attempts != s.attempts || !got[0].NextAttempt.Equal(s.next) ||
			got[0].LastError != s.err || !got[0].Queued.Equal(time0) {
			t.Errorf("step %d (%s): %+v, want attempts %d next %v error %q", i, s.name, got, s.attempts, s.next, s.err)
		}
	}
}

func TestSentAndDead(t *testing.T) {
	db, _ := openTemp(t)
	id := enqueue(t, db, time0, []string{"a@example.com"}, []string{"b@example.com"}, []string{"c@example.com"})
	big := append([]byte("Subject: big\r\nTo: d@example.com\r\n\r\n"), bytes.Repeat([]byte("x"), 1<<20)...)
	var bigID uint64
	update(t, db, func(tx *store.Tx) error {
		var err error
		bigID, err = tx.Enqueue(robot, []string{"d@example.com"}, big, time0)
		if err != nil {
			return err
		}
		if err := tx.RecordAttempt(id[2], time0); err != nil {
			return err
		}
		if err := tx.Dead(id[2], "550 5.1.1 no such user", time0.Add(time.Hour)); err != nil {
			return err
		}
		if err := tx.Sent(id[1], time0); err != nil {
			return err
		}
		if err := tx.Dead(bigID, "552 too big", time0.Add(time.Hour)); err != nil {
			return err
		}
		return tx.Dead(id[0], "554 rejected", time0.Add(2*time.Hour))
	})
	if got := outbox(t, db); len(got) != 0 {
		t.Errorf("outbox after Sent/Dead: %+v", got)
	}
	var dead []store.OutMail
	view(t, db, func(tx *store.Tx) error {
		var err error
		dead, err = tx.DeadLetters()
		return err
	})
	// A dead letter keeps the header and the size of its message, not the
	// body (these small test mails have no header: all of it is body).
	want := []store.OutMail{
		{ID: id[0], From: robot, To: []string{"a@example.com"}, Data: []byte("mail 0\r\n"), Size: 8, Queued: time0,
			NextAttempt: time0, LastError: "554 rejected", Died: time0.Add(2 * time.Hour)},
		{ID: id[2], From: robot, To: []string{"c@example.com"}, Data: []byte("mail 2\r\n"), Size: 8, Queued: time0,
			Attempts: 1, NextAttempt: time0, LastError: "550 5.1.1 no such user", Died: time0.Add(time.Hour)},
		{ID: bigID, From: robot, To: []string{"d@example.com"}, Data: []byte("Subject: big\r\nTo: d@example.com\r\n\r\n"),
			Size: len(big), Queued: time0, NextAttempt: time0, LastError: "552 too big", Died: time0.Add(time.Hour)},
	}
	if !reflect.DeepEqual(dead, want) {
		t.Errorf("DeadLetters() = %+v\nwant %+v", dead, want)
	}
	// A new mail never reuses the ID of a sent or dead one.
	if next := enqueue(t, db, time0, []string{"d@example.com"})[0]; next <= bigID {
		t.Errorf("ID %d reused after %d", next, bigID)
	}
}

func TestUnknownMail(t *testing.T) {
	db, _ := openTemp(t)
	id := enqueue(t, db, time0, []string{"a@example.com"})[0]
	update(t, db, func(tx *store.Tx) error { return tx.Dead(id, "gone", time0) })
	ops := []struct {
		name string
		op   func(tx *store.Tx, id uint64) error
	}{
		{"RecordAttempt", func(tx *store.Tx, id uint64) error { return tx.RecordAttempt(id, time0) }},
		{"Failed", func(tx *store.Tx, id uint64) error { return tx.Failed(id, "451") }},
		{"RelayFailed", func(tx *store.Tx, id uint64) error { return tx.RelayFailed(id, "421", time0) }},
		{"Sent", func(tx *store.Tx, id uint64) error { return tx.Sent(id, time0) }},
		{"Dead", func(tx *store.Tx, id uint64) error { return tx.Dead(id, "x", time0) }},
	}
	// id is dead now, 99 was never queued: neither is in the outbox.
	for _, o := range ops {
		for _, n := range []uint64{id, 99} {
			if err := db.Update(func(tx *store.Tx) error { return o.op(tx, n) }); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("%s(%d) = %v, want ErrNotFound", o.name, n, err)
			}
		}
	}
}

// The hourly allowance per address holds surplus mail in the outbox, in
// order, and lets it out as the hour allows; nothing is dropped.
func TestDueHourlyCap(t *testing.T) {
	db, err := store.Open(filepath.Join(t.TempDir(), "lyngk.db"), store.Options{Limits: store.Limits{MailsPerHour: 3}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var bob []uint64
	for range 7 {
		bob = append(bob, enqueue(t, db, time0, []string{"bob@example.com"})...)
	}
	carol := enqueue(t, db, time0, []string{"carol@example.com", "Bob@example.com"}, []string{"carol@example.com"})
	// send is a sender's pass at now: every due mail is accepted.
	send := func(now time.Time) []uint64 {
		t.Helper()
		var got []uint64
		for {
			ms := due(t, db, now, 0)
			if len(ms) == 0 {
				return got
			}
			update(t, db, func(tx *store.Tx) error {
				for _, id := range ms {
					if err := tx.Sent(id, now); err != nil {
						return err
					}
				}
				return nil
			})
			got = append(got, ms...)
		}
	}
	steps := []struct {
		at   time.Duration
		want []uint64
	}{
		{0, bob[:3]},
		{59 * time.Minute, nil},
		{time.Hour, bob[3:6]},
		{2*time.Hour - 1, nil},
		// carol's first mail also goes to bob, so it and carol's next wait.
		{2 * time.Hour, []uint64{bob[6], carol[0], carol[1]}},
	}
	for _, s := range steps {
		if got := send(time0.Add(s.at)); !reflect.DeepEqual(got, s.want) {
			t.Errorf("sent at +%v: %v, want %v", s.at, got, s.want)
		}
	}
}

func TestLimitsValidate(t *testing.T) {
	tests := []struct {
		lim store.Limits
		ok  bool
	}{
		{store.Limits{}, true},
		{store.Limits{MailsPerHour: 1, DeadLetterKeep: time.Hour, SeenKeep: store.MinSeenKeep}, true},
		{store.Limits{MailsPerHour: -1}, false},
		{store.Limits{DeadLetterKeep: -time.Hour}, false},
		{store.Limits{SeenKeep: 24 * time.Hour}, false},
		{store.Limits{MailsPerDay: 40, StrangerShare: 100}, true},
		{store.Limits{StrangerShare: -1}, false},
		{store.Limits{StrangerShare: 101}, false},
	}
	for _, tt := range tests {
		err := tt.lim.Validate()
		if (err == nil) != tt.ok || (err != nil && !errors.Is(err, store.ErrBadLimits)) {
			t.Errorf("Validate(%+v) = %v, want ok %v", tt.lim, err, tt.ok)
		}
		if !tt.ok {
			if db, err := store.Open(filepath.Join(t.TempDir(), "x.db"), store.Options{Limits: tt.lim}); !errors.Is(err, store.ErrBadLimits) {
				if db != nil {
					db.Close()
				}
				t.Errorf("Open with %+v = %v, want ErrBadLimits", tt.lim, err)
			}
		}
	}
}

// Dead letters keep no body, so 40 refused replies of 1 MiB each leave the
// store file less than 10 MB bigger (it grew by the 40 MiB before).
func TestDeadLettersBoundTheFile(t *testing.T) {
	db, path := openTemp(t)
	size := func() int64 {
		t.Helper()
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	before := size()
	body := append([]byte("Subject: refused\r\n\r\n"), bytes.Repeat([]byte("=C3=A9"), (1<<20)/6)...)
	for range 40 {
		var id uint64
		update(t, db, func(tx *store.Tx) error {
			var err error
			id, err = tx.Enqueue(robot, []string{"mallory@example.com"}, body, time0)
			return err
		})
		update(t, db, func(tx *store.Tx) error { return tx.Dead(id, "552 5.3.4 message too big", time0) })
	}
	if growth := size() - before; growth >= 10<<20 {
		t.Errorf("the file grew by %d bytes, want less than 10 MiB", growth)
	}
}

func TestOutboxStats(t *testing.T) {
	db, _ := openTemp(t)
	stats := func() (int, int, time.Time) {
		t.Helper()
		var q, d int
		var oldest time.Time
		view(t, db, func(tx *store.Tx) error {
			var err error
			q, d, oldest, err = tx.OutboxStats()
			return err
		})
		return q, d, oldest
	}
	if q, d, oldest := stats(); q != 0 || d != 0 || !oldest.IsZero() {
		t.Errorf("empty store: %d queued, %d dead, oldest %v", q, d, oldest)
	}
	id := enqueue(t, db, time0, []string{"a@example.com"})
	enqueue(t, db, time0.Add(time.Minute), []string{"b@example.com"}, []string{"c@example.com"})
	update(t, db, func(tx *store.Tx) error { return tx.Dead(id[0], "550", time0) })
	if q, d, oldest := stats(); q != 2 || d != 1 || !oldest.Equal(time0.Add(time.Minute)) {
		t.Errorf("OutboxStats = %d queued, %d dead, oldest %v; want 2, 1, %v", q, d, oldest, time0.Add(time.Minute))
	}
}

// TestDueDailyCap: with MailsPerDay, the recipients of
// any 24 hours stay within the cap, all addresses together; the surplus
// waits in the outbox, in order (a mail to two counts two, and one that
// does not fit holds those after it), and goes as the window slides.
func TestDueDailyCap(t *testing.T) {
	db, err := store.Open(filepath.Join(t.TempDir(), "lyngk.db"), store.Options{Limits: store.Limits{MailsPerDay: 4}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ids := enqueue(t, db, time0, []string{"a@example.com"}, []string{"b@example.com"}, []string{"c@example.com"},
		[]string{"d@example.com", "D@example.com", "e@example.com"}, []string{"f@example.com"}, []string{"g@example.com"})
	send := func(now time.Time) []uint64 {
		t.Helper()
		ms := due(t, db, now, 0)
		update(t, db, func(tx *store.Tx) error {
			for _, id := range ms {
				if err := tx.Sent(id, now); err != nil {
					return err
				}
			}
			return nil
		})
		return ms
	}
	daily := func(now time.Time) store.DailySent {
		t.Helper()
		var d store.DailySent
		view(t, db, func(tx *store.Tx) error {
			var err error
			d, err = tx.DailySent(now)
			return err
		})
		return d
	}
	steps := []struct {
		at   time.Duration
		want []uint64
		sent int // recipients in the window after the step
		held bool
	}{
		{0, ids[:3], 3, false},
		// ids[3] has two recipients (d once whatever its case, e): 3+2 > 4.
		{time.Hour, nil, 3, false},
		{24*time.Hour - 1, nil, 3, false},
		// A sending counts for 24 hours: the window is empty again.
		{24 * time.Hour, ids[3:6], 4, true},
		{48*time.Hour - 1, nil, 4, true},
	}
	for _, s := range steps {
		now := time0.Add(s.at)
		if got := send(now); !slices.Equal(got, s.want) {
			t.Errorf("sent at +%v: %v, want %v", s.at, got, s.want)
		}
		if d := daily(now); d.Recipients != s.sent || d.Cap != 4 || d.Held() != s.held {
			t.Errorf("at +%v: %+v (held %v), want %d sent, held %v", s.at, d, d.Held(), s.sent, s.held)
		}
	}
	var e store.Expired
	update(t, db, func(tx *store.Tx) error {
		var err error
		e, err = tx.Expire(time0.Add(48 * time.Hour))
		return err
	})
	if e.Daily != 6 {
		t.Errorf("Expire at +48h deleted %d daily records, want 6", e.Daily)
	}
}

// TestDueUnaskedLast is a measured abuse case: 4,611 board mails of
// games alice never asked for were held for her by the hourly cap, first in
// first out, and her real opponent's move waited 23 hours behind them. Now
// unasked mail comes after all of her other mail: with a cap of 3 an hour
// and 5 unasked mails queued first, the board mail queued after them goes
// in the first hour.
func TestDueUnaskedLast(t *testing.T) {
	db, err := store.Open(filepath.Join(t.TempDir(), "lyngk.db"), store.Options{Limits: store.Limits{MailsPerHour: 3}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var heap []uint64
	update(t, db, func(tx *store.Tx) error {
		for i := range 5 {
			id, err := tx.EnqueueUnasked(robot, []string{"alice@example.com"}, fmt.Appendf(nil, "unasked %d\r\n", i), time0)
			if err != nil {
				return err
			}
			heap = append(heap, id)
		}
		return nil
	})
	move := enqueue(t, db, time0, []string{"alice@example.com"})[0]
	var sent []uint64
	for {
		ms := due(t, db, time0, 0)
		if len(ms) == 0 {
			break
		}
		update(t, db, func(tx *store.Tx) error {
			for _, id := range ms {
				if err := tx.Sent(id, time0); err != nil {
					return err
				}
			}
			return nil
		})
		sent = append(sent, ms...)
	}
	if want := []uint64{move, heap[0], heap[1]}; !reflect.DeepEqual(sent, want) {
		t.Fatalf("sent in the first hour: %v, want %v", sent, want)
	}
	if ms := outbox(t, db); len(ms) != 3 || !ms[0].Unasked {
		t.Fatalf("left in the outbox: %+v", ms)
	}
}

// enqueueStrangers queues one stranger's mail for each address.
func enqueueStrangers(t *testing.T, db *store.DB, now time.Time, addrs ...string) []uint64 {
	t.Helper()
	var ids []uint64
	update(t, db, func(tx *store.Tx) error {
		for _, a := range addrs {
			id, err := tx.EnqueueStranger(robot, []string{a}, []byte("help\r\n"), now)
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	return ids
}

// dueDrop is Due's answer at now: the mails due and those to drop.
func dueDrop(t *testing.T, db *store.DB, now time.Time, max int) (due, drop []uint64) {
	t.Helper()
	view(t, db, func(tx *store.Tx) error {
		ms, d, err := tx.Due(now, max)
		due, drop = ids(ms), d
		return err
	})
	return due, drop
}

// TestDuePlayersFirst: a player's mail goes before every stranger's mail
// queued before it, and a round carries at most StrangersPerDue of the
// strangers' mail, so a flood of them never stands between a player and
// his mail.
func TestDuePlayersFirst(t *testing.T) {
	db, _ := openTemp(t)
	var flood []string
	for i := range 12 {
		flood = append(flood, fmt.Sprintf("forged%d@example.net", i))
	}
	strangers := enqueueStrangers(t, db, time0, flood...)
	players := enqueue(t, db, time0, []string{"alice@example.com"}, []string{"bob@example.com"})
	got, _ := dueDrop(t, db, time0, 2)
	if !slices.Equal(got, players) {
		t.Errorf("Due(max 2) = %v, want the players' %v", got, players)
	}
	got, drop := dueDrop(t, db, time0, 0)
	want := append(slices.Clone(players), strangers[:store.StrangersPerDue]...)
	if !slices.Equal(got, want) || len(drop) != 0 {
		t.Errorf("Due = %v, drop %v; want %v (the players', then %d strangers'), none dropped", got, drop, want, store.StrangersPerDue)
	}
	for _, m := range outbox(t, db) {
		if m.Stranger != slices.Contains(strangers, m.ID) {
			t.Errorf("mail %d: Stranger %v", m.ID, m.Stranger)
		}
	}
}

// TestDueStrangerShare is the daily-cap flood of the store: with
// mails_per_day 40 (a share of 4 a day, 1 an hour), 40 forged mails of
// strangers queued first send one, name the other 39 to drop, and hold
// none of alice's and bob's board mails; the drops are counted for 24
// hours and the players then have the rest of the cap.
func TestDueStrangerShare(t *testing.T) {
	db, err := store.Open(filepath.Join(t.TempDir(), "lyngk.db"), store.Options{Limits: store.Limits{MailsPerDay: 40}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var flood []string
	for i := range 40 {
		flood = append(flood, fmt.Sprintf("forged%d@example.net", i))
	}
	strangers := enqueueStrangers(t, db, time0, flood...)
	players := enqueue(t, db, time0, []string{"alice@example.com"}, []string{"bob@example.com"})
	round := func(now time.Time) (due, drop []uint64) {
		t.Helper()
		due, drop = dueDrop(t, db, now, 0)
		update(t, db, func(tx *store.Tx) error {
			for _, id := range due {
				if err := tx.Sent(id, now); err != nil {
					return err
				}
			}
			for _, id := range drop {
				if err := tx.Drop(id, now); err != nil {
					return err
				}
			}
			return nil
		})
		return due, drop
	}
	due, drop := round(time0)
	if want := append(slices.Clone(players), strangers[0]); !slices.Equal(due, want) {
		t.Errorf("first round sent %v, want %v (the hour's one stranger and both players)", due, want)
	}
	// The strangers' mails the hour's share leaves out are dropped, but
	// for those StrangersPerDue already stopped.
	due, drop2 := round(time0)
	drop = append(drop, drop2...)
	for len(drop2) > 0 {
		_, drop2 = round(time0)
		drop = append(drop, drop2...)
	}
	if !slices.Equal(drop, strangers[1:]) || len(due) != 0 {
		t.Errorf("dropped %v, sent %v; want the other 39 strangers' mails dropped", drop, due)
	}
	if n := len(outbox(t, db)); n != 0 {
		t.Errorf("%d mails left in the outbox, want none (a dropped mail is never held for later)", n)
	}
	var d store.DailySent
	view(t, db, func(tx *store.Tx) error {
		d, err = tx.DailySent(time0.Add(time.Minute))
		return err
	})
	want := store.DailySent{Recipients: 3, Cap: 40, Oldest: time0, Strangers: 1, StrangersHour: 1, StrangerCap: 4, StrangerHourCap: 1, Dropped: 39}
	if !d.Oldest.Equal(want.Oldest) {
		t.Errorf("Oldest %v, want %v", d.Oldest, want.Oldest)
	}
	d.Oldest = want.Oldest
	if d != want {
		t.Errorf("DailySent = %+v, want %+v", d, want)
	}
	// A player's mail is never dropped.
	id := enqueue(t, db, time0, []string{"carol@example.com"})[0]
	update(t, db, func(tx *store.Tx) error {
		if err := tx.Drop(id, time0); err == nil {
			t.Error("Drop of a player's mail: no error")
		}
		return nil
	})
	// The next hour lets one more stranger out.
	next := enqueueStrangers(t, db, time0.Add(time.Hour), "newcomer@example.org")
	if due, drop := round(time0.Add(time.Hour)); !slices.Equal(due, []uint64{id, next[0]}) || len(drop) != 0 {
		t.Errorf("an hour later: sent %v, dropped %v; want %v", due, drop, []uint64{id, next[0]})
	}
}

// TestStrangerShares: the strangers' bounds that StrangerShare gives.
func TestStrangerShares(t *testing.T) {
	for _, c := range []struct{ perDay, share, day, hour int }{
		{0, 0, 0, 0}, {0, 50, 0, 0}, {40, 0, 4, 1}, {500, 0, 50, 3}, {500, 20, 100, 5}, {5, 0, 1, 1},
		{2000, 100, 2000, 84},
	} {
		l := store.Limits{MailsPerDay: c.perDay, StrangerShare: c.share}
		if d, h := l.StrangersPerDay(), l.StrangersPerHour(); d != c.day || h != c.hour {
			t.Errorf("mails per day %d, share %d%%: %d a day, %d an hour; want %d, %d", c.perDay, c.share, d, h, c.day, c.hour)
		}
	}
}

// TestDailyOldRecord: a daily record of the release before the lanes (its
// recipients alone, 4 bytes) still counts.
func TestDailyOldRecord(t *testing.T) {
	db, path := openTemp(t)
	db.Close()
	rawPut(t, path, "daily", string(binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, uint64(time0.UnixNano())), 7)), "\x00\x00\x00\x03")
	db, err := store.Open(path, store.Options{Limits: store.Limits{MailsPerDay: 10}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	view(t, db, func(tx *store.Tx) error {
		d, err := tx.DailySent(time0.Add(time.Hour))
		if d.Recipients != 3 || d.Strangers != 0 || !d.Oldest.Equal(time0) {
			t.Errorf("DailySent = %+v, want 3 recipients, none a stranger, the oldest at %v", d, time0)
		}
		return err
	})
}
