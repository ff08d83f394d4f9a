package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"lyngk.example/lyngk/engine/games"
)

// RobotID is the userid of the built-in robot player of old, the default
// of the levels (RobotLevels): with Config.RobotPlayer each level on is
// an account without password or address that anybody may challenge. The
// engine keeps the list of games waiting for a robot's move; the caller
// thinks (a game's robot, games.Robot, at the level's budget) outside any
// transaction and plays the move with RobotMove in a transaction of its own.
const RobotID = "robot"

// bucketRobot indexes the games waiting for the robot's move (store.BucketRobot).
const bucketRobot = "robot"

// robotWait is a record of bucket robot, keyed like the game: the game is
// waiting for the robot's move since it had Moves moves.
type robotWait struct {
	V     int `json:"v"`
	Moves int `json:"moves"`
}

func (w *robotWait) version() int { return w.V }

// RobotLevel is one robot player: an account the daemon thinks for at a
// budget of its own, so that a beginner finds one he can beat and a strong
// player one he cannot. Each level is a player of its own in the standings,
// with its own rating.
type RobotLevel struct {
	ID string // its userid
	// About says in a sentence what it is like to play: `help robot`, the
	// web's player page.
	About string
	// Think is its search's budget a move: Playouts (load-independent, the
	// same move for the same seed) or Time. The daemon sets Workers (one)
	// and Seed.
	Think games.Think
	// CPU is the most CPU a move it is stated to take: what the strength
	// benchmark checks every move against, and what a search costs
	// against the daemon's hourly bound for games nobody has moved in. For
	// a level that thinks a Time (of the clock, one worker) it is
	// ThinkCPU(Time): the search's time and the garbage collector's share
	// beside it.
	CPU time.Duration
}

// ThinkCPU is the CPU stated for a search of think of the clock with one
// worker: think, and a tenth more for the garbage collector, which marks
// on another core while the search allocates its tree.
func ThinkCPU(think time.Duration) time.Duration { return think + think/10 }

// Budget is the level's thinking as the help and the web page write it.
func (l RobotLevel) Budget() string {
	if l.Think.Playouts > 0 {
		return fmt.Sprintf("%d playouts a move (at most %v)", l.Think.Playouts, l.CPU)
	}
	return fmt.Sprintf("%v a move", l.Think.Time)
}

// RobotLevels are the levels a server may offer, weakest first; the
// operator chooses among them (Config.RobotLevels, the setting
// robot_levels). RobotID is the robot of old, the default level: its think
// time is the setting robot_think (2 s unless set). The steps between
// levels are about tenfold in playouts, and fivefold at the top, where
// more time helps least; the two lowest count playouts, so that they are
// as strong on a busy server as on an idle one.
var RobotLevels = []RobotLevel{
	{ID: "robot-novice", About: "A beginner: it sees the obvious and misses the rest.",
		Think: games.Think{Playouts: 100}, CPU: 100 * time.Millisecond},
	{ID: "robot-club", About: "A club player: few plain mistakes, but it can be outplayed.",
		Think: games.Think{Playouts: 1500}, CPU: 500 * time.Millisecond},
	{ID: RobotID, About: "The default: a solid player for everyday games.",
		Think: games.Think{Time: 2 * time.Second}, CPU: ThinkCPU(2 * time.Second)},
	{ID: "robot-max", About: "The strongest: it thinks longest and is the hardest to beat.",
		Think: games.Think{Time: 10 * time.Second}, CPU: ThinkCPU(10 * time.Second)},
}

// robotLevel returns the level of userid id when the robot players play
// and that level is on.
func (e *Engine) robotLevel(id string) (RobotLevel, bool) {
	if !e.cfg.RobotPlayer {
		return RobotLevel{}, false
	}
	for _, l := range e.cfg.RobotLevels {
		if strings.EqualFold(l.ID, id) {
			return l, true
		}
	}
	return RobotLevel{}, false
}

// robotOn reports whether id is the userid of a level on: nobody may sign
// up as it.
func (e *Engine) robotOn(id string) bool {
	_, ok := e.robotLevel(id)
	return ok
}

// robotIDs are the userids of the levels on, for a refusal: "a, b or c".
func (e *Engine) robotIDs() string {
	var ids []string
	for _, l := range e.cfg.RobotLevels {
		ids = append(ids, l.ID)
	}
	if len(ids) < 2 {
		return strings.Join(ids, "")
	}
	return strings.Join(ids[:len(ids)-1], ", ") + " or " + ids[len(ids)-1]
}

// robotName reports whether id may name a robot's account: a level on, or
// one of RobotLevels (an account made while its level was on stays a
// robot's when the operator turns the level off). Only such userids are
// looked up as robots.
func (e *Engine) robotName(id string) bool {
	has := func(l RobotLevel) bool { return strings.EqualFold(l.ID, id) }
	return slices.ContainsFunc(e.cfg.RobotLevels, has) || slices.ContainsFunc(RobotLevels, has)
}

// aboutRobot is the level of a robot's account for the help and the web:
// the one on, else the catalogue's (a level turned off).
func (e *Engine) aboutRobot(id string) (RobotLevel, bool) {
	if l, ok := e.robotLevel(id); ok {
		return l, true
	}
	i := slices.IndexFunc(RobotLevels, func(l RobotLevel) bool { return strings.EqualFold(l.ID, id) })
	if i < 0 {
		return RobotLevel{}, false
	}
	return RobotLevels[i], true
}

