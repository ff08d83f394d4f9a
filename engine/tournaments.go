package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"lyngk.example/lyngk/engine/tournament"
)

// Tournaments: the records, their index and the read API. The commands
// and the play (starting rounds, scoring the games as they end) are in
// tournamentplay.go; who meets whom is package tournament's.
//
// A tournament is one record of bucket tournaments, keyed by its
// lower-cased name; bucket tourindex lists them by game and state, so
// that "GAME tournaments" reads what it returns, and by player, so that a
// player's open and running tournaments are counted without a scan. A
// tournament's games are ordinary game records that name it (game fields
// tournament and round): timers, forfeits, ratings and the robot treat
// them as any game, but for what tournamentplay.go says.

// The tournament buckets (store.BucketTournaments, store.BucketTourIndex).
const (
	bucketTournaments = "tournaments"
	bucketTourIndex   = "tourindex"
)

// ErrNoTournament is the read API's unknown tournament (errors.Is).
var ErrNoTournament = errors.New("engine: no such tournament")

// TournamentFormat is how a tournament pairs its players.
type TournamentFormat string

// The formats.
const (
	// FormatRoundRobin: each meets each (twice with -double, colours
	// swapped), by the Berger tables; every game starts at once.
	FormatRoundRobin TournamentFormat = "roundrobin"
	// FormatSwiss: a fixed number of rounds, each paired when the
	// previous one ends (tournament.Swiss).
	FormatSwiss TournamentFormat = "swiss"
	// FormatKnockout: one game a match, seeded by rating, a drawn game
	// replayed once with the colours swapped (tournament.Knockout).
	FormatKnockout TournamentFormat = "knockout"
)

// TournamentState is where a tournament stands.
type TournamentState string

// The states.
const (
	TournamentOpen     TournamentState = "open"     // taking players
	TournamentRunning  TournamentState = "running"  // started, games to play
	TournamentFinished TournamentState = "finished" // every game over
)

// stateKey orders the states in the index.
var stateKey = map[TournamentState]string{TournamentOpen: "0", TournamentRunning: "1", TournamentFinished: "2"}

// tourney is a record of bucket tournaments, keyed by the lower-cased
// name.
type tourney struct {
	V       int              `json:"v"`
	Name    string           `json:"name"` // as created
	Game    string           `json:"game"` // the game's word
	Variant string           `json:"variant"`
	Format  TournamentFormat `json:"format"`
	// Rounds is the number of rounds a Swiss plays (0 for the other
	// formats: a round robin's follow from the players, a knockout's from
	// its results).
	Rounds int `json:"swiss_rounds,omitempty"`
	// Min and Max bound the players: start needs Min, the Max-th join
	// starts it.
	Min    int  `json:"min"`
	Max    int  `json:"max"`
	Double bool `json:"double,omitempty"` // round robin played twice
	Rated  bool `json:"rated,omitempty"`  // its games change ratings
	// Private holds the salt and the SHA-256 of salt+PASSWORD2 that a
	// join must give; nil for a public tournament.
	Private *secret         `json:"private,omitempty"`
	Creator string          `json:"creator"` // userid as signed up
	Created time.Time       `json:"created"`
	State   TournamentState `json:"state"`
	Started time.Time       `json:"started,omitzero"`
	Ended   time.Time       `json:"ended,omitzero"`
	// Players are in the order they joined while open; at the start they
	// are ordered by rating, the higher first (equal ratings in the order
	// they joined): the Berger numbers of a round robin, the seeds of a
	// knockout, the initial ranking of a Swiss. A player's index in this
	// list is how rounds name him.
	Players []entrant `json:"players"`
	// Played are the rounds started so far, in order.
	Played []round `json:"played,omitempty"`
}

// secret is a salted SHA-256 of a private tournament's password: it guards
// no account, only who may join a group, so it is checked in the
// transaction (bcrypt is kept for the accounts' passwords).
type secret struct {
	Salt []byte `json:"salt"`
	Hash []byte `json:"hash"`
}

