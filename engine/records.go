package engine

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"lyngk.example/lyngk/engine/games"
)

// The engine's buckets (store.BucketUsers etc.; the engine does not import
// store) and the one meta key it owns.
const (
	bucketUsers  = "users"
	bucketGames  = "games"
	bucketTokens = "tokens"
	bucketRate   = "rate"
	bucketMeta   = "meta"
	// bucketAddresses indexes the confirmed addresses and counts the
	// confirmation mails sent to each; bucketConfirms holds the codes of
	// the confirmation mails (store schema version 2).
	bucketAddresses = "addresses"
	bucketConfirms  = "confirms"

	keyNextBoard = "nextboard"
	firstBoard   = 101
)

// recordVersion is written into every record; a reader refuses a record of
// another version rather than misreading it.
const recordVersion = 1

// user is a record of bucket users, keyed by the lower-cased userid.
type user struct {
	V    int    `json:"v"`
	ID   string `json:"id"` // as signed up
	Hash string `json:"hash"`
	// Addresses are the confirmed addresses: all mail to the user goes
	// there, and nowhere else.
	Addresses []string `json:"addresses"`
	// Pending are the addresses asked for by signup or change address and
	// not confirmed yet. Replace says that the first of them to be
	// confirmed replaces Addresses (a change of address named none of
	// them): until then mail keeps going to the old addresses.
	Pending []string  `json:"pending,omitempty"`
	Replace bool      `json:"replace,omitempty"`
	Created time.Time `json:"created"`
	Left    time.Time `json:"left,omitzero"` // signed off; the userid stays taken
	// Deleted is when the account was deleted (delete): Left too, and
	// nothing personal is left (no address, password hash or choice).
	Deleted  time.Time `json:"deleted,omitzero"`
	Vacation bool      `json:"vacation,omitempty"`
	Back     time.Time `json:"back,omitzero"` // end of the last vacation
	// Games holds the user's rating and record in each game played, by
	// the game's word (store schema version 3; before it, LYNGK's were
	// the record's own fields, which Upgrade moves here).
	Games map[string]*standing `json:"games,omitempty"`
	// Format is how the user's mails showing a board are written: "" (the
	// default, also for records written before the field existed) both a
	// text and an HTML part with the picture; "text" the text part only.
	Format string `json:"format,omitempty"`
	// Subject is how the subjects of the user's mails about a game are
	// written: "" (the default) gamerz's, which say what changed;
	// "game" one subject for every mail of a game (subjectGame).
	Subject string `json:"subject,omitempty"`
	// Chat is what the sender of a chat gets: "" (the default) a copy of
	// the chat mail; "confirm" a one-line confirmation.
	Chat string `json:"chat,omitempty"`
	// Robot marks a robot player's account (RobotLevels, RobotID): no
	// password, no address, never reminded nor forfeited.
	Robot bool `json:"robot,omitempty"`
	// Unasked counts the mails the user did not ask for (unasked) in the
	// day that opened with UnaskedDay: at most MaxUnasked.
	Unasked    int       `json:"unasked,omitempty"`
	UnaskedDay time.Time `json:"unasked_day,omitzero"`
	// Messages is "off" when the user takes no messages nor broadcasts
	// (change messages); "" (the default) takes them.
	Messages string `json:"messages,omitempty"`
	// Review is "off" when the user gets no robot's review of a game that
	// ends (change review); "" (the default) he does.
	Review string `json:"review,omitempty"`
	// MessagesSent counts the message mails the user sent in the day that
	// opened with MessagesDay (MaxMessagesPerDay).
	MessagesSent int       `json:"messages_sent,omitempty"`
	MessagesDay  time.Time `json:"messages_day,omitzero"`
	// Broadcaster: the operator allows the user to broadcast (lyngk admin
	// broadcast); Broadcast is when the user last did.
	Broadcaster bool      `json:"broadcaster,omitempty"`
	Broadcast   time.Time `json:"broadcast,omitzero"`
	// TournamentsMade are when the user created tournaments in the last
	// 7 days (MaxTournamentsPerWeek).
	TournamentsMade []time.Time `json:"tournaments_made,omitempty"`
}

// The values of the user's choices that are not the default.
const (
	formatText  = "text"    // Format: text-only mail
	subjectGame = "game"    // Subject: one subject a game
	chatConfirm = "confirm" // Chat: a confirmation instead of a copy
	messagesOff = "off"     // Messages: none, nor broadcasts
	reviewOff   = "off"     // Review: no review in the game-over mail
)

// html reports whether u's mails showing a board carry the HTML part.
func (u *user) html() bool { return u.Format != formatText }

