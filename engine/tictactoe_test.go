package engine_test

import (
	"strings"
	"testing"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/games/gamestest"
	"lyngk.example/lyngk/store"
	"lyngk.example/lyngk/templates"
)

// withTicTacToe offers the test game beside LYNGK, with its texts.
func withTicTacToe(c *engine.Config) {
	set, err := c.Templates.With(gamestest.Texts)
	if err != nil {
		panic(err)
	}
	c.Games, c.Templates = append(c.Games, gamestest.TicTacToe), set
}

// want fails t unless out has n mails, the first with subject and a body
// holding every one of texts.
func want(t *testing.T, what string, out []engine.Mail, n int, subject string, texts ...string) {
	t.Helper()
	if len(out) != n || (n > 0 && out[0].Subject != subject) {
		t.Fatalf("%s: want %d mails %q, got\n%s", what, n, subject, format(out))
	}
	for _, s := range texts {
		if !strings.Contains(out[0].Body, s) {
			t.Errorf("%s: no %q in\n%s", what, s, out[0].Body)
		}
	}
}

// TestTestGame: a game that exists only in the tests (tic-tac-toe,
// engine/games/gamestest) is played through Handle beside LYNGK, which
// shows that the engine knows no game but through the contract: signup,
// challenge, moves by full command and by plain reply, refused moves (an
// illegal one, LYNGK's word on its board, LYNGK's option), show, games,
// help, a win, standings of its own (LYNGK's unchanged), a resignation, a
// forfeit by the timer (which cancels the idle LYNGK game beside it), a
// signoff resigning games of both, and the records: one sequence of board numbers,
// the game named in its records, LYNGK's records as they always were.
func TestTestGame(t *testing.T) {
	v := newEnv(t, withTicTacToe)
	v.signup("alice", "bob")
	before := v.dump(store.BucketUsers)

	out := v.cmd(addr("alice"), "tictactoe challenge alice bob")
	want(t, "challenge", out, 2, "New Tictactoe Board 101 alice", "X: alice\nO: bob")
	if out[0].HTML == "" || len(out[0].Picture) == 0 {
		t.Errorf("no HTML part with the game's picture:\n%s", format(out[:1]))
	}
	want(t, "a LYNGK game beside it", v.cmd(addr("bob"), "lyngk challenge bob alice"), 2, "New Lyngk Board 102 bob")
	want(t, "LYNGK's option", v.cmd(addr("alice"), "tictactoe challenge -stack6 alice bob"), 1, "PBeM Server error",
		`Unknown option "-stack6". Usage: tictactoe challenge USERID1 USERID2`)

	// Full command, then a plain reply to the board mail.
	out = v.cmd(addr("alice"), "tictactoe move 101 alice pw-alice b2")
	want(t, "alice's move", out, 2, "Tictactoe Board 101 bob", "2  X \n")
	bobs := out[1]
	if !strings.Contains(strings.Join(out[1].To, " "), "bob") {
		bobs = out[0]
	}
	want(t, "bob's reply", v.reply(bobs, addr("bob"), "a1\n\nyour turn"), 2, "Tictactoe Board 101 alice **")

	// Refused: a taken cell, bad notation, the move number, LYNGK's word.
	want(t, "taken cell", v.cmd(addr("alice"), "tictactoe move 101 alice pw-alice a1"), 1, "Tictactoe Board 101 Error",
		"Illegal move a1: a1 is taken")
	want(t, "notation", v.cmd(addr("alice"), "tictactoe move 101 alice pw-alice d4"), 1, "Tictactoe Board 101 Error",
		"A move is a cell, a1 to c3.")
	want(t, "move number", v.cmd(addr("alice"), "tictactoe move 101 alice pw-alice a2#9"), 1, "Tictactoe Board 101 Error",
		"Your move is numbered #9, but this is move 3.")
	want(t, "LYNGK's word on its board", v.cmd(addr("alice"), "lyngk move 101 alice pw-alice a2"), 1, "Tictactoe Board 101 Error",
		`"lyngk" is not the game of Tictactoe Board 101: its commands start`, "tictactoe move 101 USERID PASSWORD MOVE")
	want(t, "its word on LYNGK's board", v.cmd(addr("alice"), "tictactoe resign 102 alice pw-alice"), 1, "Lyngk Board 102 Error",
		`"tictactoe" is not the game of Lyngk Board 102`)

	want(t, "show", v.cmd(addr("alice"), "tictactoe show 101"), 1, "Tictactoe Board 101 alice", "1 O  \n")
	want(t, "games", v.cmd(addr("alice"), "tictactoe games"), 1, "Tictactoe games", "101")
	if out := v.cmd(addr("alice"), "lyngk games"); len(out) != 1 || strings.Contains(out[0].Body, "101") || !strings.Contains(out[0].Body, "102") {
		t.Errorf("lyngk games:\n%s", format(out))
	}
	want(t, "help", v.cmd(addr("alice"), "help"), 1, "PBeM Server help", "lyngk: Lyngk, a game by Kris Burm", "tictactoe: Tictactoe")

	// X wins on row 2: b2 a1 a2 c1 c2.
	v.cmd(addr("alice"), "tictactoe move 101 alice pw-alice a2")
	v.cmd(addr("bob"), "tictactoe move 101 bob pw-bob c1")
	out = v.cmd(addr("alice"), "tictactoe move 101 alice pw-alice c2#5")
	want(t, "the win", out, 2, "Tictactoe Board 101", "alice")
	want(t, "its standings", v.cmd(addr("alice"), "tictactoe standings"), 1, "Tictactoe standings", "alice", "bob")
	if out := v.cmd(addr("alice"), "lyngk standings"); len(out) != 1 || strings.Contains(out[0].Body, "alice") {
		t.Errorf("lyngk standings list a tic-tac-toe player:\n%s", format(out))
	}

	// A resignation, then a forfeit by the timer.
	v.cmd(addr("bob"), "tictactoe challenge bob alice")
	v.cmd(addr("bob"), "tictactoe move 103 bob pw-bob a1")
	v.cmd(addr("alice"), "tictactoe move 103 alice pw-alice b1")
	want(t, "resign", v.cmd(addr("alice"), "tictactoe resign 103 alice pw-alice"), 2, "Tictactoe Board 103", "resigned")
	v.cmd(addr("bob"), "tictactoe challenge alice bob")
	v.cmd(addr("alice"), "tictactoe move 104 alice pw-alice a1")
	v.cmd(addr("bob"), "tictactoe move 104 bob pw-bob b1")
	v.now = v.now.Add(engine.DefaultForfeitAfter + 24*60*60e9)
	out = v.tick()
	if f := format(out); !strings.Contains(f, "Subject: Tictactoe Board 104") || !strings.Contains(f, "alice forfeited the game") {
		t.Errorf("no forfeit of 104:\n%s", f)
	}

	// Signoff resigns the running games of both games, named by game.
	v.cmd(addr("alice"), "tictactoe challenge alice bob")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	out = v.cmd(addr("bob"), "signoff bob pw-bob")
	if f := format(out); !strings.Contains(f, "Resigned games: Tictactoe Board 105; Lyngk Board 106.") {
		t.Errorf("signoff:\n%s", f)
	}

	// The records: each names its game; each game's ratings apart.
	games := v.dump(store.BucketGames)
	for _, s := range []string{`games/00000101={"v":1,"board":101,"game":"tictactoe",`, `games/00000102={"v":1,"board":102,"game":"lyngk","variant":"standard",`} {
		if !strings.Contains(games, s) {
			t.Errorf("no %s in\n%s", s, games)
		}
	}
	users := v.dump(store.BucketUsers)
	if !strings.Contains(users, `"created":"2026-11-21T22:52:00Z","games":{"tictactoe":{"rating":`) {
		t.Errorf("users:\n%s\nbefore:\n%s", users, before)
	}
	view := func(fn func(engine.Tx) error) {
		if err := v.db.View(func(tx *store.Tx) error { return fn(tx) }); err != nil {
			t.Fatal(err)
		}
	}
	view(func(tx engine.Tx) error {
		st, err := v.e.Standings(tx, "tictactoe")
		if err != nil || len(st) != 1 || st[0].ID != "alice" || st[0].Won != 1 || st[0].Lost != 2 {
			t.Errorf("tictactoe standings %+v, %v", st, err)
		}
		if st, err := v.e.Standings(tx, "lyngk"); err != nil || len(st) != 0 {
			t.Errorf("lyngk standings %+v, %v", st, err)
		}
		d, err := v.e.ReadGame(tx, 101)
		if err != nil || d.Game != "tictactoe" || d.Status != engine.StatusWon || d.Winner != 1 {
			t.Errorf("ReadGame 101: %+v, %v", d, err)
		}
		infos, err := engine.Games(tx)
		if err != nil || len(infos) < 2 || !strings.HasPrefix(infos[0].String(), "101 tictactoe standard alice-bob 5 moves won by alice") ||
			!strings.HasPrefix(infos[1].String(), "102 lyngk standard bob-alice") {
			t.Errorf("admin listing: %v, %v", infos, err)
		}
		j, err := d.JSON()
		if err != nil || j.Field("cells") == nil {
			t.Errorf("JSON: %+v, %v", j, err)
		}
		return nil
	})
}

