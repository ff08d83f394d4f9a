package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/store"
)

// userInfo reads one account from the store file at path.
func userInfo(t *testing.T, path, id string) engine.UserInfo {
	t.Helper()
	var u engine.UserInfo
	withDB(t, path, func(db *store.DB) {
		err := db.View(func(tx *store.Tx) error {
			us, err := engine.Users(tx)
			for _, x := range us {
				if x.ID == id {
					u = x
				}
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	})
	if u.ID == "" {
		t.Fatalf("no user %s", id)
	}
	return u
}

// TestProcessForcedGames is a measured abuse case: mallory sends
// `lyngk challenge victim mallory` twenty times from his own address;
// victim never moves. Ten games start (engine.MaxUnasked: the 11th is
// refused). After the forfeit timer (the daemon's ticks, 22 days
// later) every game is cancelled, not forfeited: victim has no losses and
// 1600 points, mallory no wins and 1600 (the old main gave victim 20
// losses and 1440, mallory 1760).
func TestProcessForcedGames(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	signupConfirmed(t, db, "victim@example.com", "victim", "pw1", "v@test.example")
	signupConfirmed(t, db, "mallory@example.org", "mallory", "pw2", "m@test.example")
	for i := range 20 {
		r := process(t, db, rawMail{from: "mallory@example.org", subject: "lyngk challenge victim mallory", id: fmt.Sprintf("c%d@test.example", i)})
		if i >= engine.MaxUnasked {
			if len(r) != 1 || r[0].to != "mallory@example.org" || !strings.HasPrefix(r[0].Body, "victim has had 10 mails today") {
				t.Fatalf("challenge %d: %+v", i+1, r)
			}
			continue
		}
		if len(r) != 2 || r[0].to != "victim@example.com" {
			t.Fatalf("challenge %d: %+v", i+1, r)
		}
	}
	a := testApp(t, db)
	// The daemon's ticks, a minute apart: engine.TickBatch games each.
	for i := range (engine.MaxUnasked + engine.TickBatch - 1) / engine.TickBatch {
		a.now = func() time.Time { return time.Now().Add(22*24*time.Hour + time.Duration(i)*time.Minute) }
		if err := a.tick(); err != nil {
			t.Fatal(err)
		}
	}
	var cancelled int
	err := a.db.View(func(tx *store.Tx) error {
		gs, err := engine.Games(tx)
		for _, g := range gs {
			if g.Status == "cancelled" && g.How == "timeout" && len(g.Moves) == 0 {
				cancelled++
			}
		}
		out, oerr := tx.Outbox()
		// Two mails per game telling both players; nothing went out
		// before the tick (process wrote to mboxes).
		if oerr == nil && len(out) != 2*engine.MaxUnasked {
			t.Errorf("%d mails queued by the timer, want %d", len(out), 2*engine.MaxUnasked)
		}
		return errors.Join(err, oerr)
	})
	if err != nil {
		t.Fatal(err)
	}
	a.db.Close()
	if cancelled != engine.MaxUnasked {
		t.Errorf("%d games cancelled by the timer, want %d", cancelled, engine.MaxUnasked)
	}
	for _, id := range []string{"victim", "mallory"} {
		if u := userInfo(t, db, id); len(u.Games) != 0 {
			t.Errorf("%s: %+v; want no game rated (the start rating)", id, u.Games)
		}
	}
	r := process(t, db, rawMail{from: "victim@example.com", subject: "lyngk history victim", id: "h@test.example"})
	if len(r) != 1 || strings.Count(r[0].Body, "victim - mallory: cancelled (timeout)") != engine.MaxUnasked {
		t.Errorf("history: %+v", r)
	}
	r = process(t, db, rawMail{from: "victim@example.com", subject: "lyngk standings", id: "s@test.example"})
	if len(r) != 1 || !strings.Contains(r[0].Body, "Nobody has finished a game yet.") {
		t.Errorf("standings: %+v", r)
	}
}

// TestProcessDecline: the player challenged declines by a plain reply to
// the new-game mail; both players are told, the game is cancelled and
// counts for nobody; a player who has moved cannot decline.
func TestProcessDecline(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	signupConfirmed(t, db, "alice@example.com", "alice", "pw1", "a@test.example")
	signupConfirmed(t, db, "bob@example.org", "bob", "pw2", "b@test.example")
	r := process(t, db, rawMail{from: "alice@example.com", subject: "lyngk challenge alice bob", id: "c1@test.example"})
	if len(r) != 2 {
		t.Fatalf("challenge: %+v", r)
	}
	r = process(t, db, rawMail{from: "alice@example.com", subject: "lyngk move 101 alice pw1 G,f5-f4", id: "m1@test.example"})
	if len(r) != 2 {
		t.Fatalf("move: %+v", r)
	}
	if r := process(t, db, rawMail{from: "alice@example.com", subject: "lyngk decline 101 alice pw1", id: "d0@test.example"}); len(r) != 1 ||
		!strings.HasPrefix(r[0].Body, "You have moved on Lyngk Board 101") {
		t.Fatalf("decline after one's move: %+v", r)
	}
	latest := r[1] // bob's board mail after alice's move
	r = process(t, db, rawMail{from: "bob@example.org", subject: "Re: " + latest.Subject, body: "decline\nNot now, sorry.\n",
		id: "d1@test.example", inReplyTo: latest.MessageID})
	if len(r) != 2 || r[0].to != "alice@example.com" || r[1].to != "bob@example.org" {
		t.Fatalf("decline by reply: want the news to both, got %+v", r)
	}
	for _, m := range r {
		if !strings.Contains(m.Body, "bob declined the game.") || !strings.Contains(m.Body, "\nGame cancelled.\n") {
			t.Errorf("mail to %s:\n%s", m.to, m.Body)
		}
	}
	if !strings.Contains(r[0].Body, "Not now, sorry.") {
		t.Errorf("bob's comment is not passed on:\n%s", r[0].Body)
	}
	r = process(t, db, rawMail{from: "alice@example.com", subject: "lyngk games", id: "g@test.example"})
	if len(r) != 1 || !strings.Contains(r[0].Body, "alice - bob: cancelled (declined)") {
		t.Errorf("games: %+v", r)
	}
	for _, id := range []string{"alice", "bob"} {
		if u := userInfo(t, db, id); len(u.Games) != 0 {
			t.Errorf("%s after the declined game: %+v", id, u)
		}
	}
}

// TestProcessSignoffKeepsRating: signoff resigns a game both have moved in;
// the leaver keeps the loss and the rating change (the old main saved the
// user record read before resigning: 1600, no loss).
func TestProcessSignoffKeepsRating(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	signupConfirmed(t, db, "alice@example.com", "alice", "pw1", "a@test.example")
	signupConfirmed(t, db, "bob@example.org", "bob", "pw2", "b@test.example")
	for i, s := range []rawMail{
		{from: "alice@example.com", subject: "lyngk challenge alice bob"},
		{from: "alice@example.com", subject: "lyngk move 101 alice pw1 G,f5-f4"},
		{from: "bob@example.org", subject: "lyngk move 101 bob pw2 b1-b2"},
		{from: "alice@example.com", subject: "signoff alice pw1"},
	} {
		s.id = fmt.Sprintf("s%d@test.example", i)
		if r := process(t, db, s); len(r) == 0 || strings.Contains(r[0].Subject, "rror") {
			t.Fatalf("%s: %+v", s.subject, r)
		}
	}
	// Elo with K = 40 for both (provisional): 1600 -/+ 40 * 0.5.
	if u := userInfo(t, db, "alice"); !slices.Equal(u.Games, []engine.GameStanding{{Game: "lyngk", Rating: 1580, Lost: 1}}) || u.Left.IsZero() {
		t.Errorf("alice after signoff: %+v, left %v; want lyngk 1580 with 1 loss, signed off", u.Games, u.Left)
	}
	if u := userInfo(t, db, "bob"); !slices.Equal(u.Games, []engine.GameStanding{{Game: "lyngk", Rating: 1620, Won: 1}}) {
		t.Errorf("bob: %+v; want lyngk 1620 with 1 win", u.Games)
	}
}
