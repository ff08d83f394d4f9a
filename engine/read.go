package engine

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"lyngk.example/lyngk/engine/games"
)

// The read API: what anybody may see of the server's games and players,
// for the mail listings (games, history, standings) and the web pages. Each
// function takes a Tx it only reads (a store View); none returns an
// address, a password hash, a reply token, a subscriber or a pending
// proposal.

// Errors of the read API, for errors.Is.
var (
	ErrNoGame   = errors.New("engine: no such game")
	ErrNoUser   = errors.New("engine: no such user")
	ErrBadState = errors.New("engine: unknown game state")
)

// The states of GameFilter: running games, finished ones (cancelled
// included), every game; next is the mail listings' "next", running and
// waiting for a move of one of the filter's users (of anybody when none is
// named).
const (
	StateActive   = "active"
	StateFinished = "finished"
	StateAll      = "all"
	StateNext     = "next"
)

// Status is where a game stands. A record holds StatusPlaying, StatusWon,
// StatusTie or StatusCancelled, and Ending says how a game ended other
// than by the rules; the read API tells a game won by resignation or by
// forfeit apart from one won by the rules (StatusResigned, StatusForfeit).
type Status string

// The statuses.
const (
	StatusPlaying   Status = "playing"
	StatusWon       Status = "won" // by the rules
	StatusTie       Status = "tie" // by the rules or an agreed draw (EndDraw)
	StatusCancelled Status = "cancelled"
	StatusResigned  Status = "resigned"
	StatusForfeit   Status = "forfeit"
)

// Ending is how a game ended other than by the rules.
type Ending string

// The endings: EndRules for a game that runs or ended by the rules; a
// won game may end by EndResign or EndForfeit, a tie by EndDraw (agreed),
// and a cancelled game (over before every player moved) by EndDeclined,
// EndResign, EndDraw or EndTimeout (a player never moved).
const (
	EndRules    Ending = ""
	EndResign   Ending = "resign"
	EndForfeit  Ending = "forfeit"
	EndDraw     Ending = "draw"
	EndDeclined Ending = "declined"
	EndTimeout  Ending = "timeout"
)

// GameFilter selects games for ListGames.
type GameFilter struct {
	// Users are userids (any case, signed-off ones included); a game
	// passes when one of them plays it. None: every game.
	Users []string
	// State is StateActive, StateFinished, StateAll or StateNext; "" is
	// StateAll.
	State string
	// Game is a game word: only that game's games pass. "": every game.
	Game string
}

// GameSummary is one game in a listing.
type GameSummary struct {
	Board   int
	Game    string    // the game's word (games.Rules.Name): "lyngk"
	Title   string    // the game's name in headings (games.Rules.Title): "Lyngk"
	Variant string    // the game's variant: LYNGK "standard" or "stack6"
	Players [2]string // userids as signed up, challenge order
	Status  Status    // StatusPlaying … StatusForfeit
	Winner  int       // 1 or 2, 0 for none (running, tie, cancelled)
	// How is why a game ended other than by the rules: "resign",
	// "forfeit", "draw" (agreed); for a cancelled game "declined",
	// "resign", "draw" or "timeout" (a player never moved); else "".
	How    Ending
	ToMove int // 1 or 2 while running, else 0
	// Moves is the length of the move record: moves, automatic passes
	// ("--") and a terminal entry ("resign", "Forfeit") counted.
	Moves        int
	Started      time.Time
	LastActivity time.Time // the last move, else the start; the end when over
	Ended        time.Time // zero while running
	// Tournament is the name of the tournament the game belongs to
	// (ReadTournament), and TournamentRound its round from 1; "" and 0
	// for a game started by a challenge.
	Tournament      string `json:",omitempty"`
	TournamentRound int    `json:",omitempty"`
}

// Over reports whether the game has ended (cancelled included).
func (s GameSummary) Over() bool { return s.Status != StatusPlaying }

