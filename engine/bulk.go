package engine

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"lyngk.example/lyngk/engine/games"
)

// Bulk writing, for `lyngk bench-store`, which builds stores of up to
// millions of games to size a server and measure it. Driving Handle with a
// mail per move would take days at that size (every move replays the
// game, renders its board mails and draws their pictures), so these three
// hooks write what the commands write, through the engine's own record
// code (nextBoard, saveUser, saveGame, index, finish, updateRatings,
// newToken), and leave out what only the mails need: no mail is composed,
// no picture drawn, no password hashed (the caller hands over the hash).
// Every move still goes through the game's rules (Parse and Play), so a
// move the rules refuse is an error, never a record. TestBulkAsCommands
// holds each hook to the records the commands leave.

// BulkAccount writes the account id, signed up at created with the bcrypt
// hash of its password and its address confirmed, as signup and the reply
// to its confirmation mail leave it (the confirmation code itself, pruned
// after a week, is not kept).
func (e *Engine) BulkAccount(tx Tx, id, addr, hash string, created time.Time) error {
	if !validUserID(id) || !validAddress(addr, e.cfg.Domain) {
		return fmt.Errorf("engine: bulk account %q <%s>: bad userid or address", id, addr)
	}
	r := &request{e: e, tx: tx, now: created}
	if _, taken, err := r.loadUser(id); err != nil || taken {
		if err == nil {
			err = fmt.Errorf("engine: bulk account %q: taken", id)
		}
		return err
	}
	// The key is the one index writes; for a plain address (no +tag, no
	// gmail dots) it is also askConfirm's, whose window this is.
	a := address{V: recordVersion, Users: []string{strings.ToLower(id)}, Start: created, Sent: 1}
	if err := saveAddress(tx, strings.ToLower(addr), &a); err != nil {
		return err
	}
	return r.saveUser(&user{ID: id, Hash: hash, Addresses: []string{addr}, Created: created})
}

// BulkChallenge opens a game of word name (variant "" is its default)
// between players, as the challenge command does from the first player's
// confirmed address, and returns its board. With tokens, the new-game
// mails' reply tokens are recorded, one a player.
func (e *Engine) BulkChallenge(tx Tx, name, variant string, players [2]string, at time.Time, tokens bool) (int, error) {
	gm, ok := e.games[name]
	if !ok {
		return 0, fmt.Errorf("engine: bulk challenge: no game %q", name)
	}
	if variant == "" {
		variant, _ = gm.Variant("")
	}
	r := &request{e: e, tx: tx, now: at}
	for _, p := range players {
		u, err := r.player(p)
		if err != nil {
			return 0, fmt.Errorf("engine: bulk challenge: %w", err)
		}
		if !u.canPlay() {
			return 0, fmt.Errorf("engine: bulk challenge: %s has no confirmed address", p)
		}
	}
	if strings.EqualFold(players[0], players[1]) {
		return 0, fmt.Errorf("engine: bulk challenge: %s against himself", players[0])
	}
	board, err := r.nextBoard()
	if err != nil {
		return 0, err
	}
	g := &game{Board: board, Game: name, Variant: variant, Players: players, Status: StatusPlaying, Started: at,
		Asked: []string{strings.ToLower(players[0])}}
	if err := r.saveGame(g); err != nil {
		return 0, err
	}
	if tokens {
		return board, r.bulkTokens(g)
	}
	return board, nil
}

