package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"lyngk.example/lyngk/store"
)

// TestMetricsGamesCancelled: games played through `lyngk process` — one
// declined (cancelled), one resigned after both moved (finished), one still
// playing — are counted by the store's collector of /metrics as 3 started,
// 1 finished and 1 cancelled (the old main counted the declined game as
// finished too).
func TestMetricsGamesCancelled(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	signupConfirmed(t, db, "alice@example.com", "alice", "pw1", "a@test.example")
	signupConfirmed(t, db, "bob@example.org", "bob", "pw2", "b@test.example")
	for i, s := range []rawMail{
		{from: "alice@example.com", subject: "lyngk challenge alice bob"},
		{from: "bob@example.org", subject: "lyngk decline 101 bob pw2"},
		{from: "alice@example.com", subject: "lyngk challenge alice bob"},
		{from: "alice@example.com", subject: "lyngk move 102 alice pw1 G,f5-f4"},
		{from: "bob@example.org", subject: "lyngk move 102 bob pw2 b1-b2"},
		{from: "alice@example.com", subject: "lyngk resign 102 alice pw1"},
		{from: "alice@example.com", subject: "lyngk challenge alice bob"},
	} {
		s.id = fmt.Sprintf("s%d@test.example", i)
		if r := process(t, db, s); len(r) == 0 || strings.Contains(r[0].Subject, "rror") {
			t.Fatalf("%s: %+v", s.subject, r)
		}
	}
	withDB(t, db, func(sdb *store.DB) {
		reg := prometheus.NewPedanticRegistry()
		reg.MustRegister(&storeCollector{db: sdb})
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]float64{}
		for _, mf := range mfs {
			for _, m := range mf.GetMetric() {
				got[mf.GetName()] = m.GetCounter().GetValue()
			}
		}
		for name, want := range map[string]float64{
			"lyngk_games_started_total":   3,
			"lyngk_games_finished_total":  1,
			"lyngk_games_cancelled_total": 1,
		} {
			if got[name] != want {
				t.Errorf("%s = %v, want %v", name, got[name], want)
			}
		}
	})
}