// Marks says how the game ended for each player, in the words the board
// picture writes by their names (picture.Over): "won" for the winner and
// "resigned", "forfeited" or "lost" for the loser; "drawn by agreement",
// "tie" or "cancelled" for both. Empty while the game runs.
func (s GameSummary) Marks() [2]string {
	switch s.Status {
	case StatusPlaying:
		return [2]string{}
	case StatusCancelled:
		return [2]string{"cancelled", "cancelled"}
	case StatusTie:
		if s.How == EndDraw {
			return [2]string{"drawn by agreement", "drawn by agreement"}
		}
		return [2]string{"tie", "tie"}
	}
	loser := map[Status]string{StatusResigned: "resigned", StatusForfeit: "forfeited"}[s.Status]
	if loser == "" {
		loser = "lost"
	}
	var m [2]string
	m[s.Winner-1], m[2-s.Winner] = "won", loser
	return m
}

// WinnerID is the winner's userid, "" for none.
func (s GameSummary) WinnerID() string {
	if s.Winner == 0 {
		return ""
	}
	return s.Players[s.Winner-1]
}

// ToMoveID is the userid of the player to move, "" when over.
func (s GameSummary) ToMoveID() string {
	if s.ToMove == 0 {
		return ""
	}
	return s.Players[s.ToMove-1]
}

// GameDetail is one game with its record; Position gives any position of it.
type GameDetail struct {
	GameSummary
	// MoveList is the record: normalised moves ("R,b1-b2", "b1-b2"),
	// "--" for the automatic passes, and a last "resign" or "Forfeit"
	// when a game ended so. Move K (1-based) is MoveList[K-1].
	MoveList  []string
	MoveTimes []time.Time // when each entry of MoveList was made
	// Sides are what each player has beside the board in the current
	// position (games.Picture.Sides; LYNGK: the colours claimed and the
	// stacks removed), none for a game without a picture.
	Sides [2]games.Side
	g     *game
	e     *Engine
}

// Player is a user as anybody may see them.
type Player struct {
	ID    string // as signed up
	Robot bool   // a robot player (RobotLevels)
	// About and Budget are a robot's level: what it is like to play and
	// how long it thinks (RobotLevel.Budget); ReadPlayer sets them.
	About       string `json:",omitempty"`
	Budget      string `json:",omitempty"`
	SignedOff   bool   // the userid stays taken, the games on record
	Created     time.Time
	Rating      int
	Provisional bool // fewer than ProvisionalGames finished games
	Won         int
	Lost        int
	Tied        int
	// Bouncing is when mail to the player's address was marked bouncing
	// (the earliest, with several; zero: none is), and Paused says every
	// address of the player is: his games wait as on vacation
	// (bounce.go). ReadPlayer sets them; the address is not shown.
	Bouncing time.Time `json:",omitzero"`
	Paused   bool      `json:",omitempty"`
}

// Games is the number of finished (rated) games.
func (p Player) Games() int { return p.Won + p.Lost + p.Tied }

// ProvisionalGames is the number of finished games below which a rating is
// provisional.
const ProvisionalGames = provisionalGames

// Standing is one line of the standings.
type Standing struct {
	Rank int // 1 for the best rating
	Player
	// After is the cursor of the page after this line
	// (StandingsCursor.After): the player's rating, exact, and userid.
	After string `json:"-"`
}

// publicStatus is the read API's status of g.
func publicStatus(g *game) Status {
	if g.Status == StatusWon {
		switch g.How {
		case EndResign:
			return StatusResigned
		case EndForfeit:
			return StatusForfeit
		}
	}
	return g.Status
}

// summary builds the summary of g; pos is its current position (only
// read while g runs).
func (e *Engine) summary(g *game, pos games.Position) GameSummary {
	s := GameSummary{Board: g.Board, Game: g.Game, Title: e.games[g.Game].Title(), Variant: g.Variant, Players: g.Players,
		Status: publicStatus(g), Winner: g.Winner, How: g.How, Moves: len(g.Moves),
		Started: g.Started.UTC(), LastActivity: g.Started.UTC(), Ended: g.Ended.UTC(),
		Tournament: g.Tournament, TournamentRound: g.Round}
	if !g.LastMove.IsZero() {
		s.LastActivity = g.LastMove.UTC()
	}
	if g.over() {
		s.LastActivity = g.Ended.UTC()
	} else {
		s.ToMove = pos.Turn()
		s.Ended = time.Time{}
	}
	return s
}

