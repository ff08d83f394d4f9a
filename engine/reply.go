package engine

import (
	"encoding/binary"
	"errors"
	"html"
	"slices"
	"strconv"
	"strings"
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
		if r.looksLikeMove(f[0]) || slices.Contains(moveWords, strings.ToLower(f[0])) {
			// A player's reply to a mail of a game that takes no move
			// (a preview, say) is told that game's full command. A
			// stranger's answer names nothing his mail chose.
			if board, ok := r.threadBoard(); ok && !r.stranger {
				return refuse(whyTokenUnknown, kv{"Board": board})
			}
			return refuse(whyTokenUnknown, nil)
		}
		return refuse(whyUnknownCommand, kv{"Word": f[0]})
	}
	if chat, err := r.chatBack(tok, line); chat || err != nil {
		return err
	}
	return r.replyWith(tok, f)
}

// commandFirst reports whether r's mail starts with a command (in its
// subject or its first line), rather than a plain reply's words.
func (r *request) commandFirst() bool {
	s := r.script
	return len(s.Lines) > 0 && (s.FromSubject || s.Multiple || r.e.isCommandLine(s.Lines[0]))
}

// replyExpected is the answer to a mail in which the sender wrote nothing:
// what the mail it answers expects. A reply to a board mail is told to
// write the move on the first line (or why that mail takes none now: the
// game moved on, or is over), a reply to a chat mail to write the text;
// any other mail gets the general hint.
func (r *request) replyExpected() (*refusal, error) {
	tok, ours := r.replyToken()
	if !ours {
		return refuse(whyNoCommand, nil), nil
	}
	var rec token
	if len(tok) <= maxTokenLen {
		if _, err := load(r.tx, bucketTokens, tok, &rec); err != nil {
			return nil, err
		}
	}
	if rec.Chat {
		return refuse(whyReplyEmpty, kv{"Board": rec.Board, "Chat": true}), nil
	}
	g, _, err := r.tokenGame(tok)
	var ref *refusal
	if errors.As(err, &ref) {
		return ref, nil
	}
	if err != nil {
		return nil, err
	}
	pos, err := r.e.position(g, -1)
	if err != nil {
		return nil, err
	}
	toMove := g.Players[pos.Turn()-1]
	return refuse(whyReplyEmpty, kv{"Board": g.Board, "ToMove": toMove, "YourTurn": strings.EqualFold(toMove, rec.User),
		"Example": r.e.example(g.Game, len(pos.Moves())+1)}), nil
}

// moveExamples are the moves the answer to a mail without a command gives
// as examples of a reply (err.no-command), each with its game's Title: the
// move that fits the phase of the game whose thread the mail answers
// (threadBoard); else, when the running games of the sender's accounts
// are all of one game, the move of the newest where he is to move (else his
// newest); else, for a sender with games of several kinds or none, and
// for a stranger (his answer names no game his mail chose), each game's
// first move.
func (r *request) moveExamples() ([]kv, error) {
	var g *game
	if !r.stranger {
		var err error
		if g, err = r.senderGame(); err != nil {
			return nil, err
		}
	}
	if g != nil {
		if gm, ok := r.e.games[g.Game]; ok {
			pos, err := r.e.position(g, -1)
			if err != nil {
				return nil, err
			}
			return []kv{{"Title": gm.Title(), "Move": r.e.example(g.Game, len(pos.Moves())+1)}}, nil
		}
	}
	var out []kv
	for _, gm := range r.e.cfg.Games {
		out = append(out, kv{"Title": gm.Title(), "Move": r.e.example(gm.Name(), 1)})
	}
	return out, nil
}

// senderGame is the game a mail without a command is about (see
// moveExamples), or nil.
func (r *request) senderGame() (*game, error) {
	if board, ok := r.threadBoard(); ok {
		g, _, err := r.loadGame(board)
		return g, err
	}
	var a address
	if _, err := load(r.tx, bucketAddresses, strings.ToLower(strings.TrimSpace(r.in.From)), &a); err != nil || len(a.Users) == 0 {
		return nil, err
	}
	// The newest running game; the counts say whether every running game
	// of the users is of its game.
	gs, _, err := r.listing(a.Users, allScope, StateActive, 0, 0, 1)
	if err != nil || len(gs) == 0 {
		return nil, err
	}
	for _, k := range a.Users {
		all, err := count(r.tx, scopeCount(k, allScope, countRunning))
		if err != nil {
			return nil, err
		}
		one, err := count(r.tx, scopeCount(k, gs[0].Game, countRunning))
		if err != nil || one != all {
			return nil, err
		}
	}
	next, _, err := r.listing(a.Users, gs[0].Game, StateNext, 0, 0, 1)
	if err != nil {
		return nil, err
	}
	if len(next) > 0 {
		return next[0], nil
	}
	return gs[0], nil
}

