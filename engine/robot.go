package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"lyngk.example/lyngk/engine/games"
)

// RobotID is the userid of the built-in robot player (Config.RobotPlayer):
// an account without password or address that anybody may challenge. The
// engine keeps the list of games waiting for its move; the caller thinks
// (a game's robot, games.Robot) outside any transaction and plays the move with
// RobotMove in a transaction of its own.
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

// robotUser returns the robot's account, creating it when the robot plays
// and nobody holds the userid. ok is false when there is no robot.
func (r *request) robotUser() (*user, bool, error) {
	u, ok, err := r.loadUser(RobotID)
	if err != nil || ok || !r.e.cfg.RobotPlayer {
		return u, ok && u.Robot, err
	}
	u = &user{ID: RobotID, Robot: true, Created: r.now}
	return u, true, r.saveUser(u)
}

// isRobot reports whether the userid key names the robot's account.
func (r *request) isRobot(id string) (bool, error) {
	if !strings.EqualFold(id, RobotID) {
		return false, nil
	}
	u, ok, err := r.loadUser(id)
	return ok && u.Robot, err
}

// indexRobot keeps bucket robot in step with g: a running game where the
// robot is to move has a record, every other game none. saveGame calls it,
// so the index changes in the transaction that changes the game.
func (r *request) indexRobot(g *game) error {
	if !slices.ContainsFunc(g.Players[:], func(p string) bool { return strings.EqualFold(p, RobotID) }) {
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

// RobotTurn is a game waiting for the robot's move: the position to think
// about, and what RobotMove checks before it plays.
type RobotTurn struct {
	Board    int
	Robot    games.Robot // the game's robot
	Position games.Position
	// Unmoved says no human has moved in the game yet: anybody may start
	// such a game, so the daemon bounds the thinking for them.
	Unmoved bool
	moves   []string
}

// RobotTurns returns the games waiting for the robot's move, in board
// order. It reads only the index and those games.
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
		human := 1
		if g.player(RobotID) == 1 {
			human = 2
		}
		out = append(out, RobotTurn{Board: n, Robot: gm.Robot, Position: pos, Unmoved: !g.moved(human),
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