// entrant is a player of a tournament.
type entrant struct {
	ID     string    `json:"id"` // userid as signed up
	Joined time.Time `json:"joined"`
	// Rating is his rating in the game at the start (the seeding); 0
	// while the tournament is open.
	Rating int `json:"rating,omitempty"`
	// Withdrawn is when he withdrew (his games then left lost by
	// forfeit, and he is paired no more); zero if he did not.
	Withdrawn time.Time `json:"withdrawn,omitzero"`
}

// round is one round of a tournament: its games in board order.
type round struct {
	Started time.Time `json:"started"`
	Games   []tgame   `json:"games"`
}

// tgame is one game of a round: White and Black are indexes of
// tourney.Players (Black tournament.Bye for a bye); Board is the game
// record (0 for a bye); Result is set when the game ends.
type tgame struct {
	White  int               `json:"white"`
	Black  int               `json:"black"`
	Board  int               `json:"board,omitempty"`
	Result tournament.Result `json:"result,omitempty"`
}

// tourKey is a tournament's key: its name lower-cased.
func tourKey(name string) string { return strings.ToLower(name) }

// indexKeys are the keys of t in bucket tourindex: "g" game 0x00 state
// 0x00 name (every tournament, by game and state), and while it is open or
// running "p" userid 0x00 name for each player who has not withdrawn (a
// player's tournaments, bounded by MaxTournamentsPerPlayer).
func (t *tourney) indexKeys() []string {
	name := tourKey(t.Name)
	keys := []string{"g" + t.Game + "\x00" + stateKey[t.State] + "\x00" + name}
	if t.State != TournamentFinished {
		for _, p := range t.Players {
			if p.Withdrawn.IsZero() {
				keys = append(keys, "p"+strings.ToLower(p.ID)+"\x00"+name)
			}
		}
	}
	return keys
}

// loadTourney reads the tournament of name (any case).
func loadTourney(tx Tx, name string) (*tourney, bool, error) {
	t := new(tourney)
	ok, err := load(tx, bucketTournaments, tourKey(name), t)
	return t, ok, err
}

// saveTourney is every write of a tournament record: the record and its
// index keys, in the caller's transaction.
func saveTourney(tx Tx, t *tourney) error {
	t.V = recordVersion
	key := tourKey(t.Name)
	old, found, err := loadTourney(tx, key)
	if err != nil {
		return err
	}
	keep := t.indexKeys()
	if found {
		for _, k := range old.indexKeys() {
			if !slices.Contains(keep, k) {
				if err := tx.Delete(bucketTourIndex, k); err != nil {
					return err
				}
			}
		}
	}
	if err := save(tx, bucketTournaments, key, t); err != nil {
		return err
	}
	for _, k := range keep {
		if err := tx.Put(bucketTourIndex, k, nil); err != nil {
			return err
		}
	}
	return nil
}

// playerTourneys counts the open and running tournaments userid plays in
// (withdrawn ones not counted).
func playerTourneys(tx Tx, userid string) (int, error) {
	n := 0
	err := scanPrefix(tx, bucketTourIndex, "p"+strings.ToLower(userid)+"\x00", func(string) error { n++; return nil })
	return n, err
}

// index returns the index in t.Players of userid (any case), -1 for none.
func (t *tourney) index(userid string) int {
	return slices.IndexFunc(t.Players, func(p entrant) bool { return strings.EqualFold(p.ID, userid) })
}

// pairing converts t's players for package tournament.
func (t *tourney) pairing() []tournament.Player {
	ps := make([]tournament.Player, len(t.Players))
	for i, p := range t.Players {
		ps[i] = tournament.Player{Rating: p.Rating, Withdrawn: !p.Withdrawn.IsZero()}
	}
	return ps
}

// rounds converts t's rounds for package tournament.
func (t *tourney) rounds() []tournament.Round {
	rs := make([]tournament.Round, len(t.Played))
	for i, r := range t.Played {
		for _, g := range r.Games {
			rs[i] = append(rs[i], tournament.Game{White: g.White, Black: g.Black, Result: g.Result})
		}
	}
	return rs
}

