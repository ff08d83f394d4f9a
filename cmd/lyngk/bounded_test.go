package main

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"lyngk.example/lyngk/store"
)

// TestServeBigMailsBounded is the abuse review's storage and memory case through a
// real `lyngk serve` in local mode: 40 mails of 1 MiB, each a command with
// a 1 MiB Latin-1 argument (once answered with a 12.9 MB reply that the
// dead letters kept whole; help, whose answer a stranger gets: a
// stranger's listings get no answer), grow the store by less than 10 MB, and the
// daemon's resident memory never reaches 170 MB (the poller's batch holds
// at most 8 MiB of mail; with 32 mails whatever their size the peak was
// 151-230 MB). Half of them come from forged addresses outside the local
// server, which refuses the answers: the dead letters keep their header,
// size and error, not their body.
func TestServeBigMailsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and sends it 40 MiB of mail")
	}
	const (
		mails       = 40
		maxGrowth   = 10 << 20
		maxResident = 170 << 20
	)
	dir := t.TempDir()
	bin := filepath.Join(dir, "lyngk")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	conf := filepath.Join(dir, "lyngk.conf")
	if err := os.WriteFile(conf, []byte("metrics_addr = "+anyPort+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	cmd := exec.Command(bin, "serve", "-config", conf, "-data", data,
		"-local-smtp", anyPort, "-local-imap", anyPort, "-local-web", anyPort)
	var stdout, logs lockedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("daemon log:\n%s", logs.String())
		}
	})
	// The daemon says where it listens, each listener on a port of the
	// kernel's choosing.
	smtpAddr, metricsAddr := listenAddr(t, &stdout, "smtp", nil), listenAddr(t, &stdout, "metrics", nil)
	waitListening(t, metricsAddr, nil)
	dbPath := filepath.Join(data, "lyngk.db")
	before := fileSize(t, dbPath)

	// Just under the 1 MiB the robot reads, base64 for SMTP's line length:
	// the command's argument is all the rest, one byte per character in
	// Latin-1, two in UTF-8.
	head := rawMail{from: "mallory@localhost", subject: "hello", header: "Content-Transfer-Encoding: base64\r\n",
		contentType: "text/plain; charset=iso-8859-1", id: "big@client.example"}
	text := "help " + strings.Repeat("\xe9", ((1<<20)-len(head.bytes())-2048)/78*76/4*3) + "\n"
	b64 := base64.StdEncoding.EncodeToString([]byte(text))
	var body strings.Builder
	for len(b64) > 76 {
		body.WriteString(b64[:76] + "\n")
		b64 = b64[76:]
	}
	body.WriteString(b64 + "\n")
	for i := range mails {
		m := head
		m.id = fmt.Sprintf("big%d@client.example", i)
		if i%2 == 1 {
			m.from = fmt.Sprintf("victim%d@elsewhere.example", i) // past the strangers' 5 an hour
		}
		m.body = body.String()
		raw := m.bytes()
		if len(raw) > 1<<20 {
			t.Fatalf("mail of %d bytes, want at most 1 MiB", len(raw))
		}
		c, err := smtp.Dial(smtpAddr)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.SendMail(m.from, []string{"lyngk@localhost"}, bytes.NewReader(raw)); err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
	// Wait until the robot has handled every mail and its outbox is empty
	// (replies sent, or given up).
	deadline := time.Now().Add(patience)
	for {
		var handled float64
		for _, o := range []string{"applied", "duplicate", "ignored", "rejected"} {
			handled += metricValue(t, metricsAddr, `lyngk_mails_processed_total{outcome="`+o+`"}`)
		}
		if handled == mails && metricValue(t, metricsAddr, "lyngk_outbox_depth") == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %v of %d mails handled, outbox %v", patience, handled, mails,
				metricValue(t, metricsAddr, "lyngk_outbox_depth"))
		}
		time.Sleep(100 * time.Millisecond)
	}
	growth := fileSize(t, dbPath) - before
	peak := peakResident(t, cmd.Process.Pid)
	t.Logf("store grew by %.1f MB; daemon peak resident %.1f MB", float64(growth)/1e6, float64(peak)/1e6)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if growth >= maxGrowth {
		t.Errorf("store grew by %d bytes, want less than %d", growth, maxGrowth)
	}
	if peak >= maxResident {
		t.Errorf("daemon peak resident %d bytes, want less than %d", peak, maxResident)
	}
	db, err := store.Open(dbPath, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var dead []store.OutMail
	if err := db.View(func(tx *store.Tx) error {
		dead, err = tx.DeadLetters()
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(dead) != mails/2 {
		t.Errorf("%d dead letters, want %d (the answers to the forged address)", len(dead), mails/2)
	}
	for _, m := range dead {
		header, body, _ := bytes.Cut(m.Data, []byte("\r\n\r\n"))
		if len(body) != 0 || !bytes.Contains(header, []byte("Subject:")) || m.Size <= len(m.Data) ||
			!strings.Contains(m.LastError, "550") {
			t.Errorf("dead letter %d: %d bytes kept of %d, error %q; want the header only, the size and the 550",
				m.ID, len(m.Data), m.Size, m.LastError)
		}
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// peakResident reads a process's peak resident set size (VmHWM) from /proc.
func peakResident(t *testing.T, pid int) int64 {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/PID/status")
	return 0
}
