package web

import (
	"testing"
	"time"
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
