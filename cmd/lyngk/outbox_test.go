package main

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// TestServeHourlyCap: with address_mails_per_hour = 2, four answered mails
// from one address get two answers at once; the other two wait in the
// outbox (not dropped, not dead) for the hour to pass, which the store's
// own test (TestDueHourlyCap) lets pass on a fake clock. Another address is
// answered meanwhile.
func TestServeHourlyCap(t *testing.T) {
	dir := t.TempDir()
	cfg := defaultConfig()
	cfg.DataDir = filepath.Join(dir, "data")
	cfg.MetricsAddr = anyPort
	cfg.Store.MailsPerHour = 2
	smtpAddr, imapAddr := serveLocal(t, &cfg)

	alice := localPlayer{t: t, name: "alice", smtp: smtpAddr, imap: imapAddr}
	for range 4 {
		alice.send("help", "", "")
	}
	alice.await(2)
	deadline := time.Now().Add(patience)
	for {
		applied := metricValue(t, cfg.MetricsAddr, `lyngk_mails_processed_total{outcome="applied"}`)
		queued := metricValue(t, cfg.MetricsAddr, "lyngk_outbox_depth")
		if applied == 4 && queued == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v mails applied, %v in the outbox; want 4 and 2", applied, queued)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// bob's answer comes from a sender round that passed over alice's
	// held mails.
	bob := localPlayer{t: t, name: "bob", smtp: smtpAddr, imap: imapAddr}
	bob.send("lyngk help", "", "")
	bob.await(1)
	if n := len(alice.inbox()); n != 2 {
		t.Errorf("alice has %d mails within the hour, want 2", n)
	}
	// bob's reply is in his mailbox a moment before the sender hears the
	// SMTP server's answer and takes it out of the outbox.
	for deadline := time.Now().Add(patience); ; time.Sleep(10 * time.Millisecond) {
		v := metricValue(t, cfg.MetricsAddr, "lyngk_outbox_depth")
		if v == 2 {
			break
		}
		if v < 2 || time.Now().After(deadline) {
			t.Fatalf("outbox holds %v mails, want the 2 held back", v)
		}
	}
	if v := metricValue(t, cfg.MetricsAddr, "lyngk_outbox_dead_letters"); v != 0 {
		t.Errorf("%v dead letters, want none", v)
	}
}

// TestServeDailyCap: with mails_per_day = 2, the server
// sends to 2 recipients in 24 hours, all addresses together: the players
// alice and bob get their answers, the player carol's (u00's) waits in the
// outbox (a player's mail is not dropped, not dead), and the metrics and
// `lyngk admin outbox` (through the daemon) say the cap holds it. The
// store's TestDueDailyCap lets the day pass on a fake clock.
func TestServeDailyCap(t *testing.T) {
	dir := t.TempDir()
	cfg := defaultConfig()
	cfg.DataDir = filepath.Join(dir, "data")
	cfg.MetricsAddr = anyPort
	cfg.Store.MailsPerDay = 2
	seedFlood(t, cfg, bcrypt.MinCost) // confirmed players: strangers' answers would be dropped past their share
	smtpAddr, imapAddr := serveLocal(t, &cfg)

	for _, name := range []string{"alice", "bob"} {
		p := localPlayer{t: t, name: name, smtp: smtpAddr, imap: imapAddr}
		p.send("lyngk help", "", "")
		p.await(1)
	}
	carol := localPlayer{t: t, name: "u00", smtp: smtpAddr, imap: imapAddr}
	carol.send("lyngk help", "", "")
	for deadline := time.Now().Add(patience); ; time.Sleep(20 * time.Millisecond) {
		applied := metricValue(t, cfg.MetricsAddr, `lyngk_mails_processed_total{outcome="applied"}`)
		queued := metricValue(t, cfg.MetricsAddr, "lyngk_outbox_depth")
		if applied == 3 && queued == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v mails applied, %v in the outbox; want 3 and 1", applied, queued)
		}
	}
	for name, want := range map[string]float64{"lyngk_mails_sent_24h": 2, "lyngk_mails_per_day_cap": 2,
		"lyngk_outbox_held_by_daily_cap": 1, "lyngk_outbox_dead_letters": 0} {
		if v := metricValue(t, cfg.MetricsAddr, name); v != want {
			t.Errorf("%s = %v, want %v", name, v, want)
		}
	}
	if n := len(carol.inbox()); n != 0 {
		t.Errorf("carol got %d mails past the daily cap", n)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"admin", "-db", filepath.Join(cfg.DataDir, "lyngk.db"), "outbox"}, nil, &out, &errb); code != 0 {
		t.Fatalf("admin outbox: exit %d: %s", code, errb.String())
	}
	if want := "1 queued, 0 dead letters\n2 recipients in the last 24 hours; mails_per_day 2 reached: the outbox is held until "; !strings.HasPrefix(out.String(), want) ||
		!strings.Contains(out.String(), "to u00@localhost") {
		t.Errorf("admin outbox:\n%s\nwant it to start %q and list carol's mail", out.String(), want)
	}
}

// serveLocal runs `lyngk serve` in local mode with cfg for the test and
// returns its SMTP and IMAP addresses once it and its metrics listen (each
// on a port it picks and prints; cfg.MetricsAddr is set to the metrics
// one); it stops when the test ends. A serve that stops early fails the test with
// its error and its log; the clean-up then waits for the goroutine's end,
// not for a value waitListening has already taken (which hung a CI run
// until go test's 10-minute timeout).
func serveLocal(t *testing.T, cfg *config) (smtpAddr, imapAddr string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done, exited := make(chan error, 1), make(chan struct{})
	var stdout, logs lockedBuffer
	go func() {
		defer close(exited)
		done <- serve(ctx, *cfg, anyPort, anyPort, &stdout, slog.New(slog.NewTextHandler(&logs, nil)))
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-exited:
		case <-time.After(patience):
			t.Errorf("serve did not stop within %v", patience)
		}
		if t.Failed() {
			t.Logf("serve log:\n%s", logs.String())
		}
	})
	smtpAddr, imapAddr = listenAddr(t, &stdout, "smtp", done), listenAddr(t, &stdout, "imap", done)
	cfg.MetricsAddr = listenAddr(t, &stdout, "metrics", done)
	waitListening(t, imapAddr, done)
	waitListening(t, cfg.MetricsAddr, done)
	return smtpAddr, imapAddr
}
