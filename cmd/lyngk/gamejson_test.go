package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/store"
	"lyngk.example/lyngk/templates"
)

// TestGameJSONMatchesAnalyze plays games through `lyngk process` (moves by
// replies to the board mails) and checks the read API's JSON of each game
// (/game/N.json) against `lyngk analyze -json` for the same moves: the
// board block of every position, and for the current one every field of
// analyze, with the documented differences for a game that did not end by
// the rules (engine.GameJSON).
func TestGameJSONMatchesAnalyze(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	addr := map[string]string{"alice": "alice@example.com", "bob": "bob@example.org"}
	n := 0
	nextID := func() string { n++; return fmt.Sprintf("m%d@test.example", n) }
	for _, u := range []string{"alice", "bob"} {
		signupConfirmed(t, db, addr[u], u, "pw-"+u, nextID())
	}
	// play challenges, then moves by replies until the rules end the game
	// or max moves are made.
	play := func(challenge string, board int, names [2]string, variant lyngk.Variant, max int) {
		t.Helper()
		out := process(t, db, rawMail{from: addr[names[0]], subject: challenge, id: nextID()})
		latest := map[string]reply{}
		keep := func(out []reply) {
			for _, r := range out {
				for _, u := range names {
					if r.to == addr[u] {
						latest[u] = r
					}
				}
			}
		}
		keep(out)
		pos := lyngk.New(board, variant)
		rng := rand.New(rand.NewPCG(uint64(board), 1))
		for i := 0; i < max && pos.Status() == games.Playing; i++ {
			legal := pos.Legal(nil)
			slices.SortFunc(legal, func(a, b lyngk.Move) int { return strings.Compare(a.String(), b.String()) })
			m := legal[rng.IntN(len(legal))]
			u := names[pos.Turn()-1]
			last := latest[u]
			out := process(t, db, rawMail{from: addr[u], subject: "Re: " + last.Subject, body: m.String() + "\n",
				id: nextID(), inReplyTo: last.MessageID})
			if len(out) != 2 || strings.Contains(out[0].Subject, "Error") {
				t.Fatalf("move %s by %s: %+v", m, u, out)
			}
			keep(out)
			if err := pos.Apply(m); err != nil {
				t.Fatal(err)
			}
		}
	}
	play("lyngk challenge alice bob", 101, [2]string{"alice", "bob"}, lyngk.Standard, 1000)
	play("lyngk challenge -stack6 bob alice", 102, [2]string{"bob", "alice"}, lyngk.Stack6, 9)
	process(t, db, rawMail{from: addr["alice"], subject: "lyngk resign 102 alice pw-alice", id: nextID()})
	play("lyngk challenge alice bob", 103, [2]string{"alice", "bob"}, lyngk.Standard, 6)

	analyze := func(args ...string) map[string]json.RawMessage {
		t.Helper()
		var out, errb bytes.Buffer
		if code := runAnalyze(args, &out, &errb); code != 0 {
			t.Fatalf("analyze %v: exit %d: %s", args, code, errb.String())
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(out.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	withDB(t, db, func(sdb *store.DB) {
		for _, tc := range []struct {
			board  int
			status string // "" for the rules' status, as analyze says
			winner string
		}{
			{board: 101},
			{board: 102, status: `"resigned"`, winner: "1"},
			{board: 103},
		} {
			var d *engine.GameDetail
			var j *engine.GameJSON
			err := sdb.View(func(tx *store.Tx) error {
				var err error
				if d, err = reader(t).ReadGame(tx, tc.board); err != nil {
					return err
				}
				j, err = d.JSON()
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(j); err != nil {
				t.Fatal(err)
			}
			var got map[string]json.RawMessage
			if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if string(got["number"]) != strconv.Itoa(tc.board) || string(got["game"]) != `"lyngk"` || string(got["variant"]) != strconv.Quote(d.Variant) ||
				string(got["players"]) != fmt.Sprintf(`[%q,%q]`, d.Players[0], d.Players[1]) {
				t.Errorf("board %d: number %s game %s variant %s players %s", tc.board, got["number"], got["game"], got["variant"], got["players"])
			}
			base := []string{"-seed", strconv.Itoa(tc.board), "-players", d.Players[0] + "," + d.Players[1], "-json"}
			if d.Variant == "stack6" {
				base = append(base, "-stack6")
			}
			if len(j.Positions) != len(j.Moves)+1 {
				t.Fatalf("board %d: %d positions for %d moves", tc.board, len(j.Positions), len(j.Moves))
			}
			for k := range j.Positions {
				a := analyze(append(slices.Clone(base), j.Moves[:k]...)...)
				var block string
				if err := json.Unmarshal(a["board"], &block); err != nil {
					t.Fatal(err)
				}
				if j.Positions[k] != block {
					t.Errorf("board %d: position %d differs from analyze's board:\n%s\nwant\n%s", tc.board, k, j.Positions[k], block)
				}
			}
			want := analyze(append(slices.Clone(base), j.Moves...)...)
			if tc.status != "" {
				// Over otherwise than by the rules: the game's status and
				// winner, and no turn and no legal moves.
				want["status"], want["winner"] = json.RawMessage(tc.status), json.RawMessage(tc.winner)
				want["turn"], want["legal"] = json.RawMessage("0"), json.RawMessage("[]")
			}
			for _, key := range []string{"board", "moves", "turn", "status", "winner", "claims", "removed", "legal"} {
				if !bytes.Equal(got[key], want[key]) {
					t.Errorf("board %d: %s is %s, analyze says %s", tc.board, key, got[key], want[key])
				}
			}
		}
	})
}

// reader is an engine for the read API in tests: the games cmd/lyngk
// offers, the default templates.
func reader(t *testing.T) *engine.Engine {
	t.Helper()
	set, err := templates.Load("")
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(engine.Config{Games: offered(), Server: "lyngk@example.net", Templates: set})
	if err != nil {
		t.Fatal(err)
	}
	return e
}