// robotUser returns the account of level id, creating it when the level is
// on and nobody holds the userid; a human who holds it keeps it (ok is
// false then, as when the level is off).
func (r *request) robotUser(id string) (*user, bool, error) {
	l, on := r.e.robotLevel(id)
	u, ok, err := r.loadUser(id)
	if err != nil || !on {
		return nil, false, err
	}
	if ok {
		return u, u.Robot, nil
	}
	u = &user{ID: l.ID, Robot: true, Created: r.now}
	return u, true, r.saveUser(u)
}

// isRobot reports whether the userid key names a robot's account.
func (r *request) isRobot(id string) (bool, error) {
	if !r.e.robotName(id) {
		return false, nil
	}
	u, ok, err := r.loadUser(id)
	return ok && u.Robot, err
}

// indexRobot keeps bucket robot in step with g: a running game where a
// robot is to move has a record, every other game none. saveGame calls it,
// so the index changes in the transaction that changes the game.
func (r *request) indexRobot(g *game) error {
	if !slices.ContainsFunc(g.Players[:], r.e.robotName) {
		return nil
	}
	waiting := false
	if !g.over() {
		pos, err := r.e.position(g, -1)
		if err != nil {
			return err
		}
		if waiting, err = r.isRobot(g.Players[pos.Turn()-1]); err != nil {
			return err
		}
	}
	key := gameKey(g.Board)
	if !waiting {
		return r.tx.Delete(bucketRobot, key)
	}
	return save(r.tx, bucketRobot, key, &robotWait{V: recordVersion, Moves: len(g.Moves)})
}

// RobotTurn is a game waiting for a robot's move: the position to think
// about, and what RobotMove checks before it plays.
type RobotTurn struct {
	Board    int
	Robot    games.Robot // the game's robot
	Level    RobotLevel  // the robot player to move: its budget
	Position games.Position
	// Unmoved says no human has moved in the game yet: anybody may start
	// such a game, so the daemon bounds the thinking for them.
	Unmoved bool
	moves   []string
}

// RobotTurns returns the games waiting for a robot's move, in board
// order. It reads only the index and those games. A game of a level the
// operator turned off waits (players may resign) until it is on again.
func (e *Engine) RobotTurns(tx Tx) ([]RobotTurn, error) {
	r := &request{e: e, tx: tx}
	var boards []int
	err := tx.ForEach(bucketRobot, func(key string, _ []byte) error {
		n, err := boardNumber(strings.TrimLeft(key, "0"))
		if err != nil {
			return fmt.Errorf("engine: robot/%s: not a board number", key)
		}
		boards = append(boards, n)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []RobotTurn
	for _, n := range boards {
		g, ok, err := r.loadGame(n)
		if err != nil {
			return nil, err
		}
		if !ok || g.over() {
			continue
		}
		gm, err := e.gameOf(g)
		if err != nil {
			return nil, err
		}
		if gm.Robot == nil {
			continue
		}
		pos, err := e.position(g, -1)
		if err != nil {
			return nil, err
		}
		level, on := e.robotLevel(g.Players[pos.Turn()-1])
		if !on {
			continue
		}
		human := 3 - pos.Turn()
		out = append(out, RobotTurn{Board: n, Robot: gm.Robot, Level: level, Position: pos, Unmoved: !g.moved(human),
			moves: slices.Clone(g.Moves)})
	}
	return out, nil
}

// ErrRobotMove: the robot's move is not legal in the position it was
// thought for (a bug of the search, never the players' doing).
var ErrRobotMove = errors.New("engine: the robot's move is illegal")

// RobotMove plays m for the robot in the game of t and returns the board
// mails (none to the robot, which has no address). When the game has
// changed since t was read (the opponent resigned, a take-back or a draw
// was agreed) the move is stale: nothing happens and no mail is returned.
// So a move thought twice (a crash after the thinking, before the commit)
// is played once, and one lost in a crash is thought again, since the game
// still waits.
func (e *Engine) RobotMove(tx Tx, t RobotTurn, m games.Move, now time.Time) ([]Mail, error) {
	return e.robotMove(&request{e: e, tx: tx, now: now}, t, m)
}

// robotMove is RobotMove for r (ForecastRobot's runs on a copy).
func (e *Engine) robotMove(r *request, t RobotTurn, m games.Move) ([]Mail, error) {
	g, ok, err := r.loadGame(t.Board)
	if err != nil || !ok || g.over() || !slices.Equal(g.Moves, t.moves) {
		return nil, err
	}
	pos, err := e.position(g, -1)
	if err != nil {
		return nil, err
	}
	if robot, err := r.isRobot(g.Players[pos.Turn()-1]); err != nil || !robot {
		return nil, err
	}
	if err := pos.Play(m); err != nil {
		return nil, fmt.Errorf("%w: board %d, %v: %w", ErrRobotMove, t.Board, m, err)
	}
	g.Proposal = nil
	r.record(g, pos)
	if err := r.moved(g, nil, ""); err != nil {
		return nil, err
	}
	return r.out, nil
}

// robotAnswer answers at once a draw offer or a take-back request made to
// the robot (player p of g): it takes back any move of its opponent, and
// accepts a draw when its game's robot does (games.Robot.AcceptDraw;
// LYNGK's: unless it would win were the game counted now). Only the answer
// is mailed.
func (r *request) robotAnswer(g *game, p int) error {
	answer := "accept"
	if g.Proposal.Kind == proposeDraw {
		gm, err := r.e.gameOf(g)
		if err != nil {
			return err
		}
		pos, err := r.e.position(g, -1)
		if err != nil {
			return err
		}
		if gm.Robot != nil && !gm.Robot.AcceptDraw(pos, p) {
			answer = "reject"
		}
	}
	return r.propose(g, p, answer, nil)
}