// The read API of tournaments: what anybody may see of them, for the mail
// listings and the web pages. A private tournament is listed and shown
// like any (Private says it is); only its password is never shown.

// TournamentSummary is one tournament in a listing.
type TournamentSummary struct {
	Name    string           `json:"name"`
	Game    string           `json:"game"`  // the game's word
	Title   string           `json:"title"` // the game's name in headings
	Variant string           `json:"variant"`
	Format  TournamentFormat `json:"format"`
	State   TournamentState  `json:"state"`
	// PlannedRounds is the number of rounds planned: a Swiss's, a round robin's
	// (the Berger rounds, doubled with -double), 0 for a knockout, whose
	// number follows from its results.
	PlannedRounds int       `json:"planned_rounds"`
	Round         int       `json:"round"`   // rounds started so far
	Players       int       `json:"players"` // players entered
	Min           int       `json:"min"`
	Max           int       `json:"max"`
	Double        bool      `json:"double,omitempty"`
	Rated         bool      `json:"rated,omitempty"`
	Private       bool      `json:"private,omitempty"`
	Creator       string    `json:"creator"`
	Created       time.Time `json:"created"`
	Started       time.Time `json:"started,omitzero"`
	Ended         time.Time `json:"ended,omitzero"`
	// Winner is the winner once finished: the first of the standings, or
	// a knockout's champion; "" while it runs, or when several share the
	// first place.
	Winner string `json:"winner,omitempty"`
}

// Describe is the format as the mails write it: "round robin", "double
// round robin", "Swiss of 3 rounds", "knockout".
func (s TournamentSummary) Describe() string {
	switch s.Format {
	case FormatRoundRobin:
		if s.Double {
			return "double round robin"
		}
		return "round robin"
	case FormatSwiss:
		switch s.PlannedRounds {
		case 0:
			return "Swiss"
		case 1:
			return "Swiss of 1 round"
		}
		return fmt.Sprintf("Swiss of %d rounds", s.PlannedRounds)
	}
	return string(s.Format)
}

// TournamentPlayer is a player of a tournament.
type TournamentPlayer struct {
	ID string `json:"id"`
	// Seed is his number from 1 once the tournament started: his Berger
	// number, seed or initial rank (the order of TournamentDetail.Entrants);
	// 0 while it is open.
	Seed      int       `json:"seed,omitempty"`
	Rating    int       `json:"rating,omitempty"` // at the start
	Withdrawn time.Time `json:"withdrawn,omitzero"`
}

// TournamentStanding is one line of the standings. Scores come as their
// integers (Score and HeadToHead in half points, SB in quarter points) and
// written as players read them ("2½", "6¾").
type TournamentStanding struct {
	Rank           int    `json:"rank"` // shared by players level on everything
	Player         string `json:"player"`
	Score          int    `json:"score_halves"`
	SB             int    `json:"sb_quarters"`
	HeadToHead     int    `json:"h2h_halves"`
	Wins           int    `json:"wins"`
	Games          int    `json:"games"`
	ScoreText      string `json:"score"`
	SBText         string `json:"sb"`
	HeadToHeadText string `json:"h2h"`
	Withdrawn      bool   `json:"withdrawn,omitempty"`
}

// TournamentGame is one game of a round.
type TournamentGame struct {
	Board int    `json:"board,omitempty"` // 0 for a bye
	White string `json:"white"`
	Black string `json:"black,omitempty"` // "" for a bye
	// Result is "1-0", "0-1", "½-½", "+/-" (Black forfeited), "-/+"
	// (White forfeited), "bye", or "" while the game runs.
	Result string `json:"result,omitempty"`
}

// TournamentRound is a round and its games.
type TournamentRound struct {
	Number  int              `json:"number"` // from 1
	Started time.Time        `json:"started"`
	Games   []TournamentGame `json:"games"`
}

