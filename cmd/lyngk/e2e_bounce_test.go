package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestE2EBounce: Postfix's own bounces (DSNs) for an unknown local user,
// through `lyngk serve` with bounce_verp. dave signs up; then his mailbox
// disappears (removed from Dovecot's users: LMTP answers 550 5.1.1 and
// Postfix returns each mail to its envelope sender, robot+b-TOKEN@e2e.test,
// which Dovecot delivers to the robot's INBOX). The robot's answers to
// three of his commands bounce: three hard bounces of different mails mark
// the address bouncing (the log, lyngk_bouncing_addresses, `lyngk admin
// bounces`). His fourth command lifts the mark for one more try: it is
// answered, the answer bounces, and that one bounce marks the address
// again. His mailbox back, `change address` clears the mark and he gets
// its answer.
func TestE2EBounce(t *testing.T) {
	e := e2eSetup(t)
	srv := e.startServer(t, e2eStartTLS, "bounce_verp = true")
	dave := &e2ePlayer{user: "dave", password: "dave-pw", addr: e.addr("dave"),
		box: e.watch(t, "dave", "INBOX", 25*time.Millisecond)}
	if err := e.signup(dave, e2eMoveWait); err != nil {
		t.Fatal(err)
	}

	restore := e2eLoseMailbox(t, e, dave.addr)

	e2eBounceThrice(t, e, srv, dave.addr)
	db := filepath.Join(filepath.Dir(srv.config), "data", "lyngk.db")
	var out, errb bytes.Buffer
	if rc := run([]string{"admin", "-db", db, "bounces"}, nil, &out, &errb); rc != 0 ||
		!strings.Contains(out.String(), dave.addr+"  bouncing since ") {
		t.Errorf("lyngk admin bounces: %d\n%s%s", rc, out.String(), errb.String())
	}
	applied := len(srv.logLines("outcome=applied message_id="))
	e2eSubmit(t, e, &e2eOut{From: dave.addr, To: e.robot(), Subject: "help", Body: "\n"})
	// His own mail lifts the mark for one more try: it is answered, the
	// answer bounces, and that one bounce marks the address again.
	srv.awaitLog("outcome=applied message_id=", applied+1, e2eMoveWait)
	if l := srv.logLines("outcome=applied message_id="); !strings.Contains(l[len(l)-1], "from="+dave.addr+" replies=1") {
		t.Errorf("the fourth command: %s", l[len(l)-1])
	}
	if lines := srv.awaitLog("bounce=hard address="+dave.addr, 4, e2eMoveWait); !strings.Contains(lines[3], "marked_bouncing=true") {
		t.Errorf("bounce of the answer to the fourth command: %s", lines[3])
	}

	restore()
	e2eAwaitUser(t, e, dave.addr, true)
	e2eSubmit(t, e, &e2eOut{From: dave.addr, To: e.robot(), Subject: "change address dave dave-pw " + dave.addr, Body: "\n"})
	if _, err := dave.box.find(e2eMoveWait, func(m *e2eMail) (bool, error) {
		return m.To == dave.addr && strings.HasPrefix(m.Subject, "PBeM Server account"), nil
	}); err != nil {
		t.Fatal(err)
	}
	if n, err := e2eMetric(srv.metrics, "lyngk_bouncing_addresses"); err != nil || n != 0 {
		t.Errorf("after change address: lyngk_bouncing_addresses = %v, %v; want 0", n, err)
	}
	if got := len(srv.logLines("outcome=bounce")); got != 4 {
		t.Errorf("%d bounces in the log, want 4 (three, and the one after the retry)", got)
	}
}

// e2eLoseMailbox removes addr from Dovecot's users, so that LMTP answers
// 550 5.1.1 and Postfix bounces mail to it, and waits until Dovecot no
// longer knows it; restore (also run at the test's end) puts it back.
func e2eLoseMailbox(t *testing.T, e *e2eEnv, addr string) (restore func()) {
	t.Helper()
	users := filepath.Join(e.dir, "dovecot", "users")
	orig, err := os.ReadFile(users)
	if err != nil {
		t.Fatal(err)
	}
	var without []byte
	for _, l := range bytes.SplitAfter(orig, []byte("\n")) {
		if !bytes.HasPrefix(l, []byte(addr+":")) {
			without = append(without, l...)
		}
	}
	// Rewritten in place: owner, group and mode stay Dovecot's.
	if err := os.WriteFile(users, without, 0); err != nil {
		t.Fatal(err)
	}
	restored := false
	restore = func() {
		if !restored {
			restored = true
			if err := os.WriteFile(users, orig, 0); err != nil {
				t.Error(err)
			}
		}
	}
	t.Cleanup(restore)
	// Dovecot rereads the file at most once a second: wait until its
	// user lookup no longer knows addr.
	e2eAwaitUser(t, e, addr, false)
	return restore
}

// TestE2EBounceMessageID: without bounce_verp, Postfix's own bounces come
// back to the robot's plain address and are matched by the Message-ID of
// the mail returned in them, recorded as sent to dave: the answers to
// three of his commands (no board mail, no reply token) bounce, and the
// third marks his address bouncing.
func TestE2EBounceMessageID(t *testing.T) {
	e := e2eSetup(t)
	srv := e.startServer(t, e2eStartTLS)
	dave := &e2ePlayer{user: "dave", password: "dave-pw", addr: e.addr("dave"),
		box: e.watch(t, "dave", "INBOX", 25*time.Millisecond)}
	if err := e.signup(dave, e2eMoveWait); err != nil {
		t.Fatal(err)
	}
	e2eLoseMailbox(t, e, dave.addr)
	e2eBounceThrice(t, e, srv, dave.addr)
}

// e2eBounceThrice sends three commands from addr, whose mailbox is gone,
// and checks that the answer to each comes back as a hard bounce (a DSN)
// and that the third marks the address bouncing (the log and
// lyngk_bouncing_addresses).
func e2eBounceThrice(t *testing.T, e *e2eEnv, srv *e2eServer, addr string) {
	t.Helper()
	for i := 1; i <= 3; i++ {
		e2eSubmit(t, e, &e2eOut{From: addr, To: e.robot(), Subject: "help", Body: "\n"})
		lines := srv.awaitLog("bounce=hard address="+addr, i, e2eMoveWait)
		last := lines[len(lines)-1]
		if !strings.Contains(last, "format=dsn") || strings.Contains(last, "marked_bouncing=true") != (i == 3) {
			t.Errorf("bounce %d: %s", i, last)
		}
	}
	if n, err := e2eMetric(srv.metrics, "lyngk_bouncing_addresses"); err != nil || n != 1 {
		t.Errorf("lyngk_bouncing_addresses = %v, %v; want 1", n, err)
	}
}

// e2eAwaitUser waits until Dovecot's user lookup (doveadm user) knows addr,
// or no longer does.
func e2eAwaitUser(t *testing.T, e *e2eEnv, addr string, known bool) {
	t.Helper()
	conf := filepath.Join(e.dir, "dovecot", "dovecot.conf")
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := exec.Command("doveadm", "-c", conf, "user", addr).Run()
		if (err == nil) == known {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("doveadm user %s: %v after 10 s, want known %v", addr, err, known)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