// standing is a user's rating and record in one game.
type standing struct {
	Rating float64 `json:"rating"`
	Won    int     `json:"won,omitempty"`
	Lost   int     `json:"lost,omitempty"`
	Tied   int     `json:"tied,omitempty"`
}

// rated is the number of finished games.
func (s *standing) rated() int { return s.Won + s.Lost + s.Tied }

// rated is the number of u's finished games, of every game.
func (u *user) rated() int {
	n := 0
	for _, s := range u.Games {
		n += s.rated()
	}
	return n
}

// in returns u's standing in game name: the start rating and no games
// for a game the user has not played.
func (u *user) in(name string) standing {
	if s := u.Games[name]; s != nil {
		return *s
	}
	return standing{Rating: startRating}
}

// set stores s as u's standing in game name.
func (u *user) set(name string, s standing) {
	if u.Games == nil {
		u.Games = map[string]*standing{}
	}
	u.Games[name] = &s
}

// game is a record of bucket games, keyed by "%08d" of the board number.
type game struct {
	V     int `json:"v"`
	Board int `json:"board"`
	// Game is the game's word (games.Rules.Name). Records written before
	// store schema version 3 had none for LYNGK; Upgrade wrote it.
	Game    string    `json:"game"`
	Variant string    `json:"variant"` // the game's variant: LYNGK "standard" or "stack6"
	Players [2]string `json:"players"` // userids as signed up, challenge order
	// Moves holds the normalised moves, "--" for passes, and at most one
	// terminal entry: "resign" (by the player to move) or "Forfeit".
	Moves     []string    `json:"moves"`
	MoveTimes []time.Time `json:"move_times"`
	Status    Status      `json:"status"` // StatusPlaying, StatusWon, StatusTie, StatusCancelled
	Winner    int         `json:"winner,omitempty"`
	// How says why a game ended other than by the rules: "resign",
	// "forfeit", "draw" (agreed) or "" ; for a cancelled game "declined",
	// "resign", "draw" or "timeout" (a player never moved).
	How      Ending    `json:"how,omitempty"`
	Started  time.Time `json:"started"`
	LastMove time.Time `json:"last_move,omitzero"`
	Ended    time.Time `json:"ended,omitzero"`
	Nagged   time.Time `json:"nagged,omitzero"`
	// Due is when the timer looks at the running game next (its place in
	// the deadlines index): saveGame sets it from the moves and the
	// reminders (deadline), the timer later when it finds the player away
	// (tick). Zero, in a record written before it existed, is due at once.
	Due         time.Time `json:"due,omitzero"`
	Subscribers []string  `json:"subscribers,omitempty"` // lower-cased userids
	Proposal    *proposal `json:"proposal,omitempty"`
	// Ratings are the players' ratings after the game, for the game-over mail.
	Ratings [2]rating `json:"ratings,omitzero"`
	// TakeBacks counts the accepted take-backs. Between two take-backs the
	// move list only grows, so (TakeBacks, len(Moves)) names one position
	// of the game: what a reply token is valid for.
	TakeBacks int `json:"take_backs,omitempty"`
	// Changes counts the changes of the game's state (moved: a move, a
	// proposal, an answer to one, a resignation, a decline, a forfeit): a
	// reply token is spent by any of them, not only by a move.
	Changes int `json:"changes,omitempty"`
	// Offers counts each player's draw offers and take-back requests in
	// the day that opened with OffersDay (MaxOffersPerDay).
	Offers    [2]int    `json:"offers,omitzero"`
	OffersDay time.Time `json:"offers_day,omitzero"`
	// Asked are the players (userid keys) who asked for the game: the
	// challenge came from one of their confirmed addresses.
	Asked []string `json:"asked,omitempty"`
	// Submitted are the moves submitted and not confirmed (GAME submit),
	// by lower-cased userid; any change of the game voids them, and the
	// end of the game drops them (moved).
	Submitted map[string]submission `json:"submitted,omitempty"`
	// Queued are the moves queued (GAME queue), by lower-cased userid: at
	// most one a player, played when due (playQueued).
	Queued map[string]queued `json:"queued,omitempty"`
	// Tournament is the name (as created) of the tournament the game
	// belongs to (tournaments.go), and Round its round from 1; "" and 0
	// for a challenge. Unrated: a game of a tournament created without
	// -rated, which changes no rating nor record.
	Tournament string `json:"tournament,omitempty"`
	Round      int    `json:"round,omitempty"`
	Unrated    bool   `json:"unrated,omitempty"`
}

// proposalKind is what a proposal asks for: a draw or a take-back.
type proposalKind string