// BulkPlay plays moves on board, the i-th at times[i], as the move
// commands would. A game the moves end by the rules is over; any other is
// ended at endAt as end says: EndResign (the player to move resigns),
// EndForfeit (the player to move is forfeited by the timer; a game not yet
// started is cancelled instead, EndTimeout), EndDeclined (the second
// player declines; he must not have moved), or not at all (EndRules: the
// game goes on). Passes ("--") in moves must be where the rules put them,
// with the time of the move they follow, as the commands record them. A
// finished game is rated as the engine rates one. With tokens, each board mail's reply tokens are recorded (one
// for every player after every move and the end).
func (e *Engine) BulkPlay(tx Tx, board int, moves []string, times []time.Time, end Ending, endAt time.Time, tokens bool) error {
	if len(times) != len(moves) {
		return fmt.Errorf("engine: bulk play board %d: %d moves, %d times", board, len(moves), len(times))
	}
	r := &request{e: e, tx: tx}
	g, ok, err := r.loadGame(board)
	if err != nil {
		return err
	}
	if !ok || g.over() {
		return fmt.Errorf("engine: bulk play: board %d is no running game", board)
	}
	pos, err := e.position(g, -1)
	if err != nil {
		return err
	}
	from := len(g.Moves)
	for i, s := range moves {
		if s == games.Pass {
			continue
		}
		m, _, err := pos.Parse(s)
		if err == nil {
			err = pos.Play(m)
		}
		if err != nil {
			return fmt.Errorf("engine: bulk play board %d: move %d %q: %w", board, from+i+1, s, err)
		}
	}
	if len(moves) > 0 {
		r.now = times[len(times)-1]
		r.record(g, pos)
		if got := g.Moves[from:]; !slices.Equal(got, moves) {
			return fmt.Errorf("engine: bulk play board %d: the rules record %q, not %q", board, got, moves)
		}
		copy(g.MoveTimes[from:], times)
	}
	for i, s := range moves {
		if s == games.Pass {
			continue
		}
		g.Changes++
		if !tokens {
			continue
		}
		// The move's board mail shows it with the passes that follow it.
		shown := i + 1
		for shown < len(moves) && moves[shown] == games.Pass {
			shown++
		}
		if err := r.bulkTokensAt(g, from+shown, times[i]); err != nil {
			return err
		}
	}
	ended := g.over() // by the rules
	if !ended && end != EndRules {
		r.now = endAt
		p := pos.Turn()
		switch end {
		case EndResign:
			// As resign: on the resigner's turn the list records it.
			g.Moves = append(g.Moves, moveResign)
			g.MoveTimes = append(g.MoveTimes, r.now)
			g.LastMove = r.now
			r.finish(g, StatusWon, 3-p, EndResign)
			if key := strings.ToLower(g.Players[p-1]); !slices.Contains(g.Subscribers, key) {
				g.Subscribers = append(g.Subscribers, key)
			}
		case EndForfeit:
			// As the timer's tick.
			if !g.started() {
				r.finish(g, StatusCancelled, 0, EndTimeout)
				break
			}
			g.Moves = append(g.Moves, moveForfeit)
			g.MoveTimes = append(g.MoveTimes, r.now)
			g.LastMove = r.now
			r.finish(g, StatusWon, 3-p, EndForfeit)
		case EndDeclined:
			if g.moved(2) {
				return fmt.Errorf("engine: bulk play board %d: the second player moved and cannot decline", board)
			}
			r.finish(g, StatusCancelled, 0, EndDeclined)
		default:
			return fmt.Errorf("engine: bulk play board %d: no such end %q", board, end)
		}
		g.Changes++
		g.Proposal = nil
	}
	if g.over() {
		// As moved: the end voids what was pending; a game that counts
		// is rated.
		g.Submitted, g.Queued = nil, nil
		if g.Status != StatusCancelled {
			if err := r.updateRatings(g); err != nil {
				return err
			}
		}
		if tokens && !ended {
			if err := r.bulkTokens(g); err != nil {
				return err
			}
		}
	}
	return r.saveGame(g)
}

// bulkTokens records the reply tokens of a board mail of g as it is now,
// one for each recipient (boardMails).
func (r *request) bulkTokens(g *game) error { return r.bulkTokensAt(g, len(g.Moves), r.now) }

// bulkTokensAt records the tokens of the board mail sent at sent when g
// had its first moves moves.
func (r *request) bulkTokensAt(g *game, moves int, sent time.Time) error {
	for _, key := range recipients(g) {
		rec := r.tokenFor(g, key)
		rec.Moves, rec.Sent = moves, sent
		if _, err := r.newToken(rec); err != nil {
			return err
		}
	}
	return nil
}
