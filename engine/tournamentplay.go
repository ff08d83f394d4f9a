package engine

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"lyngk.example/lyngk/engine/tournament"
)

// The tournaments' commands and play. The records are tournaments.go's.
//
// Play. The server starts every game itself, as a challenge does (board
// mails to both players with their reply tokens, timers, the robot), White
// the first player of the game. A round robin starts all its games at
// once (the Berger rounds are only how the games are listed): a player
// has at most N−1 games of it at a time, 2(N−1) doubled, and nobody waits
// for a slow game of others. A Swiss or knockout round is paired and
// started in the transaction that ends the last game of the round before
// (a move, a resignation, a withdrawal or a timer's forfeit).
//
// A tournament's game counts from its start: it cannot be declined, and
// a player who never moves forfeits it (a challenge would be cancelled).
// A withdrawal forfeits the player's running games and he is paired no
// more; a game paired for a player who withdrew, or whose account signed
// off, is a forfeit without a board. Scoring, tie-breaks and pairing are
// package tournament's. The games of a tournament created with -rated
// change ratings as any game; the others change no rating nor record.

// The bounds of tournaments (deploy/SECURITY.md states them).
const (
	// MinTournamentPlayers and MaxTournamentPlayers bound -players; a
	// round robin has at most MaxRoundRobinPlayers, whose start mails
	// and games all come at once (16 players: 120 games, 240 doubled).
	MinTournamentPlayers = 2
	MaxTournamentPlayers = 64
	MaxRoundRobinPlayers = 16
	// MaxSwissRounds bounds -rounds; a Swiss never plays more rounds
	// than its players less one.
	MaxSwissRounds = 12
	// MaxTournamentsPerWeek is how many tournaments a player may create
	// in any 7 days (user.TournamentsMade keeps the times).
	MaxTournamentsPerWeek = 2
	// MaxTournamentsPerPlayer bounds the open and running tournaments a
	// player plays in (created or joined; the robot is not bounded).
	MaxTournamentsPerPlayer = 5
	// MaxTournamentName is the longest tournament name.
	MaxTournamentName = 24
)

// The default -players when none is given.
const (
	defaultMinPlayers = 4
	defaultMaxPlayers = 8
)

