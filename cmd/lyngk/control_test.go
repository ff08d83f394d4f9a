package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

// TestControlSocketUnderLoad: `lyngk admin`, `lyngk
// backup` and `lyngk process` through a running daemon succeed 1,000 times
// in a row while mail is being processed. A load test had seen `write:
// broken pipe` on 25 of 60 admin requests: the daemon answered and closed
// before the client had finished its half of the request.
func TestControlSocketUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 requests")
	}
	cfg := defaultConfig()
	cfg.DataDir = t.TempDir()
	cfg.RatePerHour = 0
	s := startServe(t, cfg)
	dbPath := filepath.Join(cfg.DataDir, "lyngk.db")

	// Mail keeps coming in by SMTP, and being answered, all along.
	stop := make(chan struct{})
	var sent atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			m := rawMail{from: "alice@localhost", subject: "help", id: fmt.Sprintf("load%d@client.example", i)}
			c, err := smtp.Dial(s.smtp)
			if err != nil {
				t.Error(err)
				return
			}
			if err := c.SendMail("alice@localhost", []string{"lyngk@localhost"}, bytes.NewReader(m.bytes())); err != nil {
				t.Error(err)
			}
			c.Close()
			sent.Add(1)
			time.Sleep(5 * time.Millisecond)
		}
	})
	defer func() { close(stop); wg.Wait() }()

	const n = 1000
	backup := filepath.Join(t.TempDir(), "backup.db")
	for i := range n {
		var out, errb bytes.Buffer
		var args []string
		var stdin []byte
		var want string
		switch i % 3 {
		case 0:
			args, want = []string{"admin", "-db", dbPath, "users"}, "USERID"
		case 1:
			args, want = []string{"backup", "-db", dbPath, backup}, "backup of "
		case 2:
			m := rawMail{from: fmt.Sprintf("p%d@localhost", i), subject: "help", id: fmt.Sprintf("ctl%d@procmail.example", i)}
			args, stdin, want = []string{"process", "-db", dbPath, "-mbox", "-"}, m.bytes(), "Subject: PBeM Server help"
		}
		if code := run(args, bytes.NewReader(stdin), &out, &errb); code != 0 || !strings.Contains(out.String(), want) {
			t.Fatalf("request %d (%s): exit %d, stdout %q, stderr %s", i+1, args[0], code, out.String(), errb.String())
		}
	}
	// The mail went on being applied meanwhile.
	if got := strings.Count(s.logs.String(), "outcome=applied"); got < 100 || sent.Load() < 100 {
		t.Errorf("only %d mails applied of %d sent during the requests", got, sent.Load())
	}
}
