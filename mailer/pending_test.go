package mailer

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"lyngk.example/lyngk/mailer/mailtest"
)

// TestPollerPending: a mail the handler defers stays unseen in the INBOX
// and is not handed over again, while later mail is handled and marked;
// after Recheck the handler settles it and it is marked too.
func TestPollerPending(t *testing.T) {
	srv := newIMAPTestServer(t, nil, nil, false)
	var mu sync.Mutex
	var calls []string
	settled := false
	h := func(_ context.Context, raws [][]byte) ([]Outcome, error) {
		mu.Lock()
		defer mu.Unlock()
		var out []Outcome
		for _, raw := range raws {
			_, rest, _ := strings.Cut(string(raw), "Subject: ")
			subject, _, _ := strings.Cut(rest, "\r\n")
			calls = append(calls, subject)
			if subject == "slow" && !settled {
				out = append(out, Pending)
			} else {
				out = append(out, Processed)
			}
		}
		return out, nil
	}
	srv.deliver("slow")
	p := NewPoller(testIMAPConfig(srv.addr), h, nil)
	marked := countMarked(p)
	runPoller(t, p)
	mailtest.WaitFor(t, "slow handed over", func() bool { mu.Lock(); defer mu.Unlock(); return len(calls) == 1 })
	srv.deliver("fast")
	mailtest.WaitFor(t, "fast marked", func() bool { return marked() == 1 })
	p.Kick()
	srv.deliver("more")
	mailtest.WaitFor(t, "more marked", func() bool { return marked() == 2 })
	expectMailboxes(t, srv, map[string][]mailtest.Listed{"INBOX": {{Subject: "slow", Seen: false}},
		"Processed": {{Subject: "fast", Seen: true}, {Subject: "more", Seen: true}}})

	mu.Lock()
	settled = true
	mu.Unlock()
	p.Recheck()
	mailtest.WaitFor(t, "slow marked", func() bool { return marked() == 3 })
	expectMailboxes(t, srv, map[string][]mailtest.Listed{"Processed": {{Subject: "fast", Seen: true}, {Subject: "more", Seen: true}, {Subject: "slow", Seen: true}}})
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"slow", "fast", "more", "slow"}; !slices.Equal(calls, want) {
		t.Errorf("handler calls %v, want %v", calls, want)
	}
}
