package main

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
)

// e2eBoardMail is what a board mail (SPEC §4) says about its game.
type e2eBoardMail struct {
	New    bool
	Board  int
	ToMove string   // from the subject; empty when the game is over
	Status string   // "It is bob's turn.", "Game won by alice.", …
	First  int      // number of the first move listed: a long game shows only its last rows
	Moves  []string // the moves listed, passes as "--"
	Block  string   // the board block, as lyngk.Game.Board prints it
}

// count is the number of moves made, including those not listed.
func (b *e2eBoardMail) count() int { return b.First - 1 + len(b.Moves) }

var (
	e2eSubjectRE = regexp.MustCompile(`^(New )?Lyngk Board (\d+)(?: (\S+))?(?: \*\*)? *$`)
	e2eStatusRE  = regexp.MustCompile(`^(It is \S+'s turn\.|Please start the game \S+\.|Game won by \S+\.|Game was a tie\.)$`)
	e2eMoveRE    = regexp.MustCompile(`(\d+) (\S+)`)
)

// e2eFooter is the last line of every board block.
const e2eFooter = "   1   1   1   1   1   1   1   1   1\n"

var errE2ENotBoard = errors.New("e2e: not a board mail")

// e2eParseBoardMail reads a board mail: subject, status line, the
// two-column move list (first line of 26 spaces, then the names) and the
// board block.
func e2eParseBoardMail(subject, body string) (e2eBoardMail, error) {
	var b e2eBoardMail
	sm := e2eSubjectRE.FindStringSubmatch(subject)
	if sm == nil || sm[3] == "Error" {
		return b, errE2ENotBoard
	}
	b.New = sm[1] != ""
	b.Board, _ = strconv.Atoi(sm[2])
	b.ToMove = sm[3]
	lines := strings.Split(body, "\n")
	i := slices.IndexFunc(lines, func(l string) bool { return e2eStatusRE.MatchString(l) })
	if i < 0 {
		return b, fmt.Errorf("e2e: board mail without a status line:\n%s", body)
	}
	b.Status = lines[i]
	b.First = 0
	for i < len(lines) && lines[i] != strings.Repeat(" ", 26) {
		i++
	}
	if i+2 > len(lines) {
		return b, fmt.Errorf("e2e: board mail without a move list:\n%s", body)
	}
	for _, l := range lines[i+2:] {
		if strings.TrimSpace(l) == "" {
			break
		}
		for _, m := range e2eMoveRE.FindAllStringSubmatch(l, -1) {
			n, _ := strconv.Atoi(m[1])
			if b.First == 0 {
				b.First = n
			}
			if n != b.First+len(b.Moves) {
				return b, fmt.Errorf("e2e: move list numbers %d where %d belongs:\n%s", n, b.First+len(b.Moves), body)
			}
			b.Moves = append(b.Moves, m[2])
		}
	}
	if b.First == 0 {
		b.First = 1
	}
	start := strings.Index(body, "\nStack6 Mode\n")
	if start < 0 {
		start = strings.Index(body, "\nAvailable Colors: (")
	}
	if start < 0 {
		return b, fmt.Errorf("e2e: board mail without a board block:\n%s", body)
	}
	end := strings.Index(body[start:], e2eFooter)
	if end < 0 {
		return b, fmt.Errorf("e2e: board block without its footer:\n%s", body)
	}
	b.Block = body[start+1 : start+end+len(e2eFooter)]
	return b, nil
}

// e2ePlayer is a scripted player: a lyngk account and the mailbox it reads.
type e2ePlayer struct {
	user, password string
	addr           string // where the robot writes to the player
	box            *e2eMailbox
}

// e2eGame is the test's own copy of a game: the engine says what each board
// mail must show.
type e2eGame struct {
	env     *e2eEnv
	board   int
	players [2]*e2ePlayer // challenge order: players[0] moves first
	g       lyngk.Game
	rnd     *rand.Rand
	last    [2]*e2eMail // the latest board mail of each player
	sent    []string    // the moves sent, in order
}