// keysOf returns the lower-cased userids of ids, each of which must have a
// record (ErrNoUser).
func keysOf(tx Tx, ids []string) ([]string, error) {
	r := &request{tx: tx}
	var keys []string
	for _, id := range ids {
		u, ok, err := r.loadUser(id)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("%w: %q", ErrNoUser, id)
		}
		keys = append(keys, strings.ToLower(u.ID))
	}
	return keys, nil
}

// ListGames returns the games that pass f, in board order. An unknown
// userid in f.Users is ErrNoUser, an unknown state ErrBadState.
func (e *Engine) ListGames(tx Tx, f GameFilter) ([]GameSummary, error) {
	gs, err := e.selectFor(&request{e: e, tx: tx}, f, math.MaxInt)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(gs, func(a, b GameSummary) int { return cmp.Compare(a.Board, b.Board) })
	return gs, nil
}

// A Cursor says where a page of a listing starts.
type Cursor struct {
	// After starts the page after board After in the listing's order (a
	// board no longer where it was, or in no listing of f: an empty
	// page); 0 starts at the first game, less Skip.
	After int
	// Skip, with After 0, leaves out the first Skip games, reading their
	// index keys but not their records: a page far down by number costs
	// the keys before it. A page after a board costs its own games alone.
	Skip int
	// Before, with After, is how many games the pages before held: only
	// the count of the games after the page (more) comes from it.
	Before int
}

// Page returns one page of the listing of the games that pass f, in the
// listings' order: running first, then finished, newest first (of
// everybody's finished games the last ended first), from at, at most
// limit; more counts the games after the page. Read after a board, more
// is the listing's count less at.Before and the page: exact when the
// pages before held Before games, and in any case 0 only when no game
// follows the page, at least 1 when one does. Where more is read from the
// index keys (several users), it stops at MaxCounted. An unknown userid
// in f.Users is ErrNoUser, an unknown state ErrBadState.
func (e *Engine) Page(tx Tx, f GameFilter, at Cursor, limit int) (_ []GameSummary, more int, err error) {
	state, keys, err := e.selection(tx, f)
	if err != nil {
		return nil, 0, err
	}
	r := &request{e: e, tx: tx}
	scope := scopeOf(f.Game)
	if at.After == 0 || state == StateNext {
		ls, more, _, err := r.listed(keys, scope, state, at.After, max(at.Skip, 0), max(limit, 0))
		return ls, more, err
	}
	return r.pageAfter(keys, scope, state, at.After, max(at.Before, 0), max(limit, 0))
}

// History returns the finished games of game (a game word; "" for every
// game) of the users (of everybody when none is named), the last ended
// first. An unknown userid is ErrNoUser.
func (e *Engine) History(tx Tx, game string, users ...string) ([]GameSummary, error) {
	out, err := e.ListGames(tx, GameFilter{Users: users, State: StateFinished, Game: game})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b GameSummary) int {
		return cmp.Or(b.Ended.Compare(a.Ended), cmp.Compare(b.Board, a.Board))
	})
	return out, nil
}

// selectFor reads the summaries of the games that pass f in request r,
// in the listings' order, at most limit (selectGames).
func (e *Engine) selectFor(r *request, f GameFilter, limit int) ([]GameSummary, error) {
	state, keys, err := e.selection(r.tx, f)
	if err != nil {
		return nil, err
	}
	return r.selectGames(keys, scopeOf(f.Game), state, limit)
}

// selection checks f: its state (StateAll for "") and its users' keys.
func (e *Engine) selection(tx Tx, f GameFilter) (state string, keys []string, err error) {
	state = f.State
	switch state {
	case "":
		state = StateAll
	case StateActive, StateFinished, StateAll, StateNext:
	default:
		return "", nil, fmt.Errorf("%w %q", ErrBadState, f.State)
	}
	keys, err = keysOf(tx, f.Users)
	return state, keys, err
}

