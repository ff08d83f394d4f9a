package web_test

import (
	"fmt"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/store"
)

// TestPlayerBouncing: the page of a player whose only address bounces
// says so (and that the games wait), without the address; another
// player's page says nothing of it; the player's mail lifts it.
func TestPlayerBouncing(t *testing.T) {
	s := newSite(t, true)
	s.games()
	const note = "Mail to alice bounces: the server stopped writing to this player on"
	addr := "alice@players.example"
	for i := range 3 {
		id := fmt.Sprintf("sent%d@example.net", i)
		err := s.db.Update(func(tx *store.Tx) error {
			_, err := s.e.Bounce(tx, engine.Bounce{MessageIDs: []string{id}, Recipients: []engine.BounceRecipient{{Addr: addr, Hard: true}},
				Sent: map[string][]string{id: {addr}}}, s.now)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	_, page := s.get("GET", "/player/alice")
	if !strings.Contains(page, note) || !strings.Contains(page, "the games are paused") || strings.Contains(page, addr) {
		t.Errorf("alice's page while her address bounces:\n%s", page)
	}
	if _, page := s.get("GET", "/player/bob"); strings.Contains(page, "bounces") {
		t.Errorf("bob's page names a bounce:\n%s", page)
	}
	s.cmd("alice", "lyngk games")
	if _, page := s.get("GET", "/player/alice"); strings.Contains(page, "bounces") {
		t.Errorf("alice's page after her mail:\n%s", page)
	}
}
