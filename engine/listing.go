package engine

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// MaxListed bounds the games of one listing by mail (games, history, show
// USERID, all show): at about 100 bytes a line it keeps the mail within
// MaxReply. The listing then says how many more there are and how to ask
// for them (after BOARD).
const MaxListed = 500

// MaxCounted bounds the index keys a listing reads to count the games
// after it where no count says (after a board, or for several users): it
// says "over MaxCounted more" past them. The counts give the games of a
// player or of everybody by state, not the place of a board among them
// (bbolt has no rank of a key), so the number after a board is read from
// the keys: a mail listing after a board costs MaxListed lines and at
// most MaxCounted keys, not the rest of a player with a hundred thousand
// games.
const MaxCounted = 10 * MaxListed

// span is one part of a listing's order: the keys of an index that start
// with one of prefixes (one per user, or one for everybody), whose rest
// names the board (boardOfRest). A listing is its running span, then its
// finished span.
type span struct {
	running  bool
	bucket   string
	prefixes []string
	// count is the count key of each prefix ("" for none: counted by
	// reading the keys).
	counts []string
}

// boardOfRest reads the board from the rest of an index key: eight digits
// of 99999999 minus the board (byplayer, running) or the end's time and
// the board (ended).
func boardOfRest(bucket, rest string) (int, error) {
	if bucket == bucketEnded {
		if len(rest) != 24 {
			return 0, fmt.Errorf("engine: index key %q: not a time and board", rest)
		}
		return strconv.Atoi(rest[16:])
	}
	return boardOfInv(rest)
}

// restOf is board's rest in span bucket: what boardOfRest reads back.
func restOf(bucket string, g *game) string {
	if bucket == bucketEnded {
		return invTimeKey(g.ended()) + gameKey(g.Board)
	}
	return invBoard(g.Board)
}

// spans are the parts of the listing of the games of users keys (all
// users for none) in scope and state (StateActive, StateNext,
// StateFinished or StateAll), in order.
func spans(keys []string, scope, state string) []span {
	var out []span
	for _, running := range []bool{true, false} {
		switch {
		case running && state == StateFinished, !running && (state == StateActive || state == StateNext):
			continue
		}
		s := span{running: running}
		countState, mark := countRunning, markRunning
		if !running {
			countState, mark = countFinished, markFinished
		}
		if len(keys) == 0 {
			s.bucket = bucketRunning
			if !running {
				s.bucket = bucketEnded
			}
			s.prefixes = []string{scope + "\x00"}
			s.counts = []string{scopeCount("", scope, countState)}
		} else {
			s.bucket = bucketByPlayer
			for _, k := range keys {
				s.prefixes = append(s.prefixes, playerPrefix(k, scope)+mark)
				s.counts = append(s.counts, scopeCount(k, scope, countState))
			}
		}
		out = append(out, s)
	}
	return out
}

