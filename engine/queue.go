package engine

import (
	"errors"
	"fmt"
	"strings"

	"lyngk.example/lyngk/engine/games"
)

// queued is a move a player queued (GAME queue), to be played for him
// when it is his turn at move At (0: his next turn). It lives in its game's
// record, which only his own commands show (showas): the opponent never
// sees it before it is played.
type queued struct {
	Move string `json:"move"` // as written, without #n
	At   int    `json:"at,omitempty"`
}

// dropped is a queued move that could not be played, for its player's
// notice (queueNotices).
type dropped struct {
	board       int
	key         string
	move        string
	reason      string
	at, current int
}

// queue: GAME queue BOARD USERID PASSWORD MOVE[#N]. On the player's turn
// (and #N, if given, this move's number) it is a move; else the move is
// kept and played for him when his turn comes (at move N, if given): if it
// is legal then, else it is dropped and he is told why. A new queue
// command or a move of his replaces it; the end of the game drops it.
// Only one move is queued: a line of play (several moves, each kept while
// the opponent plays as expected) is not offered.
func (r *request) queue(c Command) error {
	g, u, err := r.gameAndUser(c)
	if err != nil {
		return err
	}
	key := strings.ToLower(u.ID)
	p, err := playing(g, u)
	if err != nil {
		return err
	}
	pos, err := r.e.position(g, -1)
	if err != nil {
		return err
	}
	text, num := c.Args[3], 0
	_, num, err = pos.Parse(text)
	var me *games.MoveError
	if errors.As(err, &me) && errors.Is(err, games.ErrNotation) {
		return refuse(whyNotation, kv{"Move": text, "Reason": me.Reason}).on(g.Board)
	} else if err != nil && !errors.As(err, &me) {
		return err
	}
	next := len(g.Moves) + 1
	if num != 0 && num < next {
		return refuse(whyMoveNumber, kv{"Given": num, "Want": next}).on(g.Board)
	}
	if pos.Turn() == p && (num == 0 || num == next) {
		return r.play(g, u, text)
	}
	if i := strings.LastIndex(text, "#"); i > 0 {
		text = text[:i]
	}
	if g.Queued == nil {
		g.Queued = map[string]queued{}
	}
	g.Queued[key] = queued{Move: text, At: num}
	if err := r.saveGame(g); err != nil {
		return err
	}
	return r.mail("queued", []string{r.in.From}, kv{"Board": g.Board, "Title": r.e.games[g.Game].Title(),
		"Move": text, "At": num})
}

// playQueued plays, after a change recorded on pos (a replay of g), the
// move the player to move queued, if any is due: legal, it is recorded as
// his move (and may bring the other player's queued move in turn); else
// it is dropped and r.drops notes why.
func (r *request) playQueued(g *game, pos games.Position) {
	if g.over() || pos.Turn() == 0 {
		return
	}
	key := strings.ToLower(g.Players[pos.Turn()-1])
	q, ok := g.Queued[key]
	next := len(g.Moves) + 1
	if !ok || q.At > next {
		return
	}
	delete(g.Queued, key)
	drop := dropped{board: g.Board, key: key, move: q.Move, at: q.At, current: next}
	if q.At != 0 && q.At < next {
		drop.reason = fmt.Sprintf("Your turn came at move %d, not %d.", next, q.At)
		r.drops = append(r.drops, drop)
		return
	}
	m, _, err := pos.Parse(q.Move)
	if err == nil {
		err = pos.Play(m)
	}
	if err != nil {
		drop.reason = err.Error()
		if me := new(games.MoveError); errors.As(err, &me) {
			drop.reason = me.Reason
		}
		r.drops = append(r.drops, drop)
		return
	}
	r.record(g, pos)
}

// queueNotices tells each player whose queued move on g was dropped.
func (r *request) queueNotices(g *game) error {
	for _, d := range r.drops {
		if d.board != g.Board {
			continue
		}
		u, ok, err := r.loadUser(d.key)
		if err != nil || !ok {
			return err
		}
		err = r.mailAbout("queue-dropped", kv{"Board": g.Board, "Title": r.e.games[g.Game].Title(),
			"Move": d.move, "Reason": d.reason, "User": u.ID}, envelope{to: u.Addresses, board: g.Board, key: d.key})
		if err != nil {
			return err
		}
	}
	return nil
}
