package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// TestServeLocalKilled (crash safety): `lyngk serve` in
// local mode, killed with SIGKILL while mail flows through it, loses no
// mail a client handed over: every help mail sent is answered after the
// restart, and a player's INBOX keeps its UIDVALIDITY and every mail under
// the same UID, with new mail above them.
func TestServeLocalKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel() // mostly waits for a retry
	dir := t.TempDir()
	bin := filepath.Join(dir, "lyngk")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	data := filepath.Join(dir, "data")
	var outs []*lockedBuffer
	start := func() (*exec.Cmd, string, string) {
		t.Helper()
		cmd := exec.Command(bin, "serve", "-data", data, "-local-smtp", anyPort, "-local-imap", anyPort,
			"-local-web", anyPort)
		out := &lockedBuffer{}
		cmd.Stdout, cmd.Stderr = out, out
		outs = append(outs, out)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if cmd.ProcessState == nil {
				cmd.Process.Kill()
				cmd.Wait()
			}
		})
		waitText(t, out, `msg="lyngk serving"`)
		return cmd, listenAddr(t, out, "smtp", nil), listenAddr(t, out, "imap", nil)
	}
	cmd, smtpAddr, imapAddr := start()
	alice := localPlayer{t: t, name: "alice", smtp: smtpAddr, imap: imapAddr}
	alice.send("help", "", "")
	alice.await(1)
	validity, before := mailboxUIDs(t, imapAddr, "alice@localhost", "alice", "INBOX")
	// Strangers get at most 5 answers an hour each: ten players send one
	// help mail each, and the daemon is killed while they come in.
	const n = 10
	players := make([]localPlayer, n)
	for i := range players {
		players[i] = localPlayer{t: t, name: fmt.Sprintf("p%d", i), smtp: smtpAddr, imap: imapAddr}
		players[i].send("help", "", "")
		if i == n/2 {
			players[0].await(1)
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			_, smtpAddr, imapAddr = start()
		}
	}

	// The mails left in the robot's INBOX are answered now, the others as
	// they come. A reply whose sending was under way at the kill has its
	// attempt recorded and waits for the first retry (RetrySchedule, 30 s).
	for i := range players {
		players[i].imap = imapAddr
		for deadline := time.Now().Add(patience); len(players[i].inbox()) == 0; time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s has no answer after the restart\nbefore:\n%s\nafter:\n%s", players[i].name, outs[0].String(), outs[1].String())
			}
		}
	}
	alice = localPlayer{t: t, name: "alice", smtp: smtpAddr, imap: imapAddr}
	again, after := mailboxUIDs(t, imapAddr, "alice@localhost", "alice", "INBOX")
	if again != validity || !slices.Equal(after, before) {
		t.Fatalf("after the kill: UIDVALIDITY %d, INBOX %v; before it: %d, %v", again, after, validity, before)
	}
	alice.send("help", "", "")
	alice.await(2)
	if _, got := mailboxUIDs(t, imapAddr, "alice@localhost", "alice", "INBOX"); len(got) != 2 || got[1].UID <= got[0].UID {
		t.Fatalf("new mail after the kill: %v", got)
	}
}
