package engine

import (
	"slices"
	"strings"

	"lyngk.example/lyngk/engine/lyngk"
)

// reply handles a mail whose text starts with something other than a
// command: a plain reply to a board mail, its first word the move. Game and
// player come from the reply token in In-Reply-To or References; the token
// stands in for the password, so it must be ours, for a player of a running
// game, and from a board mail of the game's exact position: the same number
// of moves and no take-back since.
func (r *request) reply(line string) error {
	f := strings.Fields(line)
	tok, ours := r.replyToken()
	if !ours {
		// A move without a board mail to answer: say how to move, rather
		// than that a move is no command.
		if _, _, err := lyngk.ParseMove(f[0]); err == nil || slices.Contains(moveWords, strings.ToLower(f[0])) {
			return refuse("token-unknown", nil)
		}
		return refuse("unknown-command", kv{"Word": f[0]})
	}
	return r.replyWith(tok, f)
}

// replyWith plays the words f of a reply with token tok: the path of a
// plain reply by mail and of a move on the web page /play/TOKEN (play.go).
func (r *request) replyWith(tok string, f []string) error {
	g, u, err := r.tokenGame(tok)
	if err != nil {
		return err
	}
	// "R, e4-e5 #7": a claim or move number written apart belongs to the
	// move, as in the full command; it is no comment.
	f = joinMove(f)
	// Words after the move on its line open the comment.
	if len(f) > 1 {
		r.script.Comment = strings.Join(f[1:], " ") + "\n" + r.script.Comment
	}
	// A client that copies the mail answered without quote marks or an
	// attribution: the server knows what that mail said (the game as it is
	// now), so the copy is cut from the comment.
	v, err := r.boardView(g)
	if err != nil {
		return err
	}
	sent, err := r.e.cfg.Templates.Render("board.body", v)
	if err != nil {
		return err
	}
	r.script.Comment = withoutRepeat(r.script.Comment, sent)
	return r.play(g, u, f[0])
}

// tokenGame checks the reply token tok: it must be ours, for a player of
// a running game, and from a board mail of the game's exact position.
func (r *request) tokenGame(tok string) (*game, *user, error) {
	if tok == "" || len(tok) > maxTokenLen {
		return nil, nil, refuse("token-unknown", nil)
	}
	var rec token
	found, err := load(r.tx, bucketTokens, tok, &rec)
	if err != nil {
		return nil, nil, err
	}
	if !found {
		return nil, nil, refuse("token-unknown", nil)
	}
	g, found, err := r.loadGame(rec.Board)
	switch {
	case err != nil:
		return nil, nil, err
	case !found:
		return nil, nil, refuse("token-unknown", nil)
	case g.player(rec.User) == 0:
		return nil, nil, refuse("token-not-player", kv{"User": rec.User, "Board": g.Board})
	case g.over():
		return nil, nil, refuse("token-over", kv{"Board": g.Board}).on(g.Board)
	case rec.TakeBacks != g.TakeBacks:
		return nil, nil, refuse("token-taken-back", kv{"Board": g.Board}).on(g.Board)
	case rec.Moves != len(g.Moves):
		return nil, nil, refuse("token-stale", kv{"Board": g.Board, "Sent": rec.Moves, "Now": len(g.Moves)}).on(g.Board)
	}
	u, err := r.player(rec.User)
	if err != nil {
		return nil, nil, err
	}
	return g, u, nil
}

// maxTokenLen bounds a token looked up in the store: ours have 32
// characters; anything much longer is not looked up at all.
const maxTokenLen = 64

// repeatRun is how many lines in a row (blank lines aside) must repeat
// lines of the mail answered to count as its copy: a player's own line
// may happen to equal one, three in a row do not.
const repeatRun = 3

// withoutRepeat cuts comment at the first run of repeatRun lines that are
// all lines of sent (compared without surrounding white space).
func withoutRepeat(comment, sent string) string {
	ours := map[string]bool{}
	for _, l := range strings.Split(sent, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			ours[t] = true
		}
	}
	lines := strings.Split(comment, "\n")
	for i := range lines {
		n := 0
		for _, l := range lines[i:] {
			t := strings.TrimSpace(l)
			if t == "" {
				continue
			}
			if !ours[t] {
				break
			}
			if n++; n == repeatRun {
				break
			}
		}
		if n == repeatRun && strings.TrimSpace(lines[i]) != "" {
			return trimComment(lines[:i])
		}
	}
	return comment
}

// trimComment joins lines as a comment: no blank lines at the end, "" for
// none.
func trimComment(lines []string) string {
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// replyToken finds the token of the board mail replied to: In-Reply-To
// first, then References from the newest. ours is false when no Message-ID
// has our form; a Message-ID of our form is a token, known or not.
func (r *request) replyToken() (tok string, ours bool) {
	refs := slices.Clone(r.in.References)
	slices.Reverse(refs)
	for _, id := range append(slices.Clone(r.in.InReplyTo), refs...) {
		local, _, ok := strings.Cut(strings.Trim(strings.TrimSpace(id), "<>"), "@")
		if ok && len(local) > len(tokenPrefix) && strings.EqualFold(local[:len(tokenPrefix)], tokenPrefix) {
			return strings.ToLower(local[len(tokenPrefix):]), true
		}
	}
	return "", false
}
