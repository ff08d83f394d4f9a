package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"lyngk.example/lyngk/engine/games"
)

// MaxPreviewMoves bounds the moves of one preview: each is a
// replay step of the rules, and the mail shows the board after the last.
const MaxPreviewMoves = 20

// maxMoveWords bounds the words of one move as a player writes it (LYNGK
// "R, b1-b2 #7", a YINSH turn): the table's bound on preview's arguments.
const maxMoveWords = 3

// submission is a move submitted and not yet confirmed (GAME submit): it
// is played by GAME confirm if the game has not changed since (Changes).
// It lives in its game's record, which only its player's commands read: the
// opponent never sees it (no mail, page or JSON shows it).
type submission struct {
	Move    string `json:"move"`
	Changes int    `json:"changes"` // game.Changes when submitted
}

// needPlayer refuses a command that the no-backscatter rule keeps from
// strangers: only an address confirmed for an account gets its answer.
func (r *request) needPlayer(name string) error {
	ok, err := r.confirmed(r.in.From)
	if err != nil || ok {
		return err
	}
	return refuse(whyPlayersOnly, kv{"Name": name})
}

// preview: GAME preview BOARD MOVE..., the board after the moves, mailed
// to the sender; nothing changes. Any player of the server may preview any
// game; the moves are played from the current position, each player's in
// turn, passes included as the rules make them.
func (r *request) preview(c Command) error {
	if err := r.needPlayer("preview"); err != nil {
		return err
	}
	g, err := r.game(c.Args[0])
	if err != nil {
		return err
	}
	gm, err := r.e.gameOf(g)
	if err != nil {
		return err
	}
	var moves []string
	for words := c.Args[1:]; len(words) > 0; {
		n := min(max(gm.MoveWords(words), 1), len(words))
		moves = append(moves, strings.Join(words[:n], ""))
		words = words[n:]
	}
	if len(moves) > MaxPreviewMoves {
		return refuse(whyPreviewLong, kv{"Max": MaxPreviewMoves, "N": len(moves)})
	}
	if g.over() {
		return refuse(whyGameOver, kv{"Board": g.Board}).on(g.Board)
	}
	pos, err := r.e.position(g, -1)
	if err != nil {
		return err
	}
	for _, s := range moves {
		if err := r.tryMove(g, pos, s, false); err != nil {
			return err
		}
	}
	u, err := r.sender(g)
	if err != nil {
		return err
	}
	notice, err := r.notice("preview", kv{"Move": strings.Join(moves, " ")})
	if err != nil {
		return err
	}
	return r.mailWhatIf("preview", g, pos, u, notice)
}

// tryMove plays move s on pos, a replay of g, refusing it as the move
// command does: bad notation, illegal, the game over before it; a #N is
// checked (and allowed only when num) against the move's number.
func (r *request) tryMove(g *game, pos games.Position, s string, num bool) error {
	n := len(pos.Moves()) + 1
	if pos.Outcome() != games.Playing {
		return refuse(whyPreviewOver, kv{"Board": g.Board, "Move": s, "N": n - 1})
	}
	m, given, err := pos.Parse(s)
	var me *games.MoveError
	if errors.As(err, &me) {
		return refuse(whyNotation, kv{"Move": s, "Reason": me.Reason}).on(g.Board)
	} else if err != nil {
		return err
	}
	if given != 0 && (!num || given != n) {
		return refuse(whyMoveNumber, kv{"Given": given, "Want": n}).on(g.Board)
	}
	if err := pos.Play(m); errors.As(err, &me) {
		return refuse(whyIllegal, kv{"Move": me.Move, "Reason": me.Reason}).on(g.Board)
	}
	return err
}

// mailWhatIf mails the sender the board of g as pos shows it, a position
// that is not played, as a mail of kind "preview" or "submit": text and, for a user who wants it,
// the picture; no reply token, so that answering it moves nothing.
func (r *request) mailWhatIf(kind string, g *game, pos games.Position, u *user, notice string) error {
	shadow := *g
	shadow.Moves = append(slices.Clone(g.Moves), pos.Moves()[len(g.Moves):]...)
	v, err := r.e.view(&shadow, len(shadow.Moves), 0)
	if err != nil {
		return err
	}
	v.Notice = notice
	e := envelope{to: []string{r.in.From}, board: g.Board, game: v}
	if u != nil {
		e.key, e.html = strings.ToLower(u.ID), u.html()
	}
	return r.mailAbout(kind, v, e)
}

// submit: GAME submit BOARD USERID PASSWORD MOVE[#N]. The move is checked
// as a move is, nothing is played, and the sender gets the board as it
// would be; GAME confirm then plays it. A new submit replaces the last.
func (r *request) submit(c Command) error {
	g, u, err := r.gameAndUser(c)
	if err != nil {
		return err
	}
	p, err := playing(g, u)
	if err != nil {
		return err
	}
	pos, err := r.e.position(g, -1)
	if err != nil {
		return err
	}
	if pos.Turn() != p {
		return refuse(whyNotYourTurn, nil).on(g.Board)
	}
	if err := r.tryMove(g, pos, c.Args[3], true); err != nil {
		return err
	}
	move := pos.Moves()[len(g.Moves)]
	if g.Submitted == nil {
		g.Submitted = map[string]submission{}
	}
	g.Submitted[strings.ToLower(u.ID)] = submission{Move: move, Changes: g.Changes}
	if err := r.saveGame(g); err != nil {
		return err
	}
	notice, err := r.notice("submitted", kv{"Move": move,
		"Usage": fmt.Sprintf("%s confirm %d %s PASSWORD", c.Game, g.Board, u.ID)})
	if err != nil {
		return err
	}
	return r.mailWhatIf("submit", g, pos, u, notice)
}

// confirmSubmitted: GAME confirm BOARD USERID PASSWORD plays the move the
// player submitted, if the game has not changed since; else it is refused.
func (r *request) confirmSubmitted(c Command) error {
	g, u, err := r.gameAndUser(c)
	if err != nil {
		return err
	}
	if g.over() {
		return refuse(whyGameOver, kv{"Board": g.Board}).on(g.Board)
	}
	key := strings.ToLower(u.ID)
	s, ok := g.Submitted[key]
	if !ok {
		return refuse(whyNothingSubmitted, kv{"Board": g.Board})
	}
	if s.Changes != g.Changes {
		// Refused, it changes nothing: the stale submission stays until
		// a new submit replaces it or the game ends, never playable.
		return refuse(whySubmittedStale, kv{"Board": g.Board, "Move": s.Move}).on(g.Board)
	}
	return r.play(g, u, s.Move)
}