// TestTestGameRobot: the robot plays only the games that bring a robot: a
// challenge of it to the test game, which has none, is refused and starts
// nothing; LYNGK's is taken.
func TestTestGameRobot(t *testing.T) {
	v := newEnv(t, withTicTacToe, func(c *engine.Config) { c.RobotPlayer = true })
	v.signup("alice")
	want(t, "robot, tic-tac-toe", v.cmd(addr("alice"), "tictactoe challenge robot alice"), 1, "PBeM Server error",
		"robot does not play Tictactoe: challenge another player.")
	if games := v.dump(store.BucketGames); games != "" {
		t.Errorf("a game was started:\n%s", games)
	}
	if out := v.cmd(addr("alice"), "lyngk challenge alice robot"); len(out) != 1 || out[0].Subject != "New Lyngk Board 101 alice" {
		t.Errorf("robot, LYNGK:\n%s", format(out))
	}
}

// TestGameTextsRequired: a game offered without one of its texts
// (templates GAME.NAME) is refused at start, naming what is missing; the
// old main took it and wrote "" in place of each. With the texts it is
// taken.
func TestGameTextsRequired(t *testing.T) {
	set, err := templates.Load("")
	if err != nil {
		t.Fatal(err)
	}
	cfg := engine.Config{Games: append(offered(), gamestest.TicTacToe), Server: robot, Templates: set}
	_, err = engine.New(cfg)
	if err == nil || !strings.Contains(err.Error(), `game "tictactoe" has no template tictactoe.options, tictactoe.options-help, tictactoe.help, `) ||
		!strings.Contains(err.Error(), "(templates/tictactoe.tmpl)") {
		t.Errorf("New without the game's texts: %v", err)
	}
	partial, err := set.With(`{{define "tictactoe.options"}}{{end}}{{define "tictactoe.help"}}Three in a row.{{end}}`)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Templates = partial
	if _, err = engine.New(cfg); err == nil || !strings.Contains(err.Error(), "has no template tictactoe.options-help, tictactoe.about,") {
		t.Errorf("New with some of the game's texts: %v", err)
	}
	if cfg.Templates, err = set.With(gamestest.Texts); err != nil {
		t.Fatal(err)
	}
	if _, err := engine.New(cfg); err != nil {
		t.Errorf("New with the game's texts: %v", err)
	}
}
