package engine

import (
	"errors"
	"slices"
	"strings"
	"time"

	"lyngk.example/lyngk/engine/games"
)

// MaxUnasked bounds the mails a player gets in a day that he did not ask
// for: the board mails of a game he has not moved in, which somebody else
// started (a challenge not from his own confirmed address). Past it, a
// challenge naming him is refused, and such board mails are left out: he
// sees the games with lyngk games and show. A forged sender cannot bury a
// player's mailbox in games.
const MaxUnasked = 10

// unasked says whether a board mail of g to the userid key is one he did
// not ask for.
func unasked(g *game, key string) bool {
	p := g.player(key)
	return p != 0 && !g.moved(p) && !slices.Contains(g.Asked, key)
}

// unaskedToday is u's count of unasked mails in the current day.
func (r *request) unaskedToday(u *user) int {
	if r.now.Sub(u.UnaskedDay) >= 24*time.Hour || r.now.Before(u.UnaskedDay) {
		return 0
	}
	return u.Unasked
}

// countUnasked counts one unasked mail for u and saves u.
func (r *request) countUnasked(u *user) error {
	if r.unaskedToday(u) == 0 {
		u.Unasked, u.UnaskedDay = 0, r.now
	}
	u.Unasked++
	return r.saveUser(u)
}

// challenge starts a game. Anybody may challenge, as in pbmserv: the game
// only costs the players a mail each, and they may resign at once; a
// player the challenge did not come from gets at most MaxUnasked such
// mails a day.
func (r *request) challenge(c Command) error {
	p1, err := r.player(c.Args[0])
	if err != nil {
		return err
	}
	p2, err := r.player(c.Args[1])
	if err != nil {
		return err
	}
	if strings.EqualFold(p1.ID, p2.ID) {
		return refuse(whySelfChallenge, kv{"User": p1.ID})
	}
	if p1.Robot && p2.Robot {
		// Nobody would ever move in it, and it would cost a search a
		// move for nobody's pleasure.
		return refuse(whyRobotPair, kv{"User": p1.ID, "Other": p2.ID})
	}
	for _, u := range []*user{p1, p2} {
		if !u.canPlay() {
			return refuse(whyUnconfirmed, kv{"User": u.ID})
		}
		if u.Robot && r.e.games[c.Game].Robot == nil {
			// The robot plays only the games that bring one: the game
			// would wait for a move nobody makes.
			return refuse(whyRobotGame, kv{"User": u.ID})
		}
	}
	var sender address
	if _, err := load(r.tx, bucketAddresses, strings.ToLower(r.in.From), &sender); err != nil {
		return err
	}
	var asked []string
	for _, u := range []*user{p1, p2} {
		key := strings.ToLower(u.ID)
		if slices.Contains(sender.Users, key) {
			asked = append(asked, key)
		} else if len(u.Addresses) > 0 && r.unaskedToday(u) >= MaxUnasked {
			return refuse(whyUnaskedFull, kv{"User": u.ID, "Max": MaxUnasked})
		}
	}
	if err := r.reserve(2); err != nil {
		return err
	}
	board, err := r.nextBoard()
	if err != nil {
		return err
	}
	gm := r.e.games[c.Game]
	variant := c.Variant
	if variant == "" {
		variant, _ = gm.Variant("")
	}
	g := &game{Board: board, Variant: variant, Players: [2]string{p1.ID, p2.ID},
		Status: StatusPlaying, Started: r.now, Asked: asked, Game: c.Game}
	if err := r.saveGame(g); err != nil {
		return err
	}
	gv, err := r.e.view(g, -1, 0)
	if err != nil {
		return err
	}
	return r.boardMails(g, "new-game", gv, recipients(g), nil)
}

// moveCommand: lyngk move BOARD USERID PASSWORD MOVE[#N].
func (r *request) moveCommand(c Command) error {
	g, u, err := r.gameAndUser(c)
	if err != nil {
		return err
	}
	return r.play(g, u, c.Args[3])
}