// TournamentDetail is one tournament with everything anybody may see.
type TournamentDetail struct {
	TournamentSummary
	Entrants  []TournamentPlayer   `json:"entrants"`  // in seed order once started
	Standings []TournamentStanding `json:"standings"` // none while open
	// Crosstable[i][j] is what Entrants[i] scored against Entrants[j], one
	// entry a game in round order ("1", "½", "0", "+" and "-" for
	// forfeits, "*" running), joined by spaces; "" where they have not met
	// and on the diagonal.
	Crosstable [][]string        `json:"crosstable"`
	Rounds     []TournamentRound `json:"rounds"`
	// Stage is a knockout's current stage from 1 (0 for the other formats).
	Stage int `json:"stage,omitempty"`
}

// resultText is a result as the read API writes it.
func resultText(g tgame) string {
	switch {
	case g.Black == tournament.Bye:
		return "bye"
	case g.Result == tournament.Pending:
		return ""
	}
	return g.Result.String()
}

// plannedRounds is the number of rounds t plays (0 for a knockout).
func (t *tourney) plannedRounds() int {
	switch t.Format {
	case FormatSwiss:
		return t.Rounds
	case FormatRoundRobin:
		n := len(t.Players)
		if n < 2 {
			return 0
		}
		r := n - 1 + n%2
		if t.Double {
			r *= 2
		}
		return r
	}
	return 0
}

// tourSummary is t in a listing.
func (e *Engine) tourSummary(t *tourney) TournamentSummary {
	s := TournamentSummary{Name: t.Name, Game: t.Game, Title: e.games[t.Game].Title(), Variant: t.Variant,
		Format: t.Format, State: t.State, PlannedRounds: t.plannedRounds(), Round: len(t.Played), Players: len(t.Players),
		Min: t.Min, Max: t.Max, Double: t.Double, Rated: t.Rated, Private: t.Private != nil, Creator: t.Creator,
		Created: t.Created, Started: t.Started, Ended: t.Ended}
	if t.State == TournamentFinished {
		s.Winner = t.winner()
	}
	return s
}

// winner is the winner of finished t: a knockout's champion, else the one
// first of the standings; "" when several share the first place.
func (t *tourney) winner() string {
	if t.Format == FormatKnockout {
		if st, err := tournament.Knockout(t.pairing(), t.rounds()); err == nil && st.Champion != tournament.Bye {
			return t.Players[st.Champion].ID
		}
		return ""
	}
	st, err := tournament.Standings(len(t.Players), t.rounds())
	if err != nil || len(st) == 0 || len(st) > 1 && st[1].Rank == 1 {
		return ""
	}
	return t.Players[st[0].Player].ID
}