func (gm *e2eGame) names() [2]string { return [2]string{gm.players[0].user, gm.players[1].user} }

// wantStatus is the status line of SPEC §4 for the current position.
func (gm *e2eGame) wantStatus() string {
	names := gm.names()
	switch gm.g.Status() {
	case games.Won:
		return "Game won by " + names[gm.g.Winner()-1] + "."
	case games.Tie:
		return "Game was a tie."
	}
	if gm.g.MoveCount() == 0 {
		return "Please start the game " + names[gm.g.Turn()-1] + "."
	}
	return "It is " + names[gm.g.Turn()-1] + "'s turn."
}

func (gm *e2eGame) wantMoves() []string {
	var out []string
	for _, m := range gm.g.Moves() {
		out = append(out, m.String())
	}
	return out
}

// check compares a board mail with the test's copy of the game.
func (gm *e2eGame) check(m *e2eMail) error {
	b := m.board
	if m.boardErr != nil {
		return m.boardErr
	}
	var errs []error
	if b.Board != gm.board {
		errs = append(errs, fmt.Errorf("board %d, want %d", b.Board, gm.board))
	}
	want := gm.wantMoves()
	switch {
	case b.count() != len(want):
		errs = append(errs, fmt.Errorf("move list from %d: %q, want %q", b.First, b.Moves, want))
	case !slices.Equal(b.Moves, want[b.First-1:]):
		errs = append(errs, fmt.Errorf("move list from %d: %q, want %q", b.First, b.Moves, want[b.First-1:]))
	case gm.g.Status() != games.Playing && b.First != 1:
		errs = append(errs, fmt.Errorf("the final mail lists the moves from %d on, want the whole game", b.First))
	}
	if want := gm.wantStatus(); b.Status != want {
		errs = append(errs, fmt.Errorf("status %q, want %q", b.Status, want))
	}
	if want := gm.g.Board(gm.names()); b.Block != want {
		errs = append(errs, fmt.Errorf("board block:\n%s\nwant:\n%s", b.Block, want))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("board mail %q to %s: %w", m.Subject, m.To, err)
	}
	return nil
}

// boardMail matches the board mail to p that shows the current position: the
// move list has as many entries as the test's copy. Any error mail to p ends
// the wait.
func (gm *e2eGame) boardMail(p *e2ePlayer) func(*e2eMail) (bool, error) {
	n := gm.g.MoveCount()
	return func(m *e2eMail) (bool, error) {
		if m.To != p.addr {
			return false, nil
		}
		if m.isError() {
			return true, fmt.Errorf("error mail %q to %s:\n%s", m.Subject, m.To, m.Body)
		}
		if m.board.Board != gm.board {
			return false, nil
		}
		if m.boardErr != nil && !errors.Is(m.boardErr, errE2ENotBoard) {
			return true, fmt.Errorf("unreadable board mail %q to %s: %w", m.Subject, m.To, m.boardErr)
		}
		return m.boardErr == nil && m.board.count() == n, nil
	}
}

// await waits for p's board mail of the current position and checks it.
func (gm *e2eGame) await(p *e2ePlayer, d time.Duration) (*e2eMail, error) {
	m, err := p.box.find(d, gm.boardMail(p))
	if err != nil {
		return m, fmt.Errorf("board %d after %d moves, mail to %s: %w", gm.board, gm.g.MoveCount(), p.user, err)
	}
	if err := gm.check(m); err != nil {
		return m, err
	}
	gm.last[gm.index(p)] = m
	return m, nil
}

func (gm *e2eGame) index(p *e2ePlayer) int {
	if gm.players[0] == p {
		return 0
	}
	return 1
}