// ReadGame returns game board; ErrNoGame when there is none.
func (e *Engine) ReadGame(tx Tx, board int) (*GameDetail, error) {
	g, ok, err := (&request{e: e, tx: tx}).loadGame(board)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%w: board %d", ErrNoGame, board)
	}
	pos, err := e.position(g, -1)
	if err != nil {
		return nil, err
	}
	d := &GameDetail{GameSummary: e.summary(g, pos), MoveList: slices.Clone(g.Moves), g: g, e: e}
	for _, t := range g.MoveTimes {
		d.MoveTimes = append(d.MoveTimes, t.UTC())
	}
	if gm, err := e.gameOf(g); err == nil && gm.Picture != nil {
		d.Sides = gm.Picture.Sides(pos)
	}
	return d, nil
}

// Position returns the position after move k of MoveList (0: the start;
// k < 0 or k = len(MoveList): now). A terminal entry leaves the position
// as it was. Board writes it as the board mails do: pos.Board(d.Players).
func (d *GameDetail) Position(k int) (games.Position, error) {
	if k > len(d.MoveList) {
		return nil, fmt.Errorf("engine: board %d has %d moves, not %d", d.Board, len(d.MoveList), k)
	}
	return d.e.position(d.g, k)
}

// Rules returns the game of d.
func (d *GameDetail) Rules() (games.Game, error) { return d.e.gameOf(d.g) }

// ReadPlayer returns the user id (any case) with their rating and record
// in game (a game word); ErrNoUser when there is none, ErrNoGame when the
// server offers no such game. A signed-off user is returned with
// SignedOff set: their games stay on record.
func (e *Engine) ReadPlayer(tx Tx, id, game string) (Player, error) {
	if _, ok := e.games[game]; !ok {
		return Player{}, fmt.Errorf("%w: no game %q", ErrNoGame, game)
	}
	u, ok, err := (&request{e: e, tx: tx}).loadUser(id)
	if err != nil {
		return Player{}, err
	}
	if !ok {
		return Player{}, fmt.Errorf("%w: %q", ErrNoUser, id)
	}
	p := player(u, u.in(game))
	if l, ok := e.aboutRobot(u.ID); ok && u.Robot {
		p.About, p.Budget = l.About, l.Budget()
	}
	paused := len(u.Addresses) > 0
	for _, a := range u.Addresses {
		at, err := BounceMark(tx, a)
		if err != nil {
			return Player{}, err
		}
		if !at.IsZero() && (p.Bouncing.IsZero() || at.Before(p.Bouncing)) {
			p.Bouncing = at.UTC()
		}
		paused = paused && !at.IsZero()
	}
	p.Paused = paused
	return p, nil
}

func player(u *user, s standing) Player {
	return Player{ID: u.ID, Robot: u.Robot, SignedOff: !u.Left.IsZero(), Created: u.Created.UTC(),
		Rating: roundRating(s.Rating), Provisional: s.rated() < provisionalGames,
		Won: s.Won, Lost: s.Lost, Tied: s.Tied}
}

// Standings returns the standings of game (a game word; ErrNoGame when
// the server offers no such game): every player who has not signed off
// and has a finished game of it, best rating first (ties by userid),
// ranked from 1.
func (e *Engine) Standings(tx Tx, game string) ([]Standing, error) {
	out, _, err := e.StandingsPage(tx, game, StandingsCursor{}, math.MaxInt)
	return out, err
}

// A StandingsCursor says where a page of the standings starts.
type StandingsCursor struct {
	// After starts the page after the line of After (a Standing's After
	// of the page before, "RATING:userid"): the players whose rating is
	// lower, or equal with a later userid, as the standings stand now,
	// whatever became of that line since. "" starts at the first, less
	// Skip.
	After string
	// Skip, with After "", leaves out the first Skip players, reading
	// their index keys but not their records: a page far down by number
	// costs the keys before it. A page after a line costs its own
	// players alone.
	Skip int
	// Before, with After, is how many players the pages before held: the
	// ranks of the page start after it, and the count of the players
	// after the page (more) comes from it.
	Before int
}