// tournamentName: a letter, then letters, digits, '.', '_' or '-': never
// a board number, one word in a command.
var tournamentName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9._-]*$`)

// tourOptions are the options of "tournament create".
type tourOptions struct {
	format    TournamentFormat
	rounds    int
	min, max  int
	double    bool
	rated     bool
	private   string
	variant   string
	hasRounds bool
}

// parseTourOptions reads the options after "tournament create NAME
// USERID PASSWORD" of game word.
func (r *request) parseTourOptions(word string, args []string) (tourOptions, error) {
	o := tourOptions{format: FormatRoundRobin, min: defaultMinPlayers, max: defaultMaxPlayers}
	gm := r.e.games[word]
	bad := func(opt string) error { return refuse(whyTourOption, kv{"Option": opt}) }
	for i := 0; i < len(args); i++ {
		a := strings.ToLower(args[i])
		value := func() (string, bool) {
			if i+1 >= len(args) {
				return "", false
			}
			i++
			return args[i], true
		}
		switch a {
		case "-format":
			v, ok := value()
			f := TournamentFormat(strings.ToLower(v))
			if !ok || (f != FormatRoundRobin && f != FormatSwiss && f != FormatKnockout) {
				return o, bad(a + " " + v)
			}
			o.format = f
		case "-rounds":
			v, ok := value()
			n, err := strconv.Atoi(v)
			if !ok || err != nil || n < 1 || n > MaxSwissRounds {
				return o, bad(a + " " + v)
			}
			o.rounds, o.hasRounds = n, true
		case "-players":
			v, ok := value()
			lo, hi, dash := strings.Cut(v, "-")
			a1, err1 := strconv.Atoi(lo)
			a2, err2 := strconv.Atoi(hi)
			if !ok || !dash || err1 != nil || err2 != nil || a1 < MinTournamentPlayers || a2 < a1 || a2 > MaxTournamentPlayers {
				return o, bad(a + " " + v)
			}
			o.min, o.max = a1, a2
		case "-double":
			o.double = true
		case "-rated":
			o.rated = true
		case "-private":
			v, ok := value()
			if !ok || !validPassword(v) {
				return o, bad(a)
			}
			o.private = v
		default:
			v, ok := gm.Variant(args[i])
			if !strings.HasPrefix(a, "-") || !ok {
				return o, bad(args[i])
			}
			o.variant = v
		}
	}
	switch {
	case o.hasRounds && o.format != FormatSwiss:
		return o, refuse(whyTourOptionFormat, kv{"Option": "-rounds", "Format": TournamentSummary{Format: o.format}.Describe()})
	case o.double && o.format != FormatRoundRobin:
		return o, refuse(whyTourOptionFormat, kv{"Option": "-double", "Format": TournamentSummary{Format: o.format}.Describe()})
	case o.format == FormatRoundRobin && o.max > MaxRoundRobinPlayers:
		return o, refuse(whyTourTooLarge, kv{"Max": MaxRoundRobinPlayers})
	case o.format == FormatSwiss && o.hasRounds && o.rounds > o.max-1:
		return o, refuse(whyTourTooManyRounds, kv{"Rounds": o.rounds, "Max": o.max, "Most": o.max - 1})
	}
	if o.variant == "" {
		o.variant, _ = gm.Variant("")
	}
	return o, nil
}

// loadTourneyArg loads the tournament a command names, refusing an
// unknown one and one of another game.
func (r *request) loadTourneyArg(word, name string) (*tourney, error) {
	t, ok, err := loadTourney(r.tx, name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, refuse(whyTourUnknown, kv{"Name": name})
	}
	if t.Game != word {
		return nil, refuse(whyTourWrongGame, kv{"Name": t.Name, "GameWord": t.Game})
	}
	return t, nil
}

// tourPlayer is the tournament c names (its first argument, of c's game)
// and the player its next two arguments authenticate, in that order.
func (r *request) tourPlayer(c Command) (*tourney, *user, error) {
	t, err := r.loadTourneyArg(c.Game, c.Args[0])
	if err != nil {
		return nil, nil, err
	}
	u, err := r.authenticate(c.Args[1], c.Args[2])
	if err != nil {
		return nil, nil, err
	}
	return t, u, nil
}

// tourCreate: GAME tournament create NAME USERID PASSWORD [OPTIONS]. The
// creator plays in it.
func (r *request) tourCreate(c Command) error {
	name := c.Args[0]
	if len(name) > MaxTournamentName || !tournamentName.MatchString(name) {
		return refuse(whyTourName, kv{"Name": name, "Max": MaxTournamentName})
	}
	o, err := r.parseTourOptions(c.Game, c.Args[3:])
	if err != nil {
		return err
	}
	if _, found, err := loadTourney(r.tx, name); err != nil || found {
		if err != nil {
			return err
		}
		return refuse(whyTourExists, kv{"Name": name})
	}
	u, err := r.authenticate(c.Args[1], c.Args[2])
	if err != nil {
		return err
	}
	if err := r.mayEnter(u); err != nil {
		return err
	}
	week := slices.DeleteFunc(slices.Clone(u.TournamentsMade), func(t time.Time) bool { return r.now.Sub(t) >= 7*24*time.Hour })
	if len(week) >= MaxTournamentsPerWeek {
		return refuse(whyTourCreateLimit, kv{"Max": MaxTournamentsPerWeek, "Again": week[0].Add(7 * 24 * time.Hour).UTC().Format("Jan 2 15:04 MST")})
	}
	u.TournamentsMade = append(week, r.now)
	if err := r.saveUser(u); err != nil {
		return err
	}
	t := &tourney{Name: name, Game: c.Game, Variant: o.variant, Format: o.format, Rounds: o.rounds, Min: o.min, Max: o.max,
		Double: o.double, Rated: o.rated, Creator: u.ID, Created: r.now, State: TournamentOpen,
		Players: []entrant{{ID: u.ID, Joined: r.now}}}
	if o.private != "" {
		salt := make([]byte, 16)
		if _, err := io.ReadFull(r.e.cfg.Rand, salt); err != nil {
			return fmt.Errorf("engine: tournament salt: %w", err)
		}
		t.Private = &secret{Salt: salt, Hash: saltedHash(salt, o.private)}
	}
	if err := saveTourney(r.tx, t); err != nil {
		return err
	}
	return r.tourReply(t, "created", kv{"User": u.ID})
}

// saltedHash is a private tournament's password as kept.
func saltedHash(salt []byte, pw string) []byte {
	h := sha256.Sum256(append(slices.Clone(salt), pw...))
	return h[:]
}

// mayEnter refuses a player in MaxTournamentsPerPlayer open or running
// tournaments already (the robot excepted).
func (r *request) mayEnter(u *user) error {
	if u.Robot {
		return nil
	}
	if !u.canPlay() {
		return refuse(whyUnconfirmed, kv{"User": u.ID})
	}
	n, err := playerTourneys(r.tx, u.ID)
	if err != nil {
		return err
	}
	if n >= MaxTournamentsPerPlayer {
		return refuse(whyTourPlayerLimit, kv{"User": u.ID, "Max": MaxTournamentsPerPlayer})
	}
	return nil
}

// tourJoin: GAME tournament join NAME USERID PASSWORD [PASSWORD2]. The
// join that fills the tournament starts it.
func (r *request) tourJoin(c Command) error {
	t, u, err := r.tourPlayer(c)
	if err != nil {
		return err
	}
	if t.Private != nil {
		given := ""
		if len(c.Args) > 3 {
			given = c.Args[3]
		}
		if subtle.ConstantTimeCompare(saltedHash(t.Private.Salt, given), t.Private.Hash) != 1 {
			return refuse(whyTourPrivate, kv{"Name": t.Name})
		}
	}
	return r.enter(t, u)
}

// tourRobot: GAME tournament robot NAME USERID PASSWORD, by the creator:
// the robot player joins (Config.TournamentRobot).
func (r *request) tourRobot(c Command) error {
	t, u, err := r.tourPlayer(c)
	if err != nil {
		return err
	}
	if !strings.EqualFold(u.ID, t.Creator) {
		return refuse(whyTourNotCreator, kv{"Name": t.Name, "Creator": t.Creator})
	}
	if !r.e.cfg.TournamentRobot || !r.e.cfg.RobotPlayer || r.e.games[t.Game].Robot == nil {
		return refuse(whyTourNoRobot, kv{"Name": t.Name})
	}
	// Refused before robotUser, which makes the robot's account.
	if err := t.mayJoin(RobotID); err != nil {
		return err
	}
	robot, ok, err := r.robotUser(RobotID)
	if err != nil {
		return err
	}
	if !ok {
		return refuse(whyTourNoRobot, kv{"Name": t.Name})
	}
	return r.enter(t, robot)
}

// mayJoin refuses userid a place in t: t has started, or has him. (An
// open tournament is never full: the join that fills it starts it.)
func (t *tourney) mayJoin(userid string) error {
	if t.State != TournamentOpen {
		return refuse(whyTourNotOpen, kv{"Name": t.Name, "State": t.State})
	}
	if t.index(userid) >= 0 {
		return refuse(whyTourJoined, kv{"Name": t.Name, "User": userid})
	}
	return nil
}

// enter adds u to open t, and starts t when it is full.
func (r *request) enter(t *tourney, u *user) error {
	if err := t.mayJoin(u.ID); err != nil {
		return err
	}
	if err := r.mayEnter(u); err != nil {
		return err
	}
	t.Players = append(t.Players, entrant{ID: u.ID, Joined: r.now})
	if len(t.Players) == t.Max {
		return r.startTourney(t)
	}
	if err := saveTourney(r.tx, t); err != nil {
		return err
	}
	return r.tourReply(t, "joined", kv{"User": u.ID})
}

// tourLeave: GAME tournament leave NAME USERID PASSWORD, before the
// start. The creator's leave cancels the tournament: the others are told,
// and the name is free again.
func (r *request) tourLeave(c Command) error {
	t, u, err := r.tourPlayer(c)
	if err != nil {
		return err
	}
	if t.State != TournamentOpen {
		return refuse(whyTourStarted, kv{"Name": t.Name})
	}
	i := t.index(u.ID)
	if i < 0 {
		return refuse(whyTourNotPlayer, kv{"Name": t.Name, "User": u.ID})
	}
	if !strings.EqualFold(u.ID, t.Creator) {
		t.Players = slices.Delete(t.Players, i, i+1)
		if err := saveTourney(r.tx, t); err != nil {
			return err
		}
		return r.tourReply(t, "left", kv{"User": u.ID})
	}
	for _, k := range t.indexKeys() {
		if err := r.tx.Delete(bucketTourIndex, k); err != nil {
			return err
		}
	}
	if err := r.tx.Delete(bucketTournaments, tourKey(t.Name)); err != nil {
		return err
	}
	v, err := r.tourView(t)
	if err != nil {
		return err
	}
	return r.tourMails("tournament-cancelled", t, v, func(p entrant) bool { return true })
}

// tourStart: GAME tournament start NAME USERID PASSWORD, by the creator,
// once Min players have joined.
func (r *request) tourStart(c Command) error {
	t, u, err := r.tourPlayer(c)
	if err != nil {
		return err
	}
	switch {
	case !strings.EqualFold(u.ID, t.Creator):
		return refuse(whyTourNotCreator, kv{"Name": t.Name, "Creator": t.Creator})
	case t.State != TournamentOpen:
		return refuse(whyTourStarted, kv{"Name": t.Name})
	case len(t.Players) < t.Min:
		return refuse(whyTourTooFew, kv{"Name": t.Name, "Players": len(t.Players), "Min": t.Min})
	}
	return r.startTourney(t)
}

// tourWithdraw: GAME tournament withdraw NAME USERID PASSWORD, after the
// start: the player's running games are lost by forfeit, and he is paired
// no more.
func (r *request) tourWithdraw(c Command) error {
	t, u, err := r.tourPlayer(c)
	if err != nil {
		return err
	}
	i := t.index(u.ID)
	switch {
	case i < 0:
		return refuse(whyTourNotPlayer, kv{"Name": t.Name, "User": u.ID})
	case t.State == TournamentOpen:
		return refuse(whyTourNotStarted, kv{"Name": t.Name})
	case t.State == TournamentFinished:
		return refuse(whyTourFinished, kv{"Name": t.Name})
	case !t.Players[i].Withdrawn.IsZero():
		return refuse(whyTourWithdrawn, kv{"Name": t.Name, "User": u.ID})
	}
	t.Players[i].Withdrawn = r.now
	var boards []int
	for _, rd := range t.Played {
		for _, g := range rd.Games {
			if (g.White == i || g.Black == i) && g.Board != 0 && g.Result == tournament.Pending {
				boards = append(boards, g.Board)
			}
		}
	}
	if err := saveTourney(r.tx, t); err != nil {
		return err
	}
	if err := r.tourReply(t, "withdrew", kv{"User": u.ID}); err != nil {
		return err
	}
	defer r.unbounded()()
	for _, b := range boards {
		g, ok, err := r.loadGame(b)
		switch {
		case err != nil:
			return err
		case !ok:
			return fmt.Errorf("engine: tournament %s: board %d has no record", t.Name, b)
		case g.over():
			continue
		}
		if err := r.forfeitWithdrawn(g, u.ID); err != nil {
			return err
		}
	}
	return nil
}

// forfeitWithdrawn ends g, lost by forfeit by userid, who withdrew. On his
// turn the move list records "Forfeit", as the timer's forfeit; out of
// turn only the result records it, as a resignation out of turn.
func (r *request) forfeitWithdrawn(g *game, userid string) error {
	p := g.player(strings.ToLower(userid))
	pos, err := r.e.position(g, -1)
	if err != nil {
		return err
	}
	if pos.Turn() == p {
		g.Moves = append(g.Moves, moveForfeit)
		g.MoveTimes = append(g.MoveTimes, r.now)
		g.LastMove = r.now
	}
	g.Proposal = nil
	r.finish(g, StatusWon, 3-p, EndForfeit)
	notice, err := r.notice("tournament-forfeit", kv{"User": g.Players[p-1], "Name": g.Tournament})
	if err != nil {
		return err
	}
	return r.moved(g, nil, notice)
}

// unbounded lifts the bounds of one incoming mail until the function it
// returns is called: a tournament's mails all go (engine/doc.go,
// "Tournaments"), bounded by its size instead.
func (r *request) unbounded() func() {
	was := r.bounded
	r.bounded = false
	return func() { r.bounded = was }
}

// tourShow: GAME tournament show NAME.
func (r *request) tourShow(c Command) error {
	t, err := r.loadTourneyArg(c.Game, c.Args[0])
	if err != nil {
		return err
	}
	v, err := r.tourView(t)
	if err != nil {
		return err
	}
	return r.mail("tournament", []string{r.in.From}, v)
}

// tourList: GAME tournaments, the open and running ones.
func (r *request) tourList(c Command) error {
	list, err := r.e.ListTournaments(r.tx, c.Game, TournamentOpen, TournamentRunning)
	if err != nil {
		return err
	}
	return r.mail("tournaments", []string{r.in.From}, kv{"Title": r.title(c.Game), "Word": c.Game, "List": list})
}

// tourReply answers the sender of a command that changed t: what happened
// (notice tournament-KIND), then the tournament as show gives it.
func (r *request) tourReply(t *tourney, kind string, data kv) error {
	v, err := r.tourView(t)
	if err != nil {
		return err
	}
	data["Name"] = t.Name
	if v.Notice, err = r.notice("tournament-"+kind, data); err != nil {
		return err
	}
	return r.mail("tournament", []string{r.in.From}, v)
}

// tourView is the data of the tournament mails.
type tourView struct {
	*TournamentDetail
	Word   string // the game's word, for the commands the mail shows
	Notice string
	// Player and Games are the recipient's and his games, for the start
	// and round mails; NewRound the round a round mail announces.
	Player   string
	Games    []tourGameLine
	NewRound int
}

// tourGameLine is a game of the recipient: the board, his opponent and
// whether he moves first ("" opponent for a bye).
type tourGameLine struct {
	Board    int
	Opponent string
	First    bool
	Result   string
}

func (r *request) tourView(t *tourney) (*tourView, error) {
	d, err := r.e.detail(t)
	if err != nil {
		return nil, err
	}
	return &tourView{TournamentDetail: d, Word: t.Game}, nil
}

// tourMails mails kind to each player of t that pick accepts, each with
// his own games of the last round (all of them for a round robin's start).
func (r *request) tourMails(kind string, t *tourney, v *tourView, pick func(entrant) bool) error {
	for i, p := range t.Players {
		if !pick(p) {
			continue
		}
		u, ok, err := r.loadUser(p.ID)
		if err != nil {
			return err
		}
		if !ok || len(u.Addresses) == 0 || !u.Left.IsZero() {
			continue // the robot, and those who left, read no mail
		}
		mv := *v
		mv.Player, mv.Games = u.ID, nil
		rounds := t.Played
		if t.Format != FormatRoundRobin && len(rounds) > 0 {
			rounds = rounds[len(rounds)-1:]
		}
		for _, rd := range rounds {
			for _, g := range rd.Games {
				switch {
				case g.White == i && g.Black == tournament.Bye:
					mv.Games = append(mv.Games, tourGameLine{Result: resultText(g)})
				case g.White == i:
					mv.Games = append(mv.Games, tourGameLine{Board: g.Board, Opponent: t.Players[g.Black].ID, First: true, Result: resultText(g)})
				case g.Black == i:
					mv.Games = append(mv.Games, tourGameLine{Board: g.Board, Opponent: t.Players[g.White].ID, Result: resultText(g)})
				}
			}
		}
		if err := r.mail(kind, u.Addresses, &mv); err != nil {
			return err
		}
	}
	return nil
}

// startTourney starts open t: the players ordered by rating, the first
// round (a round robin's every round) paired and its games started, and
// each player mailed his games.
func (r *request) startTourney(t *tourney) error {
	defer r.unbounded()()
	for i := range t.Players {
		u, ok, err := r.loadUser(t.Players[i].ID)
		if err != nil {
			return err
		}
		if ok {
			s := u.in(t.Game)
			t.Players[i].Rating = roundRating(s.Rating)
		}
	}
	slices.SortStableFunc(t.Players, func(a, b entrant) int { return b.Rating - a.Rating })
	t.State, t.Started = TournamentRunning, r.now
	n := len(t.Players)
	switch t.Format {
	case FormatRoundRobin:
		rounds, err := tournament.RoundRobin(n, t.Double)
		if err != nil {
			return err
		}
		for _, rd := range rounds {
			// A round robin's bye is no game: it scores nothing.
			rd = slices.DeleteFunc(rd, func(g tournament.Game) bool { return g.IsBye() })
			if err := r.startRound(t, rd); err != nil {
				return err
			}
		}
	case FormatSwiss:
		if t.Rounds == 0 {
			t.Rounds = max(1, bits.Len(uint(n-1))) // ⌈log2 n⌉
		}
		t.Rounds = min(t.Rounds, n-1)
		fallthrough
	default:
		if _, err := r.nextRound(t); err != nil {
			return err
		}
	}
	if err := r.settle(t); err != nil {
		return err
	}
	v, err := r.tourView(t)
	if err != nil {
		return err
	}
	if err := r.tourMails("tournament-start", t, v, func(entrant) bool { return true }); err != nil {
		return err
	}
	return r.tourFinished(t)
}

// nextRound pairs and starts t's next Swiss or knockout round; false when
// there is none (the Swiss has played its rounds or cannot be paired, the
// knockout has its champion).
func (r *request) nextRound(t *tourney) (bool, error) {
	if err := r.withdrawLeavers(t); err != nil {
		return false, err
	}
	var rd tournament.Round
	switch t.Format {
	case FormatSwiss:
		if len(t.Played) >= t.Rounds {
			return false, nil
		}
		var err error
		rd, err = tournament.Swiss(t.pairing(), t.rounds())
		if errors.Is(err, tournament.ErrNoPairing) {
			return false, nil // the tournament ends after the rounds played
		} else if err != nil {
			return false, fmt.Errorf("engine: tournament %s: %w", t.Name, err)
		}
	case FormatKnockout:
		st, err := tournament.Knockout(t.pairing(), t.rounds())
		if err != nil {
			return false, fmt.Errorf("engine: tournament %s: %w", t.Name, err)
		}
		if st.Champion != tournament.Bye {
			return false, nil
		}
		rd = st.Next
	default:
		return false, nil
	}
	return true, r.startRound(t, rd)
}

// withdrawLeavers counts a player whose account signed off as withdrawn:
// he is paired no more.
func (r *request) withdrawLeavers(t *tourney) error {
	for i, p := range t.Players {
		if !p.Withdrawn.IsZero() {
			continue
		}
		u, ok, err := r.loadUser(p.ID)
		if err != nil {
			return err
		}
		if !ok || !u.Left.IsZero() {
			t.Players[i].Withdrawn = r.now
		}
	}
	return nil
}

// startRound records rd as t's next round and starts its games: a game
// of a player who withdrew is his forfeit, without a board.
func (r *request) startRound(t *tourney, rd tournament.Round) error {
	out := round{Started: r.now}
	num := len(t.Played) + 1
	for _, g := range rd {
		tg := tgame{White: g.White, Black: g.Black, Result: g.Result}
		if g.IsBye() {
			tg.Result = tournament.WhiteWon
			out.Games = append(out.Games, tg)
			continue
		}
		wOut, bOut := !t.Players[g.White].Withdrawn.IsZero(), !t.Players[g.Black].Withdrawn.IsZero()
		switch {
		case wOut:
			tg.Result = tournament.WhiteForfeited
		case bOut:
			tg.Result = tournament.BlackForfeited
		default:
			board, err := r.startTourGame(t, num, t.Players[g.White].ID, t.Players[g.Black].ID)
			if err != nil {
				return err
			}
			tg.Board = board
		}
		out.Games = append(out.Games, tg)
	}
	t.Played = append(t.Played, out)
	return nil
}

// startTourGame starts a game of round num of t as a challenge does, and
// returns its board.
func (r *request) startTourGame(t *tourney, num int, white, black string) (int, error) {
	board, err := r.nextBoard()
	if err != nil {
		return 0, err
	}
	g := &game{Board: board, Variant: t.Variant, Players: [2]string{white, black}, Status: StatusPlaying, Started: r.now,
		Asked: []string{strings.ToLower(white), strings.ToLower(black)}, Game: t.Game,
		Tournament: t.Name, Round: num, Unrated: !t.Rated}
	if err := r.saveGame(g); err != nil {
		return 0, err
	}
	gv, err := r.e.view(g, -1, 0)
	if err != nil {
		return 0, err
	}
	if gv.Notice, err = r.notice("tournament-game", kv{"Name": t.Name, "Round": num, "Format": t.Format}); err != nil {
		return 0, err
	}
	return board, r.boardMails(g, "new-game", gv, recipients(g), nil)
}

// roundDone reports whether every game of t's last round (every round of
// a round robin, whose games all run at once) has its result.
func (t *tourney) roundDone() bool {
	rounds := t.Played
	if t.Format != FormatRoundRobin && len(rounds) > 0 {
		rounds = rounds[len(rounds)-1:]
	}
	for _, rd := range rounds {
		for _, g := range rd.Games {
			if g.Result == tournament.Pending {
				return false
			}
		}
	}
	return true
}

// settle pairs and starts rounds while the last one is done (a round of
// forfeits and byes only is done at once), and marks t finished when no
// round is left; the round mails go to the players of each new round
// after the first. It saves t.
func (r *request) settle(t *tourney) error {
	for t.State == TournamentRunning && t.roundDone() {
		started := len(t.Played) > 0
		more, err := r.nextRound(t)
		if err != nil {
			return err
		}
		if !more {
			t.State, t.Ended = TournamentFinished, r.now
			break
		}
		if started && t.roundDone() {
			continue
		}
		if started {
			if err := saveTourney(r.tx, t); err != nil {
				return err
			}
			v, err := r.tourView(t)
			if err != nil {
				return err
			}
			last := t.Played[len(t.Played)-1]
			v.NewRound = len(t.Played)
			in := func(p entrant) bool {
				i := t.index(p.ID)
				return slices.ContainsFunc(last.Games, func(g tgame) bool { return g.White == i || g.Black == i })
			}
			if err := r.tourMails("tournament-round", t, v, in); err != nil {
				return err
			}
		}
	}
	return saveTourney(r.tx, t)
}

// tourFinished mails the final standings to every player of t once it is
// finished.
func (r *request) tourFinished(t *tourney) error {
	if t.State != TournamentFinished {
		return nil
	}
	v, err := r.tourView(t)
	if err != nil {
		return err
	}
	return r.tourMails("tournament-end", t, v, func(entrant) bool { return true })
}

// tourGameOver records the result of g, a tournament's game that just
// ended, and moves the tournament on: the next round when this one is
// done, the end when no round is left. moved calls it in the transaction
// of the game's end.
func (r *request) tourGameOver(g *game) error {
	t, ok, err := loadTourney(r.tx, g.Tournament)
	if err != nil {
		return err
	}
	if !ok || g.Round < 1 || g.Round > len(t.Played) {
		return fmt.Errorf("engine: board %d: tournament %q has no round %d", g.Board, g.Tournament, g.Round)
	}
	games := t.Played[g.Round-1].Games
	k := slices.IndexFunc(games, func(tg tgame) bool { return tg.Board == g.Board })
	if k < 0 {
		return fmt.Errorf("engine: board %d: not a game of tournament %s", g.Board, t.Name)
	}
	games[k].Result = tourResult(g)
	defer r.unbounded()()
	if err := r.settle(t); err != nil {
		return err
	}
	return r.tourFinished(t)
}

// tourResult is the tournament result of finished game g: a forfeit (a
// timer's, a withdrawal's) is one, a resignation a game lost on the
// board. A tournament's game is never cancelled (finish); if an operator's
// tool cancelled one, it counts as a draw.
func tourResult(g *game) tournament.Result {
	switch {
	case g.Status == StatusWon && g.Winner == 1 && g.How == EndForfeit:
		return tournament.BlackForfeited
	case g.Status == StatusWon && g.Winner == 2 && g.How == EndForfeit:
		return tournament.WhiteForfeited
	case g.Status == StatusWon && g.Winner == 1:
		return tournament.WhiteWon
	case g.Status == StatusWon && g.Winner == 2:
		return tournament.BlackWon
	}
	return tournament.Draw
}
