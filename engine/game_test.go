package engine_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
)

// pick chooses a legal move of pos at random (seeded: the same game each run).
func pick(rng *rand.Rand, pos *lyngk.Game) lyngk.Move {
	legal := pos.Legal(nil)
	slices.SortFunc(legal, func(a, b lyngk.Move) int { return strings.Compare(a.String(), b.String()) })
	return legal[rng.IntN(len(legal))]
}

// checkBoardMails checks that out is one board mail per player, each to
// that player, with the subject and board block of pos.
func checkBoardMails(t *testing.T, out []engine.Mail, board int, names [2]string, pos *lyngk.Game, wantSubject string) {
	t.Helper()
	if len(out) != 2 {
		t.Fatalf("%d mails, want 2:\n%s", len(out), format(out))
	}
	block := pos.Board(names)
	for i, m := range out {
		if !slices.Equal(m.To, []string{addr(names[i])}) {
			t.Errorf("mail %d goes to %q, want %s", i, m.To, addr(names[i]))
		}
		if m.Subject != wantSubject && m.Subject != wantSubject+" **" {
			t.Errorf("subject %q, want %q", m.Subject, wantSubject)
		}
		if !strings.Contains(m.Body, "\n\n"+block+"\n") {
			t.Errorf("mail to %s lacks the board block of the position:\n%s\nwant block:\n%s", names[i], m.Body, block)
		}
		if !strings.HasPrefix(m.MessageID, "lyngk.") || !strings.HasSuffix(m.MessageID, "@example.net") {
			t.Errorf("Message-ID %q carries no reply token", m.MessageID)
		}
	}
}

// TestFullGame plays a whole game, moving by full commands and by plain
// replies in turn, and checks every mail against the rules package.
func TestFullGame(t *testing.T) {
	for _, variant := range []lyngk.Variant{lyngk.Standard, lyngk.Stack6} {
		t.Run(lyngk.Rules.Variants[variant], func(t *testing.T) {
			v := newEnv(t)
			v.signup("alice", "bob")
			names := [2]string{"alice", "bob"}
			opt := ""
			if variant == lyngk.Stack6 {
				opt = " -stack6"
			}
			out := v.cmd(addr("carol"), "lyngk challenge"+opt+" alice bob")
			pos := lyngk.New(101, variant)
			checkBoardMails(t, out, 101, names, &pos, "New Lyngk Board 101 alice")
			latest := map[string]engine.Mail{"alice": out[0], "bob": out[1]}
			rng := rand.New(rand.NewPCG(7, uint64(variant)))
			for i := 0; pos.Status() == games.Playing; i++ {
				name := names[pos.Turn()-1]
				m := pick(rng, &pos)
				if i%2 == 0 {
					out = v.cmd(addr(name), fmt.Sprintf("lyngk move 101 %s pw-%s %s#%d", name, name, m, pos.MoveCount()+1))
				} else {
					out = v.reply(latest[name], addr(name), strings.ToLower(m.String())+"\nyour turn\n\nOn Sat, Nov 21, 2026 PBeM Server wrote:\n> old board\n")
				}
				if err := pos.Apply(m); err != nil {
					t.Fatal(err)
				}
				want := "Lyngk Board 101"
				if pos.Status() == games.Playing {
					want += " " + names[pos.Turn()-1]
				}
				checkBoardMails(t, out, 101, names, &pos, want)
				latest["alice"], latest["bob"] = out[0], out[1]
				// The comment of a reply goes to the opponent only.
				for j, mail := range out {
					hasComment := strings.Contains(mail.Body, "\n"+name+" writes:\nyour turn\n")
					if hasComment != (i%2 == 1 && names[j] != name) {
						t.Errorf("move %d by %s: comment in mail to %s = %v", pos.MoveCount(), name, names[j], hasComment)
					}
				}
			}
			result := "Game was a tie."
			if w := pos.Winner(); w != 0 {
				result = "Game won by " + names[w-1] + "."
			}
			var list strings.Builder
			for i, m := range pos.Moves() {
				fmt.Fprintf(&list, " %3d %-8s", i+1, m)
				if i%2 == 1 || i == len(pos.Moves())-1 {
					list.WriteString("\n")
				}
			}
			for _, m := range out {
				if !strings.HasPrefix(m.Body, "Summary of Lyngk Board 101\n\n"+result+"\n\n") {
					t.Errorf("final mail does not start with the result %q:\n%s", result, m.Body)
				}
				if !strings.Contains(m.Body, "   alice        bob       \n"+list.String()+"\n\n") {
					t.Errorf("final mail lacks the whole move list:\n%s\nwant:\n%s", m.Body, list.String())
				}
				if !strings.Contains(m.Body, "\nTime used by players:\n") {
					t.Errorf("final mail lacks the timing block:\n%s", m.Body)
				}
			}
			t.Logf("%s: %d moves, %s", lyngk.Rules.Variants[variant], pos.MoveCount(), result)
		})
	}
}

// TestReplyMoveNumberApart: in a plain reply, "MOVE #N" carries the move
// number as "MOVE#N" does: it is checked, and it is not passed on as the
// comment.
func TestReplyMoveNumberApart(t *testing.T) {
	w := newWorld(t)
	pos := lyngk.New(101, lyngk.Standard)
	for _, s := range []string{"G,f5-f4", w.bobMove} {
		m, _, _ := lyngk.ParseMove(s)
		if err := pos.Apply(m); err != nil {
			t.Fatal(err)
		}
	}
	move := pos.LegalPlain(nil)[0].String()

	before := w.dump()
	out := w.reply(w.fresh, addr("alice"), move+" #7\n")
	if len(out) != 1 || !strings.HasPrefix(out[0].Body, "Your move is numbered #7, but this is move 3.") {
		t.Fatalf("reply %q #7: want the move-number error, got:\n%s", move, format(out))
	}
	// The error mail carries a reply token: its record aside,
	// nothing changed.
	if after := withoutNewTokens(before, w.dump()); after != before {
		t.Errorf("refused reply changed the state:\n%s", diff(before, after))
	}

	out = w.reply(w.fresh, addr("alice"), move+" #3 over to you\n")
	if len(out) != 3 || out[0].Subject != "Lyngk Board 101 bob" {
		t.Fatalf("reply %q #3: want three board mails, got:\n%s", move, format(out))
	}
	if got := out[1].Body; !strings.Contains(got, "\nalice writes:\nover to you\n\n") {
		t.Errorf("bob's mail: want the comment %q without the move number, got:\n%s", "over to you", got)
	}
}

// TestReplyClaimApart: "B, e4-e5" in a reply is the claim and its move, as
// players type it, not a notation error.
func TestReplyClaimApart(t *testing.T) {
	w := newWorld(t)
	pos := lyngk.New(101, lyngk.Standard)
	for _, s := range []string{"G,f5-f4", w.bobMove} {
		m, _, _ := lyngk.ParseMove(s)
		if err := pos.Apply(m); err != nil {
			t.Fatal(err)
		}
	}
	var claim lyngk.Move
	for _, m := range pos.Legal(nil) {
		if m.Claim != lyngk.NoColor {
			claim = m
			break
		}
	}
	typed := strings.Replace(claim.String(), ",", ", ", 1)
	out := w.reply(w.fresh, addr("alice"), typed+"\n")
	if len(out) != 3 || out[0].Subject != "Lyngk Board 101 bob" || !strings.Contains(out[0].Body, claim.String()) {
		t.Fatalf("reply %q: want three board mails with %s, got:\n%s", typed, claim, format(out))
	}
}