// maxStandingsCursor bounds a StandingsCursor's After: a float64 in
// decimal (at most 24 characters), the colon and a userid (16).
const maxStandingsCursor = 48

// standingsCursor is the After of the line of player key with rating: the
// rating as strconv reads it back exactly, a colon, the userid key.
func standingsCursor(rating float64, key string) string {
	return strconv.FormatFloat(rating, 'g', -1, 64) + ":" + key
}

// ErrBadStandingsCursor: a page of the standings was asked to start after
// a cursor that is not one (StandingsPage).
var ErrBadStandingsCursor = errors.New("engine: not a cursor of the standings")

// StandingsPage is one page of game's standings, from at, at most limit
// players, ranked from the number of players before them (at.Skip, or
// at.Before after a line); more counts the players after the page: after
// a line, the standings' count less at.Before and the page, at least 1
// when a player follows the page, 0 when none does. ErrNoGame for a game
// the server does not offer, ErrBadStandingsCursor for an After not of
// the form of Standing.After.
func (e *Engine) StandingsPage(tx Tx, game string, at StandingsCursor, limit int) (_ []Standing, more int, err error) {
	if _, ok := e.games[game]; !ok {
		return nil, 0, fmt.Errorf("%w: no game %q", ErrNoGame, game)
	}
	prefix := game + "\x00"
	from, skip, before := prefix, max(at.Skip, 0), 0
	if at.After != "" {
		rating, key, ok := strings.Cut(at.After, ":")
		f, err := strconv.ParseFloat(rating, 64)
		if !ok || err != nil || len(at.After) > maxStandingsCursor || key == "" || key != strings.ToLower(key) ||
			math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, 0, ErrBadStandingsCursor
		}
		// The first key after the cursor's line: its key and a 0x00.
		from, skip, before = ratingKey(game, f, key)+"\x00", 0, max(at.Before, 0)
	}
	limit = max(limit, 0)
	var out []Standing
	passed, follows := 0, false
	err = tx.Scan(bucketRatings, from, func(k string, val []byte) error {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok || len(rest) <= 16 {
			return errEnough
		}
		if passed++; passed <= skip {
			return nil
		}
		if len(out) == limit {
			follows = true
			return errEnough
		}
		// The key's value is the line (standingLine): the players'
		// records are not read.
		var l standingLine
		if err := json.Unmarshal(val, &l); err != nil {
			return fmt.Errorf("engine: ratings/%q: %w", rest, err)
		}
		s := standing{Rating: l.Rating, Won: l.Won, Lost: l.Lost, Tied: l.Tied}
		out = append(out, Standing{Rank: skip + before + len(out) + 1,
			Player: player(&user{ID: l.ID, Robot: l.Robot, Created: l.Created}, s),
			After:  standingsCursor(l.Rating, rest[16:])})
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		return nil, 0, err
	}
	total, err := count(tx, standingsCount(game))
	more = max(total-skip-before-len(out), 0)
	if at.After != "" {
		switch {
		case !follows:
			more = 0
		case more == 0:
			more = 1
		}
	}
	return out, more, err
}

// GameVersion returns a number that changes with every change of game
// board anybody can see (a move, a pass, a take-back, a resignation, a
// draw, a forfeit, a cancellation): the web part polls it to tell its
// watchers. It reads one record. ErrNoGame when there is none.
func GameVersion(tx Tx, board int) (uint64, error) {
	g, ok, err := (&request{tx: tx}).loadGame(board)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, fmt.Errorf("%w: board %d", ErrNoGame, board)
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%d\x00%s\x00%d\x00%s\x00%s", len(g.Moves), g.TakeBacks, g.Status, g.Winner, g.How,
		g.Ended.UTC().Format(time.RFC3339Nano))
	if n := len(g.Moves); n > 0 {
		fmt.Fprintf(h, "\x00%s", g.Moves[n-1])
	}
	return h.Sum64(), nil
}

// scopeOf is the index scope of a game word, allScope for "".
func scopeOf(word string) string {
	if word == "" {
		return allScope
	}
	return word
}