// threadBoard finds the board of the game whose thread the mail answers:
// the thread root of its mails (threadRoot) in References, which every mail
// of a game carries, also one that takes no move in reply. ok is false when
// none is ours or its game is gone.
func (r *request) threadBoard() (board int, ok bool) {
	for _, id := range r.in.References {
		local, domain, found := strings.Cut(strings.Trim(strings.TrimSpace(id), "<>"), "@")
		num, _, dot := strings.Cut(strings.TrimPrefix(local, "game-"), ".")
		if !found || !dot || !strings.HasPrefix(local, "game-") || !strings.EqualFold(domain, r.e.cfg.Domain) {
			continue
		}
		n, err := strconv.Atoi(num)
		if err != nil || n <= 0 {
			continue
		}
		if _, exists, err := r.loadGame(n); err == nil && exists {
			return n, true
		}
	}
	return 0, false
}

// looksLikeMove reports whether s reads as a move of one of the games.
func (r *request) looksLikeMove(s string) bool {
	for _, gm := range r.e.cfg.Games {
		if gm.LooksLikeMove(s) {
			return true
		}
	}
	return false
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
	gm, err := r.e.gameOf(g)
	if err != nil {
		return err
	}
	f = joinMove(gm, f)
	// Words after the move on its line open the comment.
	if len(f) > 1 {
		r.script.Comment = strings.Join(f[1:], " ") + "\n" + r.script.Comment
	}
	if !r.keptLines(tok) {
		// A token recorded before the server kept what it sent
		// (withoutCopies): a copy of the mail answered, without quote
		// marks or an attribution, is cut as the board mail would be
		// written now.
		v, err := r.boardView(g)
		if err != nil {
			return err
		}
		sent, err := r.e.cfg.Templates.Render("board.body", v)
		if err != nil {
			return err
		}
		r.script.Comment = withoutRepeat(r.script.Comment, sent)
	}
	return r.play(g, u, f[0])
}

// tokenGame checks the reply token tok: it must be ours, for a player of
// a running game, and from a board mail of the game's exact position.
func (r *request) tokenGame(tok string) (*game, *user, error) {
	if tok == "" || len(tok) > maxTokenLen {
		return nil, nil, refuse(whyTokenUnknown, nil)
	}
	var rec token
	found, err := load(r.tx, bucketTokens, tok, &rec)
	if err != nil {
		return nil, nil, err
	}
	if !found || rec.Chat {
		// A chat mail's token moves nothing.
		return nil, nil, refuse(whyTokenUnknown, nil)
	}
	g, found, err := r.loadGame(rec.Board)
	switch {
	case err != nil:
		return nil, nil, err
	case !found:
		return nil, nil, refuse(whyTokenUnknown, nil)
	case g.player(rec.User) == 0:
		return nil, nil, refuse(whyTokenNotPlayer, kv{"User": rec.User, "Board": g.Board})
	case g.over():
		return nil, nil, refuse(whyTokenOver, kv{"Board": g.Board}).on(g.Board)
	case rec.TakeBacks != g.TakeBacks || rec.Moves != len(g.Moves) || rec.Changes != g.Changes:
		// The error mail shows the game as it is now: replying to it
		// moves only for the player whose turn it is.
		pos, err := r.e.position(g, -1)
		if err != nil {
			return nil, nil, err
		}
		toMove := g.Players[pos.Turn()-1]
		data := kv{"Board": g.Board, "ToMove": toMove, "YourTurn": strings.EqualFold(toMove, rec.User)}
		switch {
		case rec.TakeBacks != g.TakeBacks:
			return nil, nil, refuse(whyTokenTakenBack, data).on(g.Board)
		case rec.Moves != len(g.Moves):
			data["Sent"], data["Now"] = rec.Moves, len(g.Moves)
			return nil, nil, refuse(whyTokenStale, data).on(g.Board)
		}
		return nil, nil, refuse(whyTokenSpent, data).on(g.Board)
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
// lines of the mail answered to count as its copy, for a token recorded
// before the server kept what it sent: a player's own line may happen to
// equal one, three in a row do not.
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
			// A copy's mark follows the token after a dot (CopyMessageID).
			tok, _, _ := strings.Cut(local[len(tokenPrefix):], ".")
			return strings.ToLower(tok), true
		}
	}
	return "", false
}

