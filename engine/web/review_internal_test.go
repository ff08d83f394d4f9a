package web

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
)

// TestReviewBounds: a review is not queued beyond maxQueue waiting nor
// beyond maxPerHour begun in the hour; the next hour takes them again.
func TestReviewBounds(t *testing.T) {
	rv := &reviewer{done: map[int]*gameReview{}, window: time.Now(), begun: maxPerHour, running: true}
	if rv.get(101) != nil || len(rv.queue) != 0 {
		t.Errorf("queued beyond the hour's %d: %v", maxPerHour, rv.queue)
	}
	rv.window = time.Now().Add(-time.Hour)
	for b := range maxQueue + 3 {
		rv.get(200 + b)
	}
	if len(rv.queue) != maxQueue || rv.begun != maxQueue {
		t.Errorf("%d queued, %d begun; want %d", len(rv.queue), rv.begun, maxQueue)
	}
	rv.get(200) // queued already: not again
	if len(rv.queue) != maxQueue || !rv.queued(200) || rv.queued(101) {
		t.Errorf("queue %v", rv.queue)
	}
}

// brokenStore is a store that cannot be read.
type brokenStore struct{ Store }

func (brokenStore) View(func(engine.Tx) error) error { return errors.New("disk gone") }

// TestReviewFailed: a review that cannot be made (the game cannot be
// read) is logged with its board and kept as a review without a chart
// (which the game page shows as none), no longer queued, and not queued
// again until the server restarts.
func TestReviewFailed(t *testing.T) {
	var logged bytes.Buffer
	made := make(chan int, 2)
	h := &Handler{cfg: Config{Store: brokenStore{}, Reviewed: func(b int) { made <- b }}, log: slog.New(slog.NewTextHandler(&logged, nil))}
	rv := &reviewer{h: h, done: map[int]*gameReview{}}
	if rv.get(101) != nil {
		t.Fatal("a review before it was made")
	}
	select {
	case b := <-made:
		if b != 101 {
			t.Fatalf("reviewed %d", b)
		}
	case <-time.After(time.Minute):
		t.Fatal("the failed review never ended")
	}
	r := rv.get(101)
	if r == nil || r.Chart != "" || rv.queued(101) || rv.begun != 1 {
		t.Errorf("after the failure: review %+v, queued %v, begun %d", r, rv.queued(101), rv.begun)
	}
	if out := logged.String(); !strings.Contains(out, "level=ERROR msg=\"web: review\" board=101 err=\"disk gone\"") {
		t.Errorf("logged %q", out)
	}
}