// declineCommand: lyngk decline BOARD USERID PASSWORD.
func (r *request) declineCommand(c Command) error {
	g, u, err := r.gameAndUser(c)
	if err != nil {
		return err
	}
	return r.play(g, u, moveDecline)
}

// resignCommand: lyngk resign BOARD USERID PASSWORD.
func (r *request) resignCommand(c Command) error {
	g, u, err := r.gameAndUser(c)
	if err != nil {
		return err
	}
	return r.play(g, u, moveResign)
}

// gameAndUser checks the BOARD USERID PASSWORD arguments that begin the
// game commands.
func (r *request) gameAndUser(c Command) (*game, *user, error) {
	g, err := r.game(c.Args[0])
	if err != nil {
		return nil, nil, err
	}
	u, err := r.authenticate(c.Args[1], c.Args[2])
	return g, u, err
}

// game loads the game of a board argument.
func (r *request) game(arg string) (*game, error) {
	n, err := boardNumber(arg)
	if err != nil {
		return nil, err
	}
	g, ok, err := r.loadGame(n)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, refuse(whyUnknownBoard, kv{"Board": n})
	}
	if name := g.Game; r.word != "" && name != r.word {
		// The board number names one game (one sequence for all): the
		// command's game word must be that game's.
		return nil, refuse(whyWrongGame, kv{"Board": n, "Given": r.word}).on(n)
	}
	return g, nil
}

// playing returns u's side (1 or 2) in g, refusing a user who is not one
// of its players and a game that is over: what a move, a submitted and a
// queued move all ask first.
func playing(g *game, u *user) (int, error) {
	p := g.player(strings.ToLower(u.ID))
	if p == 0 {
		return 0, refuse(whyNotPlayer, kv{"User": u.ID, "Board": g.Board})
	}
	if g.over() {
		return 0, refuse(whyGameOver, kv{"Board": g.Board}).on(g.Board)
	}
	return p, nil
}

// moveWords are what a player may write instead of a move.
var moveWords = []string{moveResign, moveDecline, "propose", "accept", "reject", "undo"}

// moveDecline refuses a game: the word of a player who has not moved yet.
const moveDecline = "decline"

// play carries out what a player wrote as their move: a move, resign, or
// a proposal word. Everything is checked before anything is written.
func (r *request) play(g *game, u *user, text string) error {
	p, err := playing(g, u)
	if err != nil {
		return err
	}
	if err := r.reserve(len(recipients(g))); err != nil {
		return err
	}
	switch word := strings.ToLower(text); word {
	case moveResign:
		return r.resign(g, p, r.commentBy(u))
	case moveDecline:
		return r.decline(g, p, r.commentBy(u))
	case "propose", "accept", "reject", "undo":
		return r.propose(g, p, word, r.commentBy(u))
	}
	pos, err := r.e.position(g, -1)
	if err != nil {
		return err
	}
	if pos.Turn() != p {
		return refuse(whyNotYourTurn, nil).on(g.Board)
	}
	m, num, err := pos.Parse(text)
	var me *games.MoveError
	if errors.As(err, &me) {
		return refuse(whyNotation, kv{"Move": text, "Reason": me.Reason}).on(g.Board)
	} else if err != nil {
		return err
	}
	if num != 0 && num != len(g.Moves)+1 {
		return refuse(whyMoveNumber, kv{"Given": num, "Want": len(g.Moves) + 1}).on(g.Board)
	}
	if err := pos.Play(m); errors.As(err, &me) {
		return refuse(whyIllegal, kv{"Move": me.Move, "Reason": me.Reason}).on(g.Board)
	} else if err != nil {
		return err
	}
	g.Proposal = nil
	delete(g.Queued, strings.ToLower(u.ID)) // a move of his replaces it
	r.record(g, pos)
	return r.moved(g, r.commentBy(u), "")
}

// record appends the moves the replay made (the move and any automatic
// passes) and ends the game when the rules say so.
func (r *request) record(g *game, pos games.Position) {
	for _, m := range pos.Moves()[len(g.Moves):] {
		g.Moves = append(g.Moves, m)
		g.MoveTimes = append(g.MoveTimes, r.now)
	}
	g.LastMove = r.now
	switch pos.Outcome() {
	case games.Won:
		r.finish(g, StatusWon, pos.Winner(), EndRules)
	case games.Tie:
		r.finish(g, StatusTie, 0, EndRules)
	}
	r.playQueued(g, pos)
}