// Copies of the mail answered. A client may paste the mail a player
// answers without quote marks and without an attribution, above or below
// what the player writes, re-wrapped, or the text of its HTML part instead
// of its text part. The server keeps, with the reply token of every mail it
// sends, a hash of each line of the mail as sent (keepSent); a mail that
// answers that token loses every run of lines that repeats it
// (withoutCopies) before its command and comment are read.
const (
	// maxSentLines bounds the lines kept of each part of a mail (text,
	// and the HTML part's text): at most 2*maxSentLines*8 bytes of hashes
	// a token, whatever the mail (a long comment in it, say).
	maxSentLines = 96
	// maxJoin is how many lines of a reply may make up one line of the
	// mail, re-wrapped by the client; each of them at most maxPiece bytes
	// (clients wrap at 72 to 78 columns, an HTML table's cells take a line
	// each in some).
	maxJoin  = 8
	maxPiece = 200
	// minWrapped is the shortest line of the mail whose re-wrapped copy
	// counts as a copy by itself: clients wrap lines of 72 columns and
	// more; shorter ones are as likely a player's own few words.
	minWrapped = 60
	// maxCandidates bounds the places of the mail where a copy starting at
	// one line is looked for (a line that the mail holds many times).
	maxCandidates = 4
	// copyScanLines and copyScanBytes bound the part of a mail searched for
	// copies: its first lines, within the size of any mail we send.
	copyScanLines = 2000
	copyScanBytes = MaxReply
)

// keepSent records in the token of the Message-ID id (if it is one) the
// hashes of the lines of m as it is sent: its text part and the text of
// its HTML part, as two lists.
func (r *request) keepSent(id string, m *Mail) error {
	local, _, _ := strings.Cut(id, "@")
	tok, ok := strings.CutPrefix(local, tokenPrefix)
	if !ok {
		return nil
	}
	var rec token
	found, err := load(r.tx, bucketTokens, tok, &rec)
	if err != nil || !found {
		return err
	}
	rec.Text = lineHashes(m.Body)
	if m.HTML != "" {
		rec.HTML = lineHashes(htmlText(m.HTML))
	}
	return saveToken(r.tx, tok, &rec)
}

// lineHashes returns the hashes of the first maxSentLines lines of text
// that are not blank once normalised (copyLine), 8 bytes each.
func lineHashes(text string) []byte {
	var out []byte
	for l := range strings.Lines(text) {
		if s := copyLine(l); s != "" && len(out) < 8*maxSentLines {
			out = binary.BigEndian.AppendUint64(out, fnvAdd(fnvOffset, s))
		}
	}
	return out
}

// copyLine is a line as compared with the mail answered: without quote
// marks (">", "|") in front, white space of any kind collapsed to one
// space, none at the ends; a picture shown as Gmail does, "[image: ALT]",
// is its ALT.
func copyLine(l string) string {
	l = strings.Join(strings.Fields(strings.TrimLeft(l, "> |\t\u00a0")), " ")
	if alt, ok := strings.CutPrefix(l, "[image: "); ok && strings.HasSuffix(alt, "]") {
		l = alt[:len(alt)-1]
	}
	return l
}

// FNV-1a, 64 bits: a join of lines hashes on from the state of its first.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnvAdd(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

