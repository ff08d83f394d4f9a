package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/mailer"
)

// robotDaemon is `lyngk serve` in local mode as a child process, so that
// it can be killed with SIGKILL.
type robotDaemon struct {
	t          *testing.T
	cmd        *exec.Cmd
	log        *lockedBuffer
	exited     chan error
	smtp, imap string // where its local mail service listens
}

func startRobotDaemon(t *testing.T, bin, conf, data string) *robotDaemon {
	t.Helper()
	d := &robotDaemon{t: t, log: &lockedBuffer{}, exited: make(chan error, 1)}
	d.cmd = exec.Command(bin, "serve", "-config", conf, "-data", data, "-local-smtp", anyPort, "-local-imap", anyPort,
		"-local-web", anyPort)
	d.cmd.Stdout, d.cmd.Stderr = d.log, d.log
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { d.exited <- d.cmd.Wait() }()
	d.smtp, d.imap = listenAddr(t, d.log, "smtp", d.exited), listenAddr(t, d.log, "imap", d.exited)
	waitListening(t, d.imap, d.exited)
	return d
}

// awaitLog waits for a log line matching re and returns how many lines
// match.
func (d *robotDaemon) awaitLog(re *regexp.Regexp, n int) {
	d.t.Helper()
	deadline := time.Now().Add(patience)
	for len(re.FindAllString(d.log.String(), -1)) < n {
		select {
		case err := <-d.exited:
			d.t.Fatalf("lyngk serve exited: %v\n%s", err, d.log.String())
		default:
		}
		if time.Now().After(deadline) {
			d.t.Fatalf("no %d log lines %q:\n%s", n, re, d.log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (d *robotDaemon) signal(s syscall.Signal) error {
	d.t.Helper()
	if err := d.cmd.Process.Signal(s); err != nil {
		d.t.Fatal(err)
	}
	select {
	case err := <-d.exited:
		return err
	case <-time.After(patience):
		d.t.Fatalf("lyngk serve did not stop on %v", s)
		return nil
	}
}

// boardOf reads the board block of a board mail: from the line of the free
// colours to the column footer.
func boardOf(t *testing.T, body string) lyngk.Game {
	t.Helper()
	i := strings.Index(body, "Available Colors: ")
	j := strings.Index(body, "\n   1   1   1   1   1   1   1   1   1\n")
	if i < 0 || j < i {
		t.Fatalf("no board in:\n%s", body)
	}
	g, _, err := lyngk.ParseBoard(body[i : j+38])
	if err != nil {
		t.Fatalf("%v in:\n%s", err, body)
	}
	return g
}

// adminMoves returns the move list of a game as `lyngk admin game N`
// prints it (through the daemon's control socket while it runs).
func adminMoves(t *testing.T, db string, board int) []string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run([]string{"admin", "-db", db, "game", fmt.Sprint(board)}, nil, &out, &errb); code != 0 {
		t.Fatalf("admin game %d: exit %d: %s", board, code, errb.String())
	}
	var moves []string
	for _, m := range regexp.MustCompile(`(?m)^ *(\d+) (\S+)$`).FindAllStringSubmatch(out.String(), -1) {
		if m[1] != fmt.Sprint(len(moves)+1) {
			t.Fatalf("admin game %d: move list out of order:\n%s", board, out.String())
		}
		moves = append(moves, m[2])
	}
	return moves
}

// TestServeLocalRobotGame plays a whole game against the robot player by
// mail, in local mode, through `lyngk serve` as a child process: alice
// challenges the robot and answers every board mail with a plain reply.
// While the robot thinks about its first move the daemon is killed with
// SIGKILL; restarted, the robot thinks again and the move is made exactly
// once. Every robot move brings alice exactly one board mail, the robot
// gets none (it has no mailbox), and the finished game puts the robot in
// the standings.
func TestServeLocalRobotGame(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and plays a whole game")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "lyngk")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	slow, fast := filepath.Join(dir, "slow.conf"), filepath.Join(dir, "fast.conf")
	// The first daemon thinks for a minute: the kill surely lands while
	// it thinks. The second thinks 200 ms a move.
	for f, think := range map[string]string{slow: "60s", fast: "200ms"} {
		if err := os.WriteFile(f, []byte("robot_think = "+think+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	data := filepath.Join(dir, "data")
	db := filepath.Join(data, "lyngk.db")
	thinking := regexp.MustCompile(`msg="robot thinking" board=101`)

	d := startRobotDaemon(t, bin, slow, data)
	alice := localPlayer{t: t, name: "alice", smtp: d.smtp, imap: d.imap}
	alice.signup("Sesame-8zq", 0)
	alice.send("lyngk challenge alice robot", "", "")
	news := alice.await(3)
	start := boardOf(t, news.Body)
	first := start.Legal(nil)[0]
	alice.send("Re: "+news.Subject, first.String()+"\n\n> the board\n", news.MessageID)
	d.awaitLog(thinking, 1)
	// Her copy of her move leaves before the kill: the kill is to hit the
	// robot, not the outbox (whose own crash tests are elsewhere).
	alice.await(4)
	for deadline := time.Now().Add(patience); ; time.Sleep(50 * time.Millisecond) {
		var out, errb bytes.Buffer
		if run([]string{"admin", "-db", db, "outbox"}, nil, &out, &errb) == 0 && strings.HasPrefix(out.String(), "0 queued") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("outbox not empty: %s%s", out.String(), errb.String())
		}
	}
	if err := d.signal(syscall.SIGKILL); err == nil {
		t.Fatal("lyngk serve survived SIGKILL")
	}
	if got := adminMoves(t, db, 101); len(got) != 1 || got[0] != first.String() {
		t.Fatalf("after the kill the game holds %v, want alice's move alone", got)
	}

	d = startRobotDaemon(t, bin, fast, data)
	alice.smtp, alice.imap = d.smtp, d.imap
	defer func() {
		if d.cmd.ProcessState == nil {
			_ = d.cmd.Process.Kill()
		}
	}()
	names := [2]string{"alice", "robot"}
	// Alice answers each board mail that says it is her turn, choosing her
	// move from the board in it, until a mail says the game is over. The
	// mails of before the kill (signup, new game, the copy of her first
	// move) say neither.
	defer func() {
		if t.Failed() {
			var out, errb bytes.Buffer
			run([]string{"admin", "-db", db, "outbox"}, nil, &out, &errb)
			t.Logf("daemon log:\n%s\noutbox:\n%s%s", d.log.String(), out.String(), errb.String())
		}
	}()
	handled := map[string]bool{}
	over := false
	for !over {
		mails := alice.inbox()
		for _, m := range mails {
			if handled[m.MessageID] || over {
				continue
			}
			handled[m.MessageID] = true
			switch {
			case strings.Contains(m.Body, "Game won by") || strings.Contains(m.Body, "Game was a tie."):
				over = true
			case m.Subject == "Lyngk Board 101 alice":
				pos := boardOf(t, m.Body)
				pos.SetTurn(1)
				legal := pos.Legal(nil)
				mv := legal[len(handled)%len(legal)]
				alice.send("Re: "+m.Subject, mv.String()+"\n", m.MessageID)
			}
		}
		if !over {
			alice.await(len(mails) + 1)
		}
	}

	alice.send("lyngk standings", "", "")
	var standings mailer.Inbound
	for n := len(alice.inbox()); ; n++ {
		if standings = alice.await(n); strings.HasPrefix(standings.Subject, "Lyngk standings") {
			break
		}
	}
	if !strings.Contains(standings.Body, "robot") || !strings.Contains(standings.Body, "alice") {
		t.Fatalf("standings without the robot:\n%s", standings.Body)
	}
	// Mail to one address leaves in order: all board mails are in.
	final := alice.inbox()
	if err := d.signal(syscall.SIGTERM); err != nil {
		t.Fatalf("lyngk serve after SIGTERM: %v\n%s", err, d.log.String())
	}
	moves := adminMoves(t, db, 101)
	if pos := replay(t, moves); pos.Status() == games.Playing || len(moves) < 3 || moves[1] == "--" || moves[0] != first.String() {
		t.Fatalf("the game does not go on from alice's first move and the robot's answer to its end: %v", moves)
	}

	// Exactly once: alice got one board mail for each move from the
	// robot's first on (a pass comes with the move before it), and no
	// board mail of a position the game never had. The new-game mail and
	// the copy of her first move date from before the kill.
	var positions []string
	for k := range len(moves) + 1 {
		pos := replay(t, moves[:k])
		positions = append(positions, pos.Board(names))
	}
	seen := make([]int, len(positions))
	for _, m := range final {
		if !strings.HasPrefix(m.Subject, "Lyngk Board 101") {
			continue
		}
		k := slices.IndexFunc(positions, func(b string) bool { return strings.Contains(m.Body, b) })
		if k < 0 {
			t.Fatalf("board mail %q shows a position the game never had:\n%s", m.Subject, m.Body)
		}
		seen[k]++
	}
	for k := 2; k <= len(moves); k++ {
		if want := 1; moves[k-1] != "--" && seen[k] != want {
			t.Errorf("the position after move %d (%s) came in %d board mails, want 1", k, moves[k-1], seen[k])
		}
	}
	t.Logf("game over after %d moves: %v", len(moves), moves)
}

// replay plays a stored move list from the start of board 101.
func replay(t *testing.T, moves []string) lyngk.Game {
	t.Helper()
	pos := lyngk.New(101, lyngk.Standard)
	for _, s := range moves {
		m, _, err := lyngk.ParseMove(s)
		if err != nil {
			t.Fatalf("stored move %q: %v", s, err)
		}
		if m.IsPass() {
			continue
		}
		if err := pos.Apply(m); err != nil {
			t.Fatalf("stored move %s: %v", s, err)
		}
	}
	return pos
}

// TestRobotOneSearchPerCore starts four games in which the robot moves
// first, with one mail: the daemon thinks about at most one game per core
// at once (the others wait their turn), uses every core, and moves in
// each game once.
func TestRobotOneSearchPerCore(t *testing.T) {
	dir := t.TempDir()
	cfg := defaultConfig()
	cfg.DataDir = filepath.Join(dir, "data")
	cfg.RobotThink = 300 * time.Millisecond
	s := startServe(t, cfg)
	smtpAddr, imapAddr, logs := s.smtp, s.imap, s.logs
	alice := localPlayer{t: t, name: "alice", smtp: smtpAddr, imap: imapAddr}
	alice.signup("Sesame-8zq", 0)
	const games = 4
	alice.send("multiple", strings.Repeat("lyngk challenge robot alice\n", games), "")
	// One new-game mail and one board mail with the robot's move per game.
	alice.await(2 + 2*games)

	s.stop(t)
	running, most := 0, 0
	movedIn := map[string]int{}
	for _, line := range strings.Split(logs.String(), "\n") {
		switch {
		case strings.Contains(line, `msg="robot thinking"`):
			running++
			most = max(most, running)
		case strings.Contains(line, `msg="robot moved"`):
			running--
			movedIn[regexp.MustCompile(`board=\d+`).FindString(line)]++
		}
	}
	if want := min(games, runtime.NumCPU()); most != want {
		t.Errorf("at most %d searches ran at once, want %d (cores: %d):\n%s", most, want, runtime.NumCPU(), logs.String())
	}
	if len(movedIn) != games {
		t.Errorf("the robot moved in %d games, want %d: %v", len(movedIn), games, movedIn)
	}
	for b, n := range movedIn {
		if n != 1 {
			t.Errorf("%s: the robot moved %d times, want once", b, n)
		}
	}
}

// TestRobotUnmovedPerHour: "lyngk challenge robot alice" from anybody costs
// a search each (2 s of robot CPU at the default think time). With
// robot_unmoved_per_hour 2, of five such games sent by a stranger the
// robot thinks about two within the hour, while a game alice moved in is
// answered at once.
func TestRobotUnmovedPerHour(t *testing.T) {
	dir := t.TempDir()
	cfg := defaultConfig()
	cfg.DataDir = filepath.Join(dir, "data")
	cfg.RobotThink = 50 * time.Millisecond
	cfg.RobotUnmovedPerHour = 2
	s := startServe(t, cfg)
	smtpAddr, imapAddr, logs := s.smtp, s.imap, s.logs
	alice := localPlayer{t: t, name: "alice", smtp: smtpAddr, imap: imapAddr}
	mallory := localPlayer{t: t, name: "mallory", smtp: smtpAddr, imap: imapAddr}
	alice.signup("Sesame-8zq", 0)
	mallory.send("multiple", strings.Repeat("lyngk challenge robot alice\n", 5), "")
	alice.send("lyngk challenge alice robot", "", "")
	var start mailer.Inbound
	for deadline := time.Now().Add(patience); start.Subject == ""; time.Sleep(20 * time.Millisecond) {
		for _, m := range alice.inbox() {
			if m.Subject == "New Lyngk Board 106 alice" {
				start = m
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("no new-game mail for board 106")
		}
	}
	g := lyngk.New(106, lyngk.Standard)
	mv := g.Legal(nil)[0]
	alice.send("Re: "+start.Subject, mv.String()+"\n", start.MessageID)
	moved := regexp.MustCompile(`msg="robot moved" board=(\d+)`)
	for deadline := time.Now().Add(patience); !strings.Contains(logs.String(), `msg="robot moved" board=106`); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the robot did not answer alice's move:\n%s", logs.String())
		}
	}
	var boards []string
	for _, m := range moved.FindAllStringSubmatch(logs.String(), -1) {
		boards = append(boards, m[1])
	}
	slices.Sort(boards)
	if !slices.Equal(boards, []string{"101", "102", "106"}) {
		t.Errorf("the robot moved in boards %v, want 101 102 106", boards)
	}
}

// TestRobotUnmovedLevelCPU: the hourly bound on searches for games nobody
// has moved in counts each search at its level's CPU. With two searches of
// robot's 2 s an hour (2.2 s of CPU each), robot-max's 10 s search runs as
// the first of the window and then nothing more does; forty-four
// robot-novice searches of at most 0.1 s fit; a game a human moved in is
// never held back; the next hour opens a new window.
func TestRobotUnmovedLevelCPU(t *testing.T) {
	level := func(id string) engine.RobotLevel {
		i := slices.IndexFunc(engine.RobotLevels, func(l engine.RobotLevel) bool { return l.ID == id })
		return engine.RobotLevels[i]
	}
	turn := func(id string, unmoved bool) engine.RobotTurn {
		return engine.RobotTurn{Level: level(id), Unmoved: unmoved}
	}
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	p := newRobotPlayer(nil, 2*time.Second, 2)
	defer func() {
		if p.unmovedTimer != nil {
			p.unmovedTimer.Stop()
		}
	}()
	if !p.mayThink(turn("robot-max", true), now) {
		t.Fatal("the first search of the window was held back")
	}
	for _, id := range []string{"robot-max", "robot-novice", "robot"} {
		if p.mayThink(turn(id, true), now.Add(time.Minute)) {
			t.Errorf("%s thought after 10 s of a 4 s budget", id)
		}
	}
	if !p.mayThink(turn("robot-max", false), now.Add(time.Minute)) {
		t.Error("a game a human moved in was held back")
	}
	now = now.Add(time.Hour)
	n := 0
	for p.mayThink(turn("robot-novice", true), now) && n < 1000 {
		n++
	}
	if want := int(2 * level("robot").CPU / level("robot-novice").CPU); n != want {
		t.Errorf("%d robot-novice searches in 4 s of CPU, want %d", n, want)
	}
}

// TestRobotLevelThinks: the daemon thinks for each level at its own
// budget: robot-novice, challenged to start, moves after its 100 playouts
// (one worker), whatever robot_think says.
func TestRobotLevelThinks(t *testing.T) {
	dir := t.TempDir()
	cfg := defaultConfig()
	cfg.DataDir = filepath.Join(dir, "data")
	cfg.RobotThink = time.Hour
	s := startServe(t, cfg)
	smtpAddr, imapAddr, logs := s.smtp, s.imap, s.logs
	alice := localPlayer{t: t, name: "alice", smtp: smtpAddr, imap: imapAddr}
	alice.signup("Sesame-8zq", 0)
	alice.send("lyngk challenge robot-novice alice", "", "")
	// The new-game mail and the board mail with robot-novice's move.
	if m := alice.await(4); m.Subject != "Lyngk Board 101 alice" {
		t.Fatalf("after robot-novice's move: %q", m.Subject)
	}
	s.stop(t)
	if !regexp.MustCompile(`msg="robot moved" board=101 level=robot-novice move=\S+ playouts=100 `).MatchString(logs.String()) {
		t.Errorf("robot-novice did not move after 100 playouts:\n%s", logs.String())
	}
}