// The proposals.
const (
	proposeDraw proposalKind = "draw"
	proposeUndo proposalKind = "undo"
)

// proposal is a pending draw offer or take-back request.
type proposal struct {
	Kind proposalKind `json:"kind"`

	By    int `json:"by"`    // player 1 or 2
	Moves int `json:"moves"` // len(Moves) when made: a move voids it
}

// rating is a player's rating as shown after a game.
type rating struct {
	Value       int  `json:"value"`
	Provisional bool `json:"provisional,omitempty"`
}

func (g *game) over() bool { return g.Status != StatusPlaying }

// moved reports whether player p (1 or 2) has made a move: the move list's
// columns are the turns, and a pass or a terminal entry is no move.
func (g *game) moved(p int) bool {
	for i := p - 1; i < len(g.Moves); i += 2 {
		if g.Moves[i] != games.Pass && !isTerminal(g.Moves[i]) {
			return true
		}
	}
	return false
}

// started reports whether every player has moved: only such a game counts
// (ratings, history, forfeits); one that ends before is cancelled.
func (g *game) started() bool { return g.moved(1) && g.moved(2) }

// player returns 1 or 2 for the userid key, 0 when not a player.
func (g *game) player(key string) int {
	for i, p := range g.Players {
		if strings.ToLower(p) == key {
			return i + 1
		}
	}
	return 0
}

// token is a record of bucket tokens: who a board mail went to, and at
// which point of the game.
type token struct {
	V     int    `json:"v"`
	Board int    `json:"board"`
	User  string `json:"user"`  // lower-cased userid
	Moves int    `json:"moves"` // len(game.Moves) when sent
	// TakeBacks is game.TakeBacks when sent: a take-back voids every
	// earlier token, even one whose number of moves the game reaches again.
	TakeBacks int       `json:"take_backs,omitempty"`
	Changes   int       `json:"changes,omitempty"` // game.Changes when sent
	Sent      time.Time `json:"sent"`
	// Text and HTML are what the mail said (reply.go, keepSent): the
	// FNV-1a hashes of its normalised lines that are not blank, 8 bytes
	// each, of its text part and of its HTML part's text, at most
	// maxSentLines of each (1536 bytes in all, 2048 in JSON). Both are
	// absent in records written before they existed; HTML is absent for a
	// text-only mail.
	Text []byte `json:"text,omitempty"`
	HTML []byte `json:"html,omitempty"`
	// Chat marks the token of a chat mail: a reply to it is a chat back
	// (social.go), never a move.
	Chat bool `json:"chat,omitempty"`
}

// rateCount is a record of bucket rate, keyed by the lower-cased sender.
type rateCount struct {
	V        int       `json:"v"`
	Start    time.Time `json:"start"`
	Count    int       `json:"count"`
	Notified bool      `json:"notified,omitempty"`
}

// address is a record of bucket addresses, keyed by the lower-cased
// address: the accounts for which it is confirmed, and the window of the
// confirmation mails sent to it.
type address struct {
	V     int       `json:"v"`
	Users []string  `json:"users,omitempty"` // lower-cased userids
	Start time.Time `json:"start,omitzero"`  // of the confirmation window
	Sent  int       `json:"sent,omitempty"`  // confirmation mails in the window
}

// confirmation is a record of bucket confirms, keyed by the code of a
// confirmation mail: the address it confirms for which user.
type confirmation struct {
	V       int       `json:"v"`
	User    string    `json:"user"` // lower-cased userid
	Address string    `json:"address"`
	Sent    time.Time `json:"sent"`
}

// versioned lets load check the version of any record.
type versioned interface{ version() int }

func (u *user) version() int         { return u.V }
func (g *game) version() int         { return g.V }
func (t *token) version() int        { return t.V }
func (c *rateCount) version() int    { return c.V }
func (a *address) version() int      { return a.V }
func (c *confirmation) version() int { return c.V }
func (t *tourney) version() int      { return t.V }

// load reads a record; found is false when the key is absent.
func load[T versioned](tx Tx, bucket, key string, v T) (found bool, err error) {
	b, err := tx.Get(bucket, key)
	if err != nil || b == nil {
		return false, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("engine: %s/%s: %w", bucket, key, err)
	}
	if v.version() != recordVersion {
		return false, fmt.Errorf("engine: %s/%s: record version %d, this binary knows %d", bucket, key, v.version(), recordVersion)
	}
	return true, nil
}

func save(tx Tx, bucket, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("engine: %s/%s: %w", bucket, key, err)
	}
	return tx.Put(bucket, key, b)
}

func gameKey(board int) string { return fmt.Sprintf("%08d", board) }