// pick chooses the next move: a seeded random pick among the legal moves
// (claim variants included), so a failing game replays the same way.
func (gm *e2eGame) pick() lyngk.Move {
	legal := gm.g.Legal(nil)
	// A fixed order, so that a seed always plays the same game.
	slices.SortFunc(legal, func(a, b lyngk.Move) int {
		return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To), cmp.Compare(a.Claim, b.Claim))
	})
	return legal[gm.rnd.IntN(len(legal))]
}

// e2eStyle is how a player sends a move.
type e2eStyle int

const (
	e2eSubjectCommand e2eStyle = iota // the full command in the Subject
	e2ePlainReply                     // Reply to the latest board mail, the move above the quote
	e2eBodyCommand                    // the full command with #n in the body
)

func (s e2eStyle) String() string {
	return [...]string{"subject command", "plain reply", "body command"}[s]
}

// moveMail writes the mail in which the player to move plays mv.
func (gm *e2eGame) moveMail(mv lyngk.Move, style e2eStyle) *e2eOut {
	p := gm.players[gm.g.Turn()-1]
	cmd := fmt.Sprintf("lyngk move %d %s %s %s", gm.board, p.user, p.password, mv)
	switch style {
	case e2ePlainReply:
		return e2eReply(p.addr, gm.last[gm.g.Turn()-1], mv.String())
	case e2eBodyCommand:
		return &e2eOut{From: p.addr, To: gm.env.robot(), Subject: "my move",
			Body: fmt.Sprintf("%s#%d\n", cmd, gm.g.MoveCount()+1)}
	}
	return &e2eOut{From: p.addr, To: gm.env.robot(), Subject: cmd, Body: "\n"}
}

// played applies mv to the test's copy after the mail is on its way, and
// returns who must get the next board mail: the player to move, or both
// when the game is over.
func (gm *e2eGame) played(mv lyngk.Move) ([]*e2ePlayer, error) {
	if err := gm.g.Apply(mv); err != nil {
		return nil, fmt.Errorf("e2e: the test's own copy of board %d refuses %v: %w", gm.board, mv, err)
	}
	gm.sent = append(gm.sent, mv.String())
	if gm.g.Status() != games.Playing {
		return gm.players[:], nil
	}
	return []*e2ePlayer{gm.players[gm.g.Turn()-1]}, nil
}

// signup registers p by mail, confirms the address as a player does, by
// replying to the confirmation mail, and waits for the welcome mail.
func (e *e2eEnv) signup(p *e2ePlayer, d time.Duration) error {
	m := &e2eOut{From: p.addr, To: e.robot(), Subject: fmt.Sprintf("signup %s %s", p.user, p.password), Body: "\n"}
	if err := e.submit(m); err != nil {
		return err
	}
	await := func(subject string) (*e2eMail, error) {
		return p.box.find(d, func(m *e2eMail) (bool, error) {
			if m.To != p.addr {
				return false, nil
			}
			if m.isError() || strings.Contains(strings.ToLower(m.Subject), "error") {
				return true, fmt.Errorf("signup %s: error mail %q:\n%s", p.user, m.Subject, m.Body)
			}
			return m.Subject == subject, nil
		})
	}
	ask, err := await("Confirm PBeM Server signup " + p.user)
	if err != nil {
		return err
	}
	if err := e.submit(e2eReply(p.addr, ask, "Yes, that is me.")); err != nil {
		return err
	}
	_, err = await("PBeM Server signup " + p.user)
	return err
}

// startGame signs up alice and bob, each watching their INBOX every
// interval, and starts a game of theirs that alice challenges, the test's
// copy playing with seed.
func (e *e2eEnv) startGame(tb testing.TB, interval time.Duration, seed uint64) (alice, bob *e2ePlayer, gm *e2eGame) {
	tb.Helper()
	alice = &e2ePlayer{user: "alice", password: "alice-pw", addr: e.addr("alice"),
		box: e.watch(tb, "alice", "INBOX", interval)}
	bob = &e2ePlayer{user: "bob", password: "bob-pw", addr: e.addr("bob"),
		box: e.watch(tb, "bob", "INBOX", interval)}
	for _, p := range []*e2ePlayer{alice, bob} {
		if err := e.signup(p, e2eMoveWait); err != nil {
			tb.Fatal(err)
		}
	}
	gm, err := e.challenge(alice, bob, seed, 0, e2eMoveWait)
	if err != nil {
		tb.Fatal(err)
	}
	return alice, bob, gm
}

