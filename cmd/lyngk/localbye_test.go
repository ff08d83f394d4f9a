package main

import (
	"bufio"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestMakeRunArgs: `make run ARGS="..."` hands the flags
// to lyngk serve (make run took none, so the listeners could not move).
func TestMakeRunArgs(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	out, err := exec.Command("make", "-s", "-n", "-C", "../..", "run", "ARGS=-local-smtp 127.0.0.1:3525 -local-imap 127.0.0.1:3143").CombinedOutput()
	if err != nil {
		t.Fatalf("make -n run: %v\n%s", err, out)
	}
	if want := "exec bin/lyngk serve -local-smtp 127.0.0.1:3525 -local-imap 127.0.0.1:3143\n"; !strings.HasSuffix(string(out), want) {
		t.Fatalf("make -n run prints\n%s\nwant it to end with %q", out, want)
	}
}

// TestServeLocalSIGTERMSaysBye: SIGTERM to `lyngk serve`
// in local mode sends "* BYE" to every IMAP connection (logged in or not,
// selected, idling) before closing it, and the process exits 0. Before,
// connections were dropped without a word (NeoMutt then showed an empty
// mailbox). The start text names the server's address and the robot player
// apart.
func TestServeLocalSIGTERMSaysBye(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "lyngk")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "serve", "-data", filepath.Join(dir, "data"), "-local-smtp", anyPort,
		"-local-imap", anyPort, "-local-web", anyPort)
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
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
	imapAddr := listenAddr(t, out, "imap", nil)
	waitText(t, out, `(?m)^  The server's address: lyngk@localhost \(its mailbox: password `)
	waitText(t, out, `(?m)^  The robot player: +userid robot, the computer opponent`)
	waitText(t, out, `(?m)^  Its levels: +robot-novice, robot-club, robot, robot-max \("help robot"\)$`)

	type conn struct {
		name string
		r    *bufio.Reader
	}
	var conns []conn
	open := func(name string, cmds ...string) {
		t.Helper()
		c, err := net.Dial("tcp", imapAddr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		r := bufio.NewReader(c)
		if l, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(l, "* OK") {
			t.Fatalf("%s: greeting %q, %v", name, l, err)
		}
		for i, command := range cmds {
			tag := fmt.Sprintf("t%d", i)
			fmt.Fprintf(c, "%s %s\r\n", tag, command)
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					t.Fatalf("%s: %s: %v", name, command, err)
				}
				if strings.HasPrefix(l, tag+" OK") || command == "IDLE" && strings.HasPrefix(l, "+ ") {
					break
				}
				if strings.HasPrefix(l, tag+" ") {
					t.Fatalf("%s: %s: %q", name, command, l)
				}
			}
		}
		conns = append(conns, conn{name, r})
	}
	open("greeted")
	open("logged in", "LOGIN alice@localhost alice")
	open("selected", "LOGIN alice@localhost alice", "SELECT INBOX")
	open("idling", "LOGIN bob@localhost bob", "SELECT INBOX", "IDLE")

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for _, c := range conns {
		var seen []string
		for {
			l, err := c.r.ReadString('\n')
			if err != nil {
				t.Errorf("%s: connection closed without BYE after %q", c.name, seen)
				break
			}
			seen = append(seen, l)
			if strings.HasPrefix(l, "* BYE ") {
				break
			}
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("lyngk serve after SIGTERM: %v\n%s", err, out.String())
	}
}
