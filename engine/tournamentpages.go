package engine

import (
	"errors"
	"slices"
	"strings"
)

// The read API's pages of tournaments, for the web: each costs what it
// returns, read from the index (bucket tourindex) by range: at most
// limit+1 keys of the list and one more for the end of each game's part,
// and the records of the page alone.

// MaxTournamentCursor bounds the cursor a page of tournaments is asked to
// continue after (TournamentPage): a game's word, ":", a name.
const MaxTournamentCursor = 128

// TournamentPage returns up to limit tournaments in state, of game (its
// word, any case; "" every game offered), in the order of the index: by
// game word, then lower-cased name. after is where the page starts: ""
// from the first, else the cursor of the page before ("WORD:name"). next
// is the cursor of this page's last tournament when more follow, ""
// when the list ends with it. ErrNoGame for a game not offered,
// ErrBadState for an unknown state, ErrBadCursor for a cursor not of
// that form.
func (e *Engine) TournamentPage(tx Tx, game string, state TournamentState, after string, limit int) (page []TournamentSummary, next string, err error) {
	k, ok := stateKey[state]
	if !ok {
		return nil, "", ErrBadState
	}
	words, err := e.tourWords(game)
	if err != nil {
		return nil, "", err
	}
	afterWord, afterName := "", ""
	if after != "" {
		var found bool
		afterWord, afterName, found = strings.Cut(after, ":")
		if !found || len(after) > MaxTournamentCursor || afterName == "" || !slices.Contains(words, afterWord) {
			return nil, "", ErrBadCursor
		}
	}
	var names, cursors []string
	for _, w := range words {
		if w < afterWord {
			continue
		}
		prefix := "g" + w + "\x00" + k + "\x00"
		from := prefix
		if w == afterWord {
			from = prefix + afterName + "\x00" // the first key after the cursor's
		}
		err := tx.Scan(bucketTourIndex, from, func(key string, _ []byte) error {
			name, ok := strings.CutPrefix(key, prefix)
			if !ok {
				return errEnough
			}
			names, cursors = append(names, name), append(cursors, w+":"+name)
			if len(names) > limit {
				return errEnough // one past the page: the list goes on
			}
			return nil
		})
		if err != nil && !errors.Is(err, errEnough) {
			return nil, "", err
		}
		if len(names) > limit {
			break
		}
	}
	if len(names) > limit {
		names, next = names[:limit], cursors[limit-1]
	}
	for _, name := range names {
		t, found, err := loadTourney(tx, name)
		if err != nil {
			return nil, "", err
		}
		if found {
			page = append(page, e.tourSummary(t))
		}
	}
	return page, next, nil
}

// ErrBadCursor: a page of tournaments was asked to start after a cursor
// that is not one (TournamentPage).
var ErrBadCursor = errors.New("engine: not a cursor of a list of tournaments")

// tourWords are the words of the games a listing of game covers, in
// order: game's alone, or every game's.
func (e *Engine) tourWords(game string) ([]string, error) {
	if game != "" {
		w := strings.ToLower(game)
		if _, ok := e.games[w]; !ok {
			return nil, ErrNoGame
		}
		return []string{w}, nil
	}
	var words []string
	for _, g := range e.cfg.Games {
		words = append(words, g.Name())
	}
	slices.Sort(words)
	return words, nil
}