// ListTournaments returns the tournaments of game (its word; "" every
// game) in the given states (none: every state), by game, then state
// (open, running, finished), then name. It reads the index and the
// records it returns.
func (e *Engine) ListTournaments(tx Tx, game string, states ...TournamentState) ([]TournamentSummary, error) {
	var words []string
	if game != "" {
		if _, ok := e.games[strings.ToLower(game)]; !ok {
			return nil, ErrNoGame
		}
		words = []string{strings.ToLower(game)}
	} else {
		for _, g := range e.cfg.Games {
			words = append(words, g.Name())
		}
		slices.Sort(words)
	}
	if len(states) == 0 {
		states = []TournamentState{TournamentOpen, TournamentRunning, TournamentFinished}
	}
	var list []TournamentSummary
	for _, w := range words {
		for _, st := range states {
			k, ok := stateKey[st]
			if !ok {
				return nil, ErrBadState
			}
			err := scanPrefix(tx, bucketTourIndex, "g"+w+"\x00"+k+"\x00", func(name string) error {
				t, found, err := loadTourney(tx, name)
				if err != nil || !found {
					return err
				}
				list = append(list, e.tourSummary(t))
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
	}
	return list, nil
}

// PlayerTournaments returns the open and running tournaments userid (any
// case) plays in, withdrawn ones apart, by name: what his page links. It
// reads the index and the records it returns.
func (e *Engine) PlayerTournaments(tx Tx, userid string) ([]TournamentSummary, error) {
	var list []TournamentSummary
	err := scanPrefix(tx, bucketTourIndex, "p"+strings.ToLower(userid)+"\x00", func(name string) error {
		t, found, err := loadTourney(tx, name)
		if err != nil || !found {
			return err
		}
		list = append(list, e.tourSummary(t))
		return nil
	})
	return list, err
}

// ReadTournament returns the tournament of name (any case):
// ErrNoTournament when there is none.
func (e *Engine) ReadTournament(tx Tx, name string) (*TournamentDetail, error) {
	t, found, err := loadTourney(tx, name)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, ErrNoTournament
	}
	return e.detail(t)
}

// detail is everything anybody may see of t.
func (e *Engine) detail(t *tourney) (*TournamentDetail, error) {
	d := &TournamentDetail{TournamentSummary: e.tourSummary(t)}
	started := t.State != TournamentOpen
	for i, p := range t.Players {
		tp := TournamentPlayer{ID: p.ID, Rating: p.Rating, Withdrawn: p.Withdrawn}
		if started {
			tp.Seed = i + 1
		}
		d.Entrants = append(d.Entrants, tp)
	}
	n := len(t.Players)
	d.Crosstable = make([][]string, n)
	for i := range d.Crosstable {
		d.Crosstable[i] = make([]string, n)
	}
	mark := func(i, j int, s string) {
		if d.Crosstable[i][j] != "" {
			s = d.Crosstable[i][j] + " " + s
		}
		d.Crosstable[i][j] = s
	}
	for k, r := range t.Played {
		tr := TournamentRound{Number: k + 1, Started: r.Started}
		for _, g := range r.Games {
			tg := TournamentGame{Board: g.Board, White: t.Players[g.White].ID, Result: resultText(g)}
			if g.Black != tournament.Bye {
				tg.Black = t.Players[g.Black].ID
				w, b := crossMarks(g.Result)
				mark(g.White, g.Black, w)
				mark(g.Black, g.White, b)
			}
			tr.Games = append(tr.Games, tg)
		}
		d.Rounds = append(d.Rounds, tr)
	}
	if started && n >= 2 {
		st, err := tournament.Standings(n, t.rounds())
		if err != nil {
			return nil, fmt.Errorf("engine: tournament %s: %w", t.Name, err)
		}
		for _, s := range st {
			d.Standings = append(d.Standings, TournamentStanding{Rank: s.Rank, Player: t.Players[s.Player].ID,
				Score: s.Score, SB: s.SB, HeadToHead: s.HeadToHead, Wins: s.Wins, Games: s.Games,
				ScoreText: tournament.FormatHalves(s.Score), SBText: tournament.FormatQuarters(s.SB),
				HeadToHeadText: tournament.FormatHalves(s.HeadToHead), Withdrawn: !t.Players[s.Player].Withdrawn.IsZero()})
		}
		if t.Format == FormatKnockout {
			// The stage of the round being played: the one that
			// follows the rounds before it.
			rs := t.rounds()
			if t.State == TournamentRunning && len(rs) > 0 {
				rs = rs[:len(rs)-1]
			}
			if ks, err := tournament.Knockout(t.pairing(), rs); err == nil {
				d.Stage = ks.Stage
			}
		}
	}
	return d, nil
}

// crossMarks are a game's entries in the crosstable for White and Black.
func crossMarks(r tournament.Result) (white, black string) {
	switch r {
	case tournament.WhiteWon:
		return "1", "0"
	case tournament.BlackWon:
		return "0", "1"
	case tournament.Draw:
		return "½", "½"
	case tournament.WhiteForfeited:
		return "-", "+"
	case tournament.BlackForfeited:
		return "+", "-"
	}
	return "*", "*"
}