// rests are the rests of span s's keys after rest from ("": from the
// first), sorted and without duplicates (a game of two of the users), at
// most n unless n < 0. It starts each prefix's scan at from: what comes
// before costs nothing.
func (s span) rests(tx Tx, from string, n int) ([]string, error) {
	var out []string
	for _, p := range s.prefixes {
		got := 0
		err := tx.Scan(s.bucket, p+from, func(key string, _ []byte) error {
			rest, ok := strings.CutPrefix(key, p)
			switch {
			case !ok || n >= 0 && got == n:
				return errEnough
			case rest == from:
				return nil
			}
			got++
			out = append(out, rest)
			return nil
		})
		if err != nil && !errors.Is(err, errEnough) {
			return nil, err
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if n >= 0 && len(out) > n {
		out = out[:n]
	}
	return out, nil
}

// countLimit is how many keys a count reads after the first n games:
// MaxCounted and one more (which says there are more), -1 (every key)
// for n as large as a listing of every game.
func countLimit(n int) int {
	if n < 0 || n > math.MaxInt/2 {
		return -1
	}
	return n + MaxCounted + 1
}

// total is the number of games of span s: its counts for one prefix, the
// keys read for several (a game of two of the users is one game), at most
// limit of them.
func (s span) total(tx Tx, limit int) (int, error) {
	if len(s.prefixes) == 1 {
		return count(tx, s.counts[0])
	}
	rs, err := s.rests(tx, "", limit)
	return len(rs), err
}

// listing is listed with the games' records: for those who need more
// than a listing line (show's board mails, the reply's game).
func (r *request) listing(keys []string, scope, state string, after, skip, limit int) (gs []*game, more int, err error) {
	ls, more, _, err := r.listed(keys, scope, state, after, skip, limit)
	if err != nil {
		return nil, 0, err
	}
	for _, l := range ls {
		g, ok, err := r.loadGame(l.Board)
		if err != nil {
			return nil, 0, err
		}
		if !ok {
			return nil, 0, fmt.Errorf("engine: summaries/%s: no game", gameKey(l.Board))
		}
		gs = append(gs, g)
	}
	return gs, more, nil
}

// listed reads one page of the listing of the games of users keys (all
// for none) in scope and state: it leaves out the first skip games, or,
// for after non-zero, the games up to board after in the listing's order;
// then it takes at most limit games. more is the number of games after
// the page. It reads the summaries of the games shown (bucket summaries,
// not their records), and the index keys before them (a page far down
// costs its keys, not their lines); the number after the page comes from
// the counts, or, after a board or for several users, from at most
// MaxCounted keys: over says there are more than more.
func (r *request) listed(keys []string, scope, state string, after, skip, limit int) (ls []GameSummary, more int, over bool, err error) {
	ss := spans(keys, scope, state)
	first, from, err := r.startAfter(ss, after)
	if err != nil {
		return nil, 0, false, err
	}
	fast := after == 0 && state != StateNext
	left := skip
	for i := first; i < len(ss); i++ {
		s := ss[i]
		start := ""
		if i == first {
			start = from
		}
		n := left + limit - len(ls)
		if state == StateNext {
			n = -1 // filtered by the turn: every running game of the users read
		}
		rs, err := s.rests(r.tx, start, n)
		if err != nil {
			return nil, 0, false, err
		}
		if len(rs) > 0 {
			start = rs[len(rs)-1]
		}
		drop := min(left, len(rs))
		left -= drop
		for _, rest := range rs[drop:] {
			board, err := boardOfRest(s.bucket, rest)
			if err != nil {
				return nil, 0, false, err
			}
			l, ok, err := r.loadSummary(board)
			if err != nil {
				return nil, 0, false, err
			}
			if !ok {
				return nil, 0, false, fmt.Errorf("engine: %s/%q: no game %d", s.bucket, rest, board)
			}
			if state == StateNext && len(keys) > 0 && (l.ToMove == 0 || !slices.Contains(keys, strings.ToLower(l.Players[l.ToMove-1]))) {
				continue
			}
			if len(ls) == limit {
				more++
				continue
			}
			ls = append(ls, l)
		}
		if !fast && state != StateNext {
			rest, err := s.rests(r.tx, start, max(MaxCounted+1-more, 0))
			if err != nil {
				return nil, 0, false, err
			}
			more += len(rest)
		}
	}
	if fast {
		total := 0
		for _, s := range ss {
			cut := countLimit(skip + limit)
			n, err := s.total(r.tx, cut)
			if err != nil {
				return nil, 0, false, err
			}
			if len(s.prefixes) > 1 && cut >= 0 && n >= cut {
				over = true
			}
			total += n
		}
		more = max(total-skip-len(ls), 0)
		if over {
			more = min(more, MaxCounted)
		}
		return ls, more, over, nil
	}
	if state != StateNext && more > MaxCounted {
		return ls, MaxCounted, true, nil
	}
	return ls, more, false, nil
}

// startAfter is where a listing of spans ss starts after board after (0:
// at the first game): the span, and the rest after which it starts in it
// ("": at its first key). A board in no span of the listing starts it
// past its end: nothing after it.
func (r *request) startAfter(ss []span, after int) (first int, from string, err error) {
	if after == 0 {
		return 0, "", nil
	}
	g, ok, err := r.loadGame(after)
	if err != nil {
		return 0, "", err
	}
	for i, s := range ss {
		if ok && s.running != g.over() {
			first, from = i, restOf(s.bucket, g)
		}
	}
	if !ok || from == "" {
		first = len(ss)
	}
	return first, from, nil
}

// pageAfter is listed after board after for the web's pages (Page with
// a Cursor after a board): it reads the page's summaries and the index key of
// one game more, never the keys after them, so that a page far down costs
// what the first costs. more comes from the counts, less before (the
// games of the pages before, as the link says) and the page: at least 1
// when a game follows the page, 0 when none does.
func (r *request) pageAfter(keys []string, scope, state string, after, before, limit int) (gs []GameSummary, more int, err error) {
	ss := spans(keys, scope, state)
	first, from, err := r.startAfter(ss, after)
	if err != nil {
		return nil, 0, err
	}
	follows := false
	for i := first; i < len(ss) && !follows; i++ {
		s := ss[i]
		start := ""
		if i == first {
			start = from
		}
		rs, err := s.rests(r.tx, start, limit+1-len(gs))
		if err != nil {
			return nil, 0, err
		}
		for _, rest := range rs {
			if len(gs) == limit {
				follows = true
				break
			}
			board, err := boardOfRest(s.bucket, rest)
			if err != nil {
				return nil, 0, err
			}
			l, ok, err := r.loadSummary(board)
			if err != nil {
				return nil, 0, err
			}
			if !ok {
				return nil, 0, fmt.Errorf("engine: %s/%q: no game %d", s.bucket, rest, board)
			}
			gs = append(gs, l)
		}
	}
	if !follows {
		return gs, 0, nil
	}
	total := 0
	for _, s := range ss {
		n, err := s.total(r.tx, countLimit(before+limit))
		if err != nil {
			return nil, 0, err
		}
		total += n
	}
	return gs, max(total-before-len(gs), 1), nil
}
