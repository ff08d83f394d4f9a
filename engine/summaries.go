package engine

import (
	"encoding/json"
	"fmt"
	"time"
)

// bucketSummaries holds each game's line of the listings (store schema
// version 7): what a GameSummary holds but its board (the key) and title
// (the engine's), so that a listing of 500 games reads 500 small values
// instead of 500 records with their moves and a replay of each running
// one for the player to move. writeGame keeps it with the record, like
// the indexes; Upgrade writes it on an older store; CheckIndexes compares
// it with the records.
const bucketSummaries = "summaries"

// listed is the value of bucket summaries: a game's GameSummary in short
// JSON, times in Unix nanoseconds (0: none).
type listed struct {
	Game       string    `json:"g"`
	Variant    string    `json:"v,omitempty"`
	Players    [2]string `json:"p"`
	Status     Status    `json:"s"`
	Winner     int       `json:"w,omitempty"`
	How        Ending    `json:"h,omitempty"`
	ToMove     int       `json:"t,omitempty"`
	Moves      int       `json:"m,omitempty"`
	Started    int64     `json:"t0,omitempty"`
	Last       int64     `json:"t1,omitempty"`
	Ended      int64     `json:"t2,omitempty"`
	Tournament string    `json:"tn,omitempty"`
	Round      int       `json:"r,omitempty"`
}

// toMove is the player to move in running game g: the record's entries
// alternate between the players, passes ("--") included (games.Pass:
// every game records the automatic passes), so the next entry is player
// len(Moves) mod 2 + 1's. It is what the replay's Turn says
// (TestSummariesRandomPlay holds them equal) without the replay.
func (g *game) toMove() int {
	if g.over() {
		return 0
	}
	return len(g.Moves)%2 + 1
}

// unixNano is t in Unix nanoseconds, 0 for the zero time.
func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// fromUnixNano reads unixNano back, in UTC.
func fromUnixNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// summaryValue is g's value in bucket summaries: the summary the listings
// show (Engine.summary), read from the record alone.
func summaryValue(g *game) ([]byte, error) {
	l := listed{Game: g.Game, Variant: g.Variant, Players: g.Players, Status: publicStatus(g), Winner: g.Winner,
		How: g.How, ToMove: g.toMove(), Moves: len(g.Moves), Started: unixNano(g.Started), Last: unixNano(g.Started),
		Tournament: g.Tournament, Round: g.Round}
	if !g.LastMove.IsZero() {
		l.Last = unixNano(g.LastMove)
	}
	if g.over() {
		l.Last, l.Ended = unixNano(g.Ended), unixNano(g.Ended)
	}
	b, err := json.Marshal(l)
	if err != nil {
		return nil, fmt.Errorf("engine: summaries/%s: %w", gameKey(g.Board), err)
	}
	return b, nil
}

// indexSummary writes g's line of the listings when it changed from
// old's (nil: a new record).
func indexSummary(tx Tx, old, g *game) error {
	now, err := summaryValue(g)
	if err != nil {
		return err
	}
	if old != nil {
		if was, err := summaryValue(old); err == nil && string(was) == string(now) {
			return nil
		}
	}
	return tx.Put(bucketSummaries, gameKey(g.Board), now)
}

// loadSummary reads the summary of game board from bucket summaries.
func (r *request) loadSummary(board int) (GameSummary, bool, error) {
	b, err := r.tx.Get(bucketSummaries, gameKey(board))
	if err != nil || b == nil {
		return GameSummary{}, false, err
	}
	var l listed
	if err := json.Unmarshal(b, &l); err != nil {
		return GameSummary{}, false, fmt.Errorf("engine: summaries/%s: %w", gameKey(board), err)
	}
	s := GameSummary{Board: board, Game: l.Game, Variant: l.Variant, Players: l.Players, Status: l.Status,
		Winner: l.Winner, How: l.How, ToMove: l.ToMove, Moves: l.Moves, Started: fromUnixNano(l.Started),
		LastActivity: fromUnixNano(l.Last), Ended: fromUnixNano(l.Ended), Tournament: l.Tournament,
		TournamentRound: l.Round}
	if r.e != nil {
		if gm, ok := r.e.games[l.Game]; ok {
			s.Title = gm.Title()
		}
	}
	return s, true, nil
}
