package engine_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/store"
	"lyngk.example/lyngk/templates"
)

// TestPicturesForecast: the picture a move mail will show is forecast from
// a read transaction (nothing written, no bcrypt), drawn before the write
// transaction, and Handle then draws nothing: both players' mails carry
// that very picture, and the web's board.png of the position is the same
// bytes, not drawn again. A mail nobody forecast has its picture drawn
// inside, and counted there.
func TestPicturesForecast(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	v.cmd(addr("alice"), "lyngk move 101 alice pw-alice G,c1-d1")
	before0, inside0, web0 := v.e.PicturesDrawn()

	in := engine.Inbound{MessageID: "bob-move@players.example", From: addr("bob"), Subject: "lyngk move 101 bob pw-bob B,b1-b2"}
	stored := v.dump()
	ds := v.forecast(in)
	if len(ds) != 1 {
		t.Fatalf("forecast %d pictures, want 1 (both players' mails show the same position)", len(ds))
	}
	if v.dump() != stored {
		t.Error("the forecast changed the store")
	}
	if err := v.e.Draw(ds[0]); err != nil {
		t.Fatal(err)
	}
	out := v.mail(in)
	before, inside, web := v.e.PicturesDrawn()
	if before != before0+1 || inside != inside0 || web != web0 {
		t.Errorf("pictures drawn before/inside/web: %d/%d/%d, want %d/%d/%d", before, inside, web, before0+1, inside0, web0)
	}
	var pics [][]byte
	for _, m := range out {
		if m.Picture != nil {
			pics = append(pics, m.Picture)
		}
	}
	if len(pics) != 2 || !bytes.Equal(pics[0], pics[1]) {
		t.Fatalf("%d board mails with a picture, want 2 with the same one", len(pics))
	}
	// The web's picture of the position: the same bytes, from memory.
	var png []byte
	var etag string
	if err := v.db.View(func(tx *store.Tx) error {
		d, err := v.e.ReadGame(tx, 101)
		if err != nil {
			return err
		}
		gm, err := d.Rules()
		if err != nil {
			return err
		}
		pos, err := d.Position(len(d.MoveList))
		if err != nil {
			return err
		}
		png, etag, err = v.e.PNG(gm, 101, pos, d.Players, nil)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(png, pics[0]) || len(etag) != 34 {
		t.Errorf("the web's picture differs from the mails' (etag %s)", etag)
	}
	if _, _, w := v.e.PicturesDrawn(); w != web0 {
		t.Errorf("the web drew %d pictures, want none", w-web0)
	}
	// Not forecast: drawn inside.
	v.cmd(addr("alice"), "lyngk move 101 alice pw-alice c2-c3")
	if _, inside, _ := v.e.PicturesDrawn(); inside != inside0+1 {
		t.Errorf("a mail not forecast drew %d pictures inside, want 1", inside-inside0)
	}
}

// TestForecastRunsNoBcrypt: after a restart the engine knows no password;
// forecasting a move mail then checks none (a forecast may miss the
// picture, never cost a bcrypt run) and leaves what Verify would make.
func TestForecastRunsNoBcrypt(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	v.restart()
	in := engine.Inbound{MessageID: "m@players.example", From: addr("alice"), Subject: "lyngk move 101 alice pw-alice G,c1-d1",
		Body: "change password alice pw-alice n3w-pw\n"}
	v.forecast(in)
	if n := v.e.InlineChecks(); n != 0 {
		t.Errorf("the forecast ran %d bcrypt checks", n)
	}
}

// TestForecastRobot: the robot's move is forecast like a mail: one
// picture (alice's board mail), nothing written, and RobotMove draws none.
func TestForecastRobot(t *testing.T) {
	v := newEnv(t, withRobot)
	v.signup("alice")
	v.cmd(addr("alice"), "lyngk challenge -stack6 robot alice")
	ts := v.robotTurns()
	if len(ts) != 1 {
		t.Fatalf("robot turns: %+v", ts)
	}
	start := lyngk.New(101, lyngk.Stack6)
	m := start.Legal(nil)[0]
	_, inside0, _ := v.e.PicturesDrawn()
	stored := v.dump()
	var ds []engine.Drawing
	if err := v.db.View(func(tx *store.Tx) error {
		ds = v.e.ForecastRobot(tx, ts[0], m, v.now)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(ds) != 1 || v.dump() != stored {
		t.Fatalf("forecast %d pictures (want 1); store changed: %t", len(ds), v.dump() != stored)
	}
	if err := v.e.Draw(ds[0]); err != nil {
		t.Fatal(err)
	}
	if out := v.robotMove(ts[0], m); len(out) != 1 || out[0].Picture == nil {
		t.Fatalf("after the robot's move:\n%s", format(out))
	}
	if _, inside, _ := v.e.PicturesDrawn(); inside != inside0 {
		t.Errorf("RobotMove drew %d pictures inside, want none", inside-inside0)
	}
}

// TestForecastSkipsBigMails: a body over 64 KB is not read a second time
// for its pictures.
func TestForecastSkipsBigMails(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	in := engine.Inbound{MessageID: "big@players.example", From: addr("alice"), Subject: "lyngk show 101",
		Body: strings.Repeat("x", 64<<10+1)}
	big := v.forecast(in)
	in.Body = strings.Repeat("x", 1000)
	small := v.forecast(in)
	if len(big) != 0 || len(small) != 1 {
		t.Errorf("forecast %d pictures for the big mail (want 0), %d for the small one (want 1)", len(big), len(small))
	}
}

// TestForecastPlay: a move on the play page is forecast like a mail: one
// picture, nothing written, and PlayToken draws none inside.
func TestForecastPlay(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	out := v.cmd(addr("alice"), "lyngk challenge alice bob")
	var tok string
	for _, m := range out {
		if m.To[0] == addr("alice") {
			tok = tokenOf(t, m)
		}
	}
	_, inside0, _ := v.e.PicturesDrawn()
	stored := v.dump()
	var ds []engine.Drawing
	if err := v.db.View(func(tx *store.Tx) error {
		ds = v.e.ForecastPlay(tx, tok, "G,c1-d1", v.now)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(ds) != 1 || v.dump() != stored {
		t.Fatalf("forecast %d pictures (want 1); store changed: %t", len(ds), v.dump() != stored)
	}
	if err := v.e.Draw(ds[0]); err != nil {
		t.Fatal(err)
	}
	if out, refused := v.playWeb(tok, "G,c1-d1"); refused != nil || len(out) != 2 {
		t.Fatalf("move on the play page: %v\n%s", refused, format(out))
	}
	if _, inside, _ := v.e.PicturesDrawn(); inside != inside0 {
		t.Errorf("PlayToken drew %d pictures inside, want none", inside-inside0)
	}
}

// TestForecastRendersNoText: a forecast lists the pictures of the mails
// without making their texts (the run that commits makes them): with a
// board mail's body template that fails, the forecast of a move still
// lists its picture, while the move itself fails. Before, the forecast
// rendered every mail as Handle does, a second run of the templates for
// each move (a quarter of the server's CPU a move with text mails).
func TestForecastRendersNoText(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	v.cmd(addr("alice"), "lyngk move 101 alice pw-alice G,c1-d1")
	src, err := os.ReadFile("../templates/board.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	const body = `{{- define "board.body"}}`
	if !bytes.Contains(src, []byte(body)) {
		t.Fatalf("templates/board.tmpl defines no %s", body)
	}
	dir := t.TempDir()
	broken := bytes.Replace(src, []byte(body), []byte(body+"{{.NoSuchField}}"), 1)
	if err := os.WriteFile(filepath.Join(dir, "board.tmpl"), broken, 0o644); err != nil {
		t.Fatal(err)
	}
	if v.cfg.Templates, err = templates.Load(dir); err != nil {
		t.Fatal(err)
	}
	v.restart()
	// A command with bob's password that renders no board mail: the
	// engine knows his password again (a forecast checks none itself).
	v.cmd(addr("bob"), "change format bob pw-bob html")
	in := engine.Inbound{MessageID: "bob-move@players.example", From: addr("bob"), Subject: "lyngk move 101 bob pw-bob B,b1-b2"}
	ds := v.forecast(in)
	if len(ds) != 1 {
		t.Errorf("forecast %d pictures with a failing board.body, want 1: the forecast rendered the mail", len(ds))
	}
	errRollback := errors.New("rolled back")
	if err := v.db.Update(func(tx *store.Tx) error {
		_, failed, err := v.e.Handle(tx, in, v.now)
		if err != nil {
			return err
		}
		if failed == nil {
			t.Error("the move's own run rendered a failing board.body without an error")
		}
		return errRollback
	}); !errors.Is(err, errRollback) {
		t.Fatal(err)
	}
}

// BenchmarkForecast is the forecast of a move mail (its picture listed,
// nothing drawn), for the CPU a move costs before its transaction.
func BenchmarkForecast(b *testing.B) {
	v := newEnv(b)
	v.signup("alice", "bob")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	v.cmd(addr("alice"), "lyngk move 101 alice pw-alice G,c1-d1")
	in := engine.Inbound{MessageID: "bob-move@players.example", From: addr("bob"), Subject: "lyngk move 101 bob pw-bob B,b1-b2"}
	if err := v.db.View(func(tx *store.Tx) error {
		for b.Loop() {
			if ds := v.e.Forecast(tx, in, v.now); len(ds) != 1 {
				b.Fatalf("forecast %d pictures, want 1", len(ds))
			}
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
}

// forecast is Forecast of in, in a read transaction of its own.
func (v *env) forecast(in engine.Inbound) []engine.Drawing {
	v.t.Helper()
	var ds []engine.Drawing
	if err := v.db.View(func(tx *store.Tx) error {
		ds = v.e.Forecast(tx, in, v.now)
		return nil
	}); err != nil {
		v.t.Fatal(err)
	}
	return ds
}