func (r *request) loadUser(id string) (*user, bool, error) {
	u := new(user)
	ok, err := load(r.tx, bucketUsers, strings.ToLower(id), u)
	return u, ok, err
}

// saveUser is every write of a user record: the record and its lines of
// the standings (index.go), in the caller's transaction.
func (r *request) saveUser(u *user) error {
	u.V = recordVersion
	key := strings.ToLower(u.ID)
	old := new(user)
	found, err := load(r.tx, bucketUsers, key, old)
	if err != nil {
		return err
	}
	if !found {
		old = nil
	}
	if err := save(r.tx, bucketUsers, key, u); err != nil {
		return err
	}
	return indexUser(r.tx, old, u)
}

func (r *request) loadGame(board int) (*game, bool, error) {
	g := new(game)
	ok, err := load(r.tx, bucketGames, gameKey(board), g)
	return g, ok, err
}

// saveGame writes g with its next deadline (for a request of an engine:
// the timer's periods are its configuration).
func (r *request) saveGame(g *game) error {
	switch {
	case g.over():
		g.Due = time.Time{}
	case r.e != nil:
		g.Due = r.e.deadline(g)
	}
	return r.writeGame(g)
}

// writeGame is every write of a game record: the record, its indexes
// (index.go) and the robot's queue, in the caller's transaction.
func (r *request) writeGame(g *game) error {
	g.V = recordVersion
	key := gameKey(g.Board)
	old := new(game)
	found, err := load(r.tx, bucketGames, key, old)
	if err != nil {
		return err
	}
	if !found {
		old = nil
	}
	if err := save(r.tx, bucketGames, key, g); err != nil {
		return err
	}
	if err := indexGame(r.tx, old, g); err != nil {
		return err
	}
	return r.indexRobot(g)
}

// allGames returns every game in board order.
func (r *request) allGames() ([]*game, error) {
	var gs []*game
	err := r.tx.ForEach(bucketGames, func(key string, val []byte) error {
		g := new(game)
		if err := json.Unmarshal(val, g); err != nil {
			return fmt.Errorf("engine: games/%s: %w", key, err)
		}
		if g.V != recordVersion {
			return fmt.Errorf("engine: games/%s: record version %d, this binary knows %d", key, g.V, recordVersion)
		}
		gs = append(gs, g)
		return nil
	})
	return gs, err
}

// nextBoard takes the next board number.
func (r *request) nextBoard() (int, error) {
	b, err := r.tx.Get(bucketMeta, keyNextBoard)
	if err != nil {
		return 0, err
	}
	n := firstBoard
	if b != nil {
		if err := json.Unmarshal(b, &n); err != nil {
			return 0, fmt.Errorf("engine: meta/%s: %w", keyNextBoard, err)
		}
	}
	return n, save(r.tx, bucketMeta, keyNextBoard, n+1)
}

// position replays the first n stored moves of g (n < 0: all). Passes are
// automatic, so "--" is skipped; a terminal entry ends the replay.
func (e *Engine) position(g *game, n int) (games.Position, error) {
	gm, err := e.gameOf(g)
	if err != nil {
		return nil, err
	}
	pos, err := gm.New(g.Board, g.Variant)
	if err != nil {
		return nil, fmt.Errorf("engine: board %d: %w", g.Board, err)
	}
	moves := g.Moves
	if n >= 0 && n < len(moves) {
		moves = moves[:n]
	}
	for i, s := range moves {
		if s == games.Pass || isTerminal(s) {
			continue
		}
		m, _, err := pos.Parse(s)
		if err == nil {
			err = pos.Play(m)
		}
		if err != nil {
			return pos, fmt.Errorf("engine: board %d: stored move %d %q: %w", g.Board, i+1, s, err)
		}
	}
	// Everything that looks at the current position needs a player to move
	// while the record says the game runs.
	if n < 0 && !g.over() && pos.Turn() == 0 {
		return pos, fmt.Errorf("engine: board %d: recorded as running, but the replay of its %d moves is over", g.Board, len(g.Moves))
	}
	return pos, nil
}

func isTerminal(s string) bool { return s == moveResign || s == moveForfeit }

// The terminal entries of a move list.
const (
	moveResign  = "resign"
	moveForfeit = "Forfeit"
)

// boardNumber reads a board argument ("101", or "101#5" when allowed).
func boardNumber(arg string) (int, error) {
	n, err := strconv.Atoi(arg)
	if err != nil || n < 1 || arg[0] == '+' {
		return 0, refuse(whyBadBoard, kv{"Arg": arg})
	}
	return n, nil
}