// challenge starts a game between a and b by mail (sent by a) and waits for
// both new-game mails of a board numbered above after (the pair may have
// played before).
func (e *e2eEnv) challenge(a, b *e2ePlayer, seed uint64, after int, d time.Duration) (*e2eGame, error) {
	m := &e2eOut{From: a.addr, To: e.robot(), Subject: fmt.Sprintf("lyngk challenge %s %s", a.user, b.user), Body: "\n"}
	if err := e.submit(m); err != nil {
		return nil, err
	}
	gm := &e2eGame{env: e, players: [2]*e2ePlayer{a, b}}
	isNew := func(p *e2ePlayer, board int) func(*e2eMail) (bool, error) {
		return func(m *e2eMail) (bool, error) {
			if m.To != p.addr {
				return false, nil
			}
			if m.isError() {
				return true, fmt.Errorf("challenge: error mail %q to %s:\n%s", m.Subject, m.To, m.Body)
			}
			return m.boardErr == nil && m.board.New && m.board.ToMove == a.user &&
				m.board.Board > after && (board == 0 || m.board.Board == board), nil
		}
	}
	first, err := a.box.find(d, isNew(a, 0))
	if err != nil {
		return nil, fmt.Errorf("challenge %s %s: %w", a.user, b.user, err)
	}
	gm.board = first.board.Board
	gm.g = lyngk.New(gm.board, lyngk.Standard)
	gm.rnd = rand.New(rand.NewPCG(seed, uint64(gm.board)))
	second, err := b.box.find(d, isNew(b, gm.board))
	if err != nil {
		return nil, fmt.Errorf("challenge %s %s: %w", a.user, b.user, err)
	}
	for i, m := range []*e2eMail{first, second} {
		if err := gm.check(m); err != nil {
			return nil, err
		}
		gm.last[i] = m
	}
	return gm, nil
}

// e2eTally checks that every board mail reached its recipient exactly once
// and that no error mail came: mails are grouped by recipient, board and
// length of the move list. Copies that share a Message-ID are a resend of one
// outbox entry (possible when the robot was killed between the SMTP server's
// 250 and its own commit) and are allowed only when resends is true.
func e2eTally(tb testing.TB, mails []*e2eMail, resends bool) (boards int) {
	tb.Helper()
	type key struct {
		to         string
		board, len int
	}
	seen := map[key][]*e2eMail{}
	for _, m := range mails {
		if m.isError() {
			tb.Errorf("error mail %q to %s:\n%s", m.Subject, m.To, m.Body)
			continue
		}
		if m.boardErr != nil {
			continue
		}
		k := key{m.To, m.board.Board, m.board.count()}
		seen[k] = append(seen[k], m)
	}
	for k, ms := range seen {
		boards++
		if len(ms) == 1 {
			continue
		}
		for _, m := range ms[1:] {
			if m.MessageID != ms[0].MessageID {
				tb.Errorf("board %d after %d moves reached %s %d times with different Message-IDs (%s, %s)",
					k.board, k.len, k.to, len(ms), ms[0].MessageID, m.MessageID)
			} else if !resends {
				tb.Errorf("board %d after %d moves reached %s twice (Message-ID %s)", k.board, k.len, k.to, m.MessageID)
			} else {
				tb.Logf("board %d after %d moves reached %s twice with one Message-ID %s: a resend after SIGKILL",
					k.board, k.len, k.to, m.MessageID)
			}
		}
	}
	return boards
}
