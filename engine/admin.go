package engine

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"lyngk.example/lyngk/engine/games"
)

// UserInfo is a user as an operator sees it (never the password hash).
type UserInfo struct {
	ID        string
	Addresses []string
	Created   time.Time
	Left      time.Time // zero while signed up
	// Games are the user's rating and record in each game played, by
	// game word; none for a user who has played no game.
	Games []GameStanding
}

// GameStanding is a user's rating and record in one game.
type GameStanding struct {
	Game   string // the game's word
	Rating int
	Won    int
	Lost   int
	Tied   int
}

// GameInfo is a game record as an operator sees it.
type GameInfo struct {
	Board    int
	Game     string // the game's word
	Variant  string
	Players  [2]string
	Moves    []string
	Status   Status // StatusPlaying, StatusWon, StatusTie or StatusCancelled
	Winner   int    // 1 or 2 when won
	How      Ending
	Started  time.Time
	LastMove time.Time
	Ended    time.Time
}

// Users lists every user in userid order, for `lyngk admin`.
func Users(tx Tx) ([]UserInfo, error) {
	var out []UserInfo
	err := tx.ForEach(bucketUsers, func(key string, val []byte) error {
		var u user
		if err := json.Unmarshal(val, &u); err != nil {
			return fmt.Errorf("engine: users/%s: %w", key, err)
		}
		if u.V != recordVersion {
			return fmt.Errorf("engine: users/%s: record version %d, this binary knows %d", key, u.V, recordVersion)
		}
		ui := UserInfo{ID: u.ID, Addresses: u.Addresses, Created: u.Created, Left: u.Left}
		for _, word := range slices.Sorted(maps.Keys(u.Games)) {
			s := u.Games[word]
			ui.Games = append(ui.Games, GameStanding{Game: word, Rating: roundRating(s.Rating), Won: s.Won, Lost: s.Lost, Tied: s.Tied})
		}
		out = append(out, ui)
		return nil
	})
	return out, err
}

// Games lists every game in board order, for `lyngk admin` and metrics.
func Games(tx Tx) ([]GameInfo, error) {
	r := &request{tx: tx}
	gs, err := r.allGames()
	if err != nil {
		return nil, err
	}
	out := make([]GameInfo, len(gs))
	for i, g := range gs {
		out[i] = info(g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Board < out[j].Board })
	return out, nil
}

// GameRecord returns one game and its current board block as mailed;
// offered are the games of the server (Config.Games).
func GameRecord(tx Tx, offered []games.Game, board int) (GameInfo, string, error) {
	e := &Engine{games: map[string]games.Game{}}
	for _, g := range offered {
		e.games[g.Name()] = g
	}
	r := &request{e: e, tx: tx}
	g, ok, err := r.loadGame(board)
	if err != nil {
		return GameInfo{}, "", err
	}
	if !ok {
		return GameInfo{}, "", fmt.Errorf("engine: no board %d", board)
	}
	pos, err := e.position(g, -1)
	if err != nil {
		return GameInfo{}, "", err
	}
	return info(g), pos.Board(g.Players), nil
}

func info(g *game) GameInfo {
	return GameInfo{Board: g.Board, Game: g.Game, Variant: g.Variant, Players: g.Players, Moves: g.Moves,
		Status: g.Status, Winner: g.Winner, How: g.How, Started: g.Started, LastMove: g.LastMove,
		Ended: g.Ended}
}

// String is the one-line summary used in listings.
func (g GameInfo) String() string {
	state := string(g.Status)
	if g.Status == StatusWon {
		state = "won by " + g.Players[g.Winner-1]
	}
	if g.How != "" {
		state += " (" + string(g.How) + ")"
	}
	return fmt.Sprintf("%d %s %s %s-%s %d moves %s", g.Board, g.Game, g.Variant, g.Players[0], g.Players[1],
		len(g.Moves), strings.TrimSpace(state))
}
