package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/yinsh"
)

// TestServeLocalYinsh plays YINSH by real SMTP and IMAP against `lyngk
// serve` in local all-in-one mode: a whole game
// between alice and bob (placements, moves, a row removed after a move, a
// row owed and removed at the start of a turn, the end), turns by command
// and by reply, each board mail checked against the rules' text board;
// then a blitz game against the robot, which answers each turn by itself.
func TestServeLocalYinsh(t *testing.T) {
	dir := t.TempDir()
	cfg := defaultConfig()
	cfg.DataDir = filepath.Join(dir, "data")
	cfg.RobotThink = 20 * time.Millisecond
	s := startServe(t, cfg)
	smtpAddr, imapAddr := s.smtp, s.imap

	alice := localPlayer{t: t, name: "alice", smtp: smtpAddr, imap: imapAddr}
	bob := localPlayer{t: t, name: "bob", smtp: smtpAddr, imap: imapAddr}
	alice.signup("Sesame-8zq", 0)
	bob.signup("Sesame-9xy", 0)
	alice.send("yinsh challenge alice bob", "", "")
	players := []localPlayer{alice, bob}
	pw := []string{"Sesame-8zq", "Sesame-9xy"}
	count := []int{3, 3}
	last := []string{alice.await(3).MessageID, bob.await(3).MessageID}
	subjects := []string{alice.await(3).Subject, bob.await(3).Subject}
	bodies := make([]string, 2) // the latest mail of each

	g := yinsh.New(yinsh.Normal)
	names := [2]string{"alice", "bob"}
	for i, s := range strings.Fields(yinshGame) {
		me := g.Turn() - 1
		p := players[me]
		if i%2 == 0 {
			p.send("Re: "+subjects[me], s+"\n\n> the board\n", last[me])
		} else {
			p.send("yinsh move 101 "+p.name+" "+pw[me]+" "+s, "", "")
		}
		tn, _, err := yinsh.ParseTurn(s)
		if err == nil {
			err = g.Apply(tn)
		}
		if err != nil {
			t.Fatal(err)
		}
		for k, q := range players {
			count[k]++
			m := q.await(count[k])
			if !strings.Contains(m.Body, g.Board(names)) {
				t.Fatalf("turn %d (%s): %s's mail %q lacks the board:\n%s", i+1, s, q.name, m.Subject, m.Body)
			}
			last[k], subjects[k], bodies[k] = m.MessageID, m.Subject, m.Body
		}
	}
	if g.Status() != games.Won || g.Winner() != 1 {
		t.Fatalf("game not over: %v", g.Status())
	}
	// The robot's review is in the game-over mails.
	for k, q := range players {
		if !strings.Contains(bodies[k], "chance fell most, as the robot sees it:") {
			t.Fatalf("%s's game-over mail %q without the robot's review:\n%s", q.name, subjects[k], bodies[k])
		}
	}

	// Against the robot: alice places and moves, the robot answers.
	alice.send("yinsh challenge -blitz alice robot", "", "")
	count[0]++
	m := alice.await(count[0])
	r := yinsh.New(yinsh.Blitz)
	for turns := 0; r.Status() == games.Playing; turns++ {
		if turns > 300 {
			t.Fatal("the robot game does not end")
		}
		if r.Turn() == 1 {
			tn := r.Legal(nil)[0]
			alice.send("Re: "+m.Subject, tn.String()+"\n", m.MessageID)
			if err := r.Apply(tn); err != nil {
				t.Fatal(err)
			}
			count[0]++
			m = alice.await(count[0])
			continue
		}
		// The robot's turn: its board mail shows a position one legal
		// turn on.
		count[0]++
		m = alice.await(count[0])
		found := false
		for _, tn := range r.Legal(nil) {
			h := r
			if err := h.Apply(tn); err == nil && strings.Contains(m.Body, h.Board([2]string{"alice", "robot"})) {
				r, found = h, true
				break
			}
		}
		if !found {
			t.Fatalf("turn %d: the robot's board mail shows no legal turn:\n%s", turns+1, m.Body)
		}
	}

	s.stop(t)
}
