package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"lyngk.example/lyngk/engine/lyngk"
)

// TestServeDailyCapFlood is the daily-cap flood: with mails_per_day 40, 40
// forged senders each ask for help. Before the outbox had lanes, their 40
// answers spent the day's cap, and alice's and bob's board mails waited
// behind them for 24 hours. Now the strangers get their share of the hour
// (one answer: 10 % of a 24th of 40, at least one), the other 39 answers
// are dropped and counted, and alice's move reaches bob at once. lyngk
// admin outbox, answered by the daemon, tells the cap and the drops.
func TestServeDailyCapFlood(t *testing.T) {
	f := startFlood(t, bcrypt.MinCost, func(c *config) { c.Store.MailsPerDay = 40 })
	for i := range 40 {
		p := localPlayer{t: t, name: fmt.Sprintf("forged%d", i), smtp: f.smtp, imap: f.imap}
		p.send("help", "", "")
	}
	f.waitMetric(applied, 40)

	g := lyngk.New(101, lyngk.Standard)
	start := time.Now()
	f.alice.send("Re: Lyngk Board 101", g.Legal(nil)[0].String()+"\n", f.board)
	awaitBoard(t, f.bob, 1)
	awaitBoard(t, f.alice, 1)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("alice's move reached both players after %v, want under 2 s", d)
	}
	// A stranger's answer, alice's and bob's board mails (counted once
	// the sender has recorded them, just after the delivery).
	f.waitGauge("lyngk_mails_sent_24h", 3)
	f.waitMetric("lyngk_stranger_mails_dropped_total", 39)
	f.waitGauge("lyngk_outbox_depth", 0)
	if got := f.metric("lyngk_stranger_mails_sent_24h"); got != 1 {
		t.Errorf("lyngk_stranger_mails_sent_24h = %v, want 1 (the hour's share)", got)
	}

	var out, errb bytes.Buffer
	if code := run([]string{"admin", "-db", filepath.Join(f.dataDir, "lyngk.db"), "outbox"}, nil, &out, &errb); code != 0 {
		t.Fatalf("admin outbox: exit %d: %s", code, errb.String())
	}
	for _, want := range []string{
		"3 recipients in the last 24 hours of mails_per_day 40",
		"strangers (stranger_share): 1 of 4 a day, 1 of 1 in the last hour; 39 dropped past it in the last 24 hours",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("admin outbox lacks %q:\n%s", want, out.String())
		}
	}
}