// htmlText is the text a reader sees of an HTML part of ours, as a client
// renders it and as mailer renders an HTML reply: tags dropped, entities
// decoded, line breaks only at <br>, block elements and inside <pre>, table
// cells side by side, a picture's alt text on a line of its own; title,
// style and script skipped.
func htmlText(s string) string {
	var b strings.Builder
	pre := false
	for s != "" {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			i = len(s)
		}
		t := html.UnescapeString(s[:i])
		if !pre {
			t = lineEndsAsSpaces.Replace(t)
		}
		b.WriteString(t)
		s = s[i:]
		j := strings.IndexByte(s, '>')
		if j < 0 {
			break
		}
		tag := s[1:j]
		s = s[j+1:]
		end := strings.HasPrefix(tag, "/")
		name, _, _ := strings.Cut(strings.ToLower(strings.TrimPrefix(tag, "/")), " ")
		switch {
		case !end && (name == "title" || name == "style" || name == "script"):
			if k := strings.Index(s, "</"); k >= 0 {
				s = s[k:]
			}
		case name == "pre":
			pre = !end
			b.WriteByte('\n')
		case name == "td" || name == "th":
			b.WriteByte(' ')
		case name == "img":
			// Gmail shows a picture as "[image: ALT]" on a line of its
			// own; others show nothing, a line a copy may leave out.
			if _, alt, ok := strings.Cut(tag, ` alt="`); ok {
				alt, _, _ = strings.Cut(alt, `"`)
				b.WriteString("\n" + html.UnescapeString(alt) + "\n")
			}
		case name == "br" || htmlBlocks[name]:
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// lineEndsAsSpaces is how HTML shows a line end outside <pre>. One
// replacer for all: building one (its lookup table) for every run of text
// between two tags was most of htmlText's time.
var lineEndsAsSpaces = strings.NewReplacer("\r", " ", "\n", " ")

var htmlBlocks = map[string]bool{"p": true, "div": true, "h1": true, "h2": true, "h3": true, "h4": true,
	"h5": true, "h6": true, "table": true, "tr": true, "li": true, "ul": true, "ol": true, "hr": true, "blockquote": true}

// keptLines reports whether the record of token tok holds the lines of
// its mail (keepSent); false for one recorded before they were kept.
func (r *request) keptLines(tok string) bool {
	var rec token
	found, err := load(r.tx, bucketTokens, tok, &rec)
	return err == nil && found && (rec.Text != nil || rec.HTML != nil)
}

// withoutCopies returns the body of r's mail without the runs of lines
// that repeat the mail it answers, when that mail is one of ours with a
// reply token recorded with its lines (keepSent); else the body as it is.
// A record that cannot be read is no reason to refuse the mail: the body
// is then left as it is (a store failure still fails the transaction).
func (r *request) withoutCopies(body string) string {
	tok, ours := r.replyToken()
	if !ours || len(tok) > maxTokenLen {
		return body
	}
	var rec token
	if found, err := load(r.tx, bucketTokens, tok, &rec); err != nil || !found || rec.Text == nil && rec.HTML == nil {
		return body
	}
	return cutCopies(body, [][]byte{rec.Text, rec.HTML})
}

// lineAbove is the index of the last line before lines[i] that is not
// blank, -1 for none.
func lineAbove(lines []string, i int) int {
	for i--; i >= 0 && strings.TrimSpace(lines[i]) == ""; i-- {
	}
	return i
}

// cutCopies drops from body every run of lines that repeats lines of one
// part of the sent mail in their order: each line of the run (or up to
// maxJoin lines joined, as a client re-wraps a long line) is the next line
// of that part, or the one after it (a line the client left out), blank
// lines aside. A run counts only if two of its lines follow each other
// without a blank line between, or a line of the mail of at least
// minWrapped characters takes two or more of its lines: a line of the
// player's that happens to be one of the mail's (a move, "thanks") stays,
// next to a copy too, and so do two short lines that make one (a row of
// the board, "G I"). Blank lines after a run go with it.
func cutCopies(body string, parts [][]byte) string {
	scan, rest := body, ""
	if len(scan) > copyScanBytes {
		i := strings.LastIndexByte(scan[:copyScanBytes], '\n')
		scan, rest = scan[:i+1], scan[i+1:]
	}
	lines := strings.SplitAfter(scan, "\n")
	if len(lines) > copyScanLines {
		rest = strings.Join(lines[copyScanLines:], "") + rest
		lines = lines[:copyScanLines]
	}
	f := newCopyFinder(lines, parts)
	drop := make([]bool, len(lines))
	dropped := false
	for i := 0; i < len(lines); {
		end := f.run(i)
		if end == i {
			i++
			continue
		}
		for ; end < len(lines) && f.n[end] == 0; end++ {
		}
		// The attribution above the copy goes with it, all its lines
		// (attribution.go): once the copy is cut, it no longer stands above
		// a quoted block.
		if a := lineAbove(lines, i); a >= 0 && !drop[a] {
			if s := attributionAbove(lines, a); s >= 0 && !slices.Contains(drop[s:a+1], true) {
				for k := s; k <= a; k++ {
					drop[k] = true
				}
			}
		}
		for ; i < end; i++ {
			drop[i] = true
		}
		dropped = true
	}
	if !dropped {
		return body
	}
	var b strings.Builder
	for i, l := range lines {
		if !drop[i] {
			b.WriteString(l)
		}
	}
	b.WriteString(rest)
	return b.String()
}

// copyFinder holds the lines of a reply and the sent mail's line hashes.
type copyFinder struct {
	// joins[i][k] is the hash of lines i to i+k joined by a space, n[i]
	// how many of them there are (0 for a blank line); size[i] is the
	// length of line i normalised.
	joins [][maxJoin]uint64
	n     []int
	size  []int
	sent  [][]uint64
	at    map[uint64][][2]int // hash -> part and index in sent
}

func newCopyFinder(lines []string, parts [][]byte) *copyFinder {
	f := &copyFinder{joins: make([][maxJoin]uint64, len(lines)), n: make([]int, len(lines)), size: make([]int, len(lines)),
		at: map[uint64][][2]int{}}
	for p, b := range parts {
		var hs []uint64
		for ; len(b) >= 8; b = b[8:] {
			h := binary.BigEndian.Uint64(b)
			f.at[h] = append(f.at[h], [2]int{p, len(hs)})
			hs = append(hs, h)
		}
		f.sent = append(f.sent, hs)
	}
	norm := make([]string, len(lines))
	for i, l := range lines {
		norm[i] = copyLine(l)
		f.size[i] = len(norm[i])
	}
	for i := range lines {
		h := uint64(fnvOffset)
		for k := 0; k < maxJoin && i+k < len(lines) && norm[i+k] != ""; k++ {
			if k > 0 {
				if len(norm[i]) > maxPiece || len(norm[i+k]) > maxPiece {
					break
				}
				h = fnvAdd(h, " ")
			}
			h = fnvAdd(h, norm[i+k])
			f.joins[i][k], f.n[i] = h, k+1
		}
	}
	return f
}

// run returns the end of the longest run of copied lines that starts at
// line i and counts, i when there is none.
func (f *copyFinder) run(i int) int {
	best, tried := i, 0
	for k := range f.n[i] {
		for _, at := range f.at[f.joins[i][k]] {
			if tried++; tried > maxCandidates {
				return best
			}
			if end, ok := f.chain(i+k+1, at[0], at[1], f.wrapped(i, k+1)); ok && end > best {
				best = end
			}
		}
	}
	return best
}

// chain follows a copy of part p whose line q ends before line end: it
// returns where the copy ends and whether it counts.
func (f *copyFinder) chain(end, p, q int, counts bool) (int, bool) {
	for {
		j := end
		for j < len(f.n) && f.n[j] == 0 {
			j++
		}
		k, next := f.next(j, p, q)
		if k == 0 {
			return end, counts
		}
		counts = counts || j == end || f.wrapped(j, k)
		end, q = j+k, next
	}
}

// wrapped reports whether the k lines from i, joined, are a line of the
// mail that counts by itself as a copy.
func (f *copyFinder) wrapped(i, k int) bool {
	if k < 2 {
		return false
	}
	n := k - 1
	for _, s := range f.size[i : i+k] {
		n += s
	}
	return n >= minWrapped
}

// next matches the lines from j (one, or up to maxJoin joined) with line
// q+1 or q+2 of part p: it returns how many lines and the line of p, 0
// when neither matches.
func (f *copyFinder) next(j, p, q int) (int, int) {
	if j == len(f.n) {
		return 0, 0
	}
	for next := q + 1; next <= q+2 && next < len(f.sent[p]); next++ {
		for k := range f.n[j] {
			if f.joins[j][k] == f.sent[p][next] {
				return k + 1, next
			}
		}
	}
	return 0, 0
}