// moved saves g and mails the board to everybody after a change, with the
// comment of the player who made it and a notice of what happened ("" for
// a plain move). The change spends every reply token sent before it.
func (r *request) moved(g *game, c *commentView, notice string) error {
	g.Changes++
	if g.over() {
		// void since this change (submission.Changes); never due
		g.Submitted, g.Queued = nil, nil
	}
	switch {
	case g.Status == StatusCancelled:
		line, err := r.notice("cancelled", nil)
		if err != nil {
			return err
		}
		notice += "\n" + line
	case g.over():
		if err := r.updateRatings(g); err != nil {
			return err
		}
	}
	if err := r.saveGame(g); err != nil {
		return err
	}
	v, err := r.boardView(g)
	if err != nil {
		return err
	}
	v.Notice = notice
	if err := r.changeMails(g, v, c); err != nil {
		return err
	}
	if g.over() && g.Tournament != "" {
		if err := r.tourGameOver(g); err != nil {
			return err
		}
	}
	return r.queueNotices(g)
}

// boardView is the view of a board mail: the last rows of the move list
// while the game runs, all of it with the timing once it is over.
func (r *request) boardView(g *game) (*gameView, error) {
	if g.over() {
		return r.e.view(g, -1, 0)
	}
	return r.e.view(g, -1, boardMailRows)
}

// commentBy returns the mail's comment as written by u, nil if none. The
// comment is relayed to others, so it loses its control characters.
func (r *request) commentBy(u *user) *commentView {
	text := cleanText(r.script.Comment)
	if strings.TrimSpace(text) == "" {
		return nil
	}
	return &commentView{User: u.ID, Text: text}
}

// resign ends g with player p giving up. On p's turn the move list records
// "resign"; a player may also resign out of turn (and signoff does), which
// the move list cannot show in p's column, so then only the result records
// it. The resigned player stays on as a subscriber of the finished game.
func (r *request) resign(g *game, p int, c *commentView) error {
	pos, err := r.e.position(g, -1)
	if err != nil {
		return err
	}
	if pos.Turn() == p {
		g.Moves = append(g.Moves, moveResign)
		g.MoveTimes = append(g.MoveTimes, r.now)
		g.LastMove = r.now
	}
	g.Proposal = nil
	r.finish(g, StatusWon, 3-p, EndResign)
	key := strings.ToLower(g.Players[p-1])
	if !slices.Contains(g.Subscribers, key) {
		g.Subscribers = append(g.Subscribers, key)
	}
	notice, err := r.notice("resigned", kv{"User": g.Players[p-1]})
	if err != nil {
		return err
	}
	return r.moved(g, c, notice)
}

// finish marks g as over. A game that ends before every player has moved
// (a resignation, an agreed draw) is cancelled instead: nobody is made to
// play, so it counts for nobody. A tournament's game counts from its
// start: its players joined to play it.
func (r *request) finish(g *game, status Status, winner int, how Ending) {
	if !g.started() && g.Tournament == "" {
		status, winner = StatusCancelled, 0
	}
	g.Status, g.Winner, g.How, g.Ended = status, winner, how, r.now
	g.Nagged = time.Time{}
}

// decline ends g, cancelled, at the word of player p, who has not moved
// yet: nobody is made to play a game somebody else started.
func (r *request) decline(g *game, p int, c *commentView) error {
	if g.Tournament != "" {
		return refuse(whyTourDecline, kv{"Board": g.Board, "Name": g.Tournament}).on(g.Board)
	}
	if g.moved(p) {
		return refuse(whyDeclineMoved, kv{"Board": g.Board}).on(g.Board)
	}
	g.Proposal = nil
	r.finish(g, StatusCancelled, 0, EndDeclined)
	notice, err := r.notice("declined", kv{"User": g.Players[p-1]})
	if err != nil {
		return err
	}
	return r.moved(g, c, notice)
}
