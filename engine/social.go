package engine

import (
	"slices"
	"strings"
	"time"

	"lyngk.example/lyngk/templates"
)

// subscribe: lyngk subscribe BOARD USERID PASSWORD. The subscriber gets
// the board at once, and every board mail of the game from then on.
func (r *request) subscribe(c Command) error {
	g, u, err := r.gameAndUser(c)
	if err != nil {
		return err
	}
	key := strings.ToLower(u.ID)
	if g.player(key) != 0 {
		return refuse(whySubscribePlayer, kv{"User": u.ID, "Board": g.Board})
	}
	if !slices.Contains(g.Subscribers, key) && len(g.Subscribers) >= MaxSubscribers {
		return refuse(whySubscribersFull, kv{"Board": g.Board, "Max": MaxSubscribers})
	}
	if err := r.reserve(1); err != nil {
		return err
	}
	if !slices.Contains(g.Subscribers, key) {
		g.Subscribers = append(g.Subscribers, key)
		if err := r.saveGame(g); err != nil {
			return err
		}
	}
	v, err := r.boardView(g)
	if err != nil {
		return err
	}
	if v.Notice, err = r.notice("subscribed", kv{"User": u.ID, "Board": g.Board}); err != nil {
		return err
	}
	return r.boardMails(g, "board", v, []string{key}, nil)
}

// unsubscribe: lyngk unsubscribe BOARD USERID PASSWORD.
func (r *request) unsubscribe(c Command) error {
	g, u, err := r.gameAndUser(c)
	if err != nil {
		return err
	}
	i := slices.Index(g.Subscribers, strings.ToLower(u.ID))
	if i < 0 {
		return refuse(whyNotSubscribed, kv{"User": u.ID, "Board": g.Board})
	}
	if err := r.reserve(1); err != nil {
		return err
	}
	g.Subscribers = slices.Delete(g.Subscribers, i, i+1)
	if err := r.saveGame(g); err != nil {
		return err
	}
	return r.mailAbout("account", accountView{User: u.ID, What: "unsubscribed", Boards: []int{g.Board}, Title: r.title(g.Game)},
		envelope{to: u.Addresses, board: g.Board, key: strings.ToLower(u.ID)})
}

// chatView is the data of the chat mail.
type chatView struct {
	Board           int
	Title, GameWord string // the game's (games.Rules): "Lyngk", "lyngk"
	User            string
	Text            string
}

// chat: lyngk chat BOARD USERID PASSWORD, the text below the command going
// to the other players and the subscribers, also after the game ended.
func (r *request) chat(c Command) error {
	g, u, err := r.gameAndUser(c)
	if err != nil {
		return err
	}
	return r.sendChat(g, u, r.script.Comment)
}

// chatSentView is the data of the confirmation of a chat.
type chatSentView struct {
	Board int
	Title string // the game's (games.Rules.Title)
	User  string
	N     int // the chat mails sent
}

// sendChat sends text, written by u, to the other players and the
// subscribers of g. Each chat mail carries a token of its own: a reply to
// it is a chat back (chatBack). u gets a copy of the chat mail, or with
// "change chat ... confirm" a one-line confirmation.
func (r *request) sendChat(g *game, u *user, comment string) error {
	key := strings.ToLower(u.ID)
	if g.player(key) == 0 && !slices.Contains(g.Subscribers, key) {
		return refuse(whyNotPlayer, kv{"User": u.ID, "Board": g.Board})
	}
	text := cleanText(comment)
	if strings.TrimSpace(text) == "" {
		return refuse(whyChatEmpty, kv{"Board": g.Board})
	}
	// The others' mails and the sender's copy or confirmation.
	if err := r.reserve(len(recipients(g))); err != nil {
		return err
	}
	v := chatView{Board: g.Board, Title: r.e.games[g.Game].Title(), GameWord: g.Game, User: u.ID, Text: text}
	sent := 0
	for _, k := range recipients(g) {
		if k == key {
			continue
		}
		to, ok, err := r.loadUser(k)
		if err != nil {
			return err
		}
		if ok && to.Left.IsZero() && len(to.Addresses) > 0 { // the robot has no address
			if err := r.chatMail(g, k, to.Addresses, v); err != nil {
				return err
			}
			sent++
		}
	}
	if u.Chat == chatConfirm || sent == 0 {
		// A chat that reached nobody (a game against the robot) is
		// never copied back as if it had gone out.
		return r.mailAbout("chat-sent", chatSentView{Board: g.Board, Title: v.Title, User: u.ID, N: sent},
			envelope{to: u.Addresses, board: g.Board, key: key})
	}
	return r.chatMail(g, key, u.Addresses, v)
}

// chatMail sends the chat mail v to the user key at addrs, with a chat
// token.
func (r *request) chatMail(g *game, key string, addrs []string, v chatView) error {
	if len(addrs) == 0 {
		return nil
	}
	rec := r.tokenFor(g, key)
	rec.Chat = true
	id, err := r.newToken(rec)
	if err != nil {
		return err
	}
	return r.mailAbout("chat", v, envelope{to: addrs, id: id, board: g.Board, key: key})
}

// chatBack handles a reply to a chat mail (a chat token): all of its text,
// the first line too, is a chat of the token's user to the same game's
// players and subscribers. It reports false for a token of another kind.
func (r *request) chatBack(tok, line string) (bool, error) {
	if len(tok) > maxTokenLen {
		return false, nil
	}
	var rec token
	if found, err := load(r.tx, bucketTokens, tok, &rec); err != nil || !found || !rec.Chat {
		return false, err
	}
	g, found, err := r.loadGame(rec.Board)
	if err != nil {
		return true, err
	}
	u, ok, err := r.loadUser(rec.User)
	if err != nil {
		return true, err
	}
	if !found || !ok || !u.Left.IsZero() {
		return true, refuse(whyTokenUnknown, nil)
	}
	return true, r.sendChat(g, u, line+"\n"+r.script.Comment)
}

// notice renders the text of notice.KEY.
func (r *request) notice(key string, data kv) (string, error) {
	words := r.gameWords(data["Board"])
	for k, v := range data {
		words[k] = v
	}
	s, err := r.e.cfg.Templates.Render("notice."+key, words)
	return templates.Wrap(s, templates.Width), err
}

// lastMove returns the index of the last move that is not a pass, -1 when
// there is none.
func lastMove(g *game) int {
	for i := len(g.Moves) - 1; i >= 0; i-- {
		if g.Moves[i] != "--" {
			return i
		}
	}
	return -1
}

// MaxOffersPerDay bounds each player's draw offers and take-back requests
// in one game, in a day that opens with the first: each one mails the
// board to both players, so without it two words (propose, reject) would
// send mail without end.
const MaxOffersPerDay = 3

// propose handles the words propose, undo, accept and reject, written as a
// move (pbmserv): a draw offer or a take-back request waits for the
// opponent, who accepts or rejects it; the proposer may withdraw it with
// reject. Any move voids a pending proposal. None of this needs the turn.
func (r *request) propose(g *game, p int, word string, c *commentView) error {
	me, other := g.Players[p-1], g.Players[2-p]
	pending := g.Proposal
	if pending != nil && pending.Moves != len(g.Moves) {
		pending = nil
	}
	data := kv{"User": me, "Other": other, "Board": g.Board}
	var key string
	switch word {
	case "propose", "undo":
		if pending != nil && pending.By != p {
			return refuse(whyProposalPending, kv{"User": other, "Kind": string(pending.Kind)}).on(g.Board)
		}
		if r.now.Sub(g.OffersDay) >= 24*time.Hour || r.now.Before(g.OffersDay) {
			g.Offers, g.OffersDay = [2]int{}, r.now
		}
		if g.Offers[p-1] >= MaxOffersPerDay {
			return refuse(whyOffersLimit, kv{"Board": g.Board, "Max": MaxOffersPerDay,
				"Until": g.OffersDay.Add(24 * time.Hour).UTC().Format("2006-01-02 15:04 MST")}).on(g.Board)
		}
		g.Offers[p-1]++
		if word == "propose" {
			g.Proposal, key = &proposal{Kind: proposeDraw, By: p, Moves: len(g.Moves)}, "draw-proposed"
			break
		}
		k := lastMove(g)
		if k < 0 {
			return refuse(whyNothingToUndo, nil).on(g.Board)
		}
		if k%2+1 != p {
			return refuse(whyUndoNotYours, kv{"N": k + 1, "Move": g.Moves[k]}).on(g.Board)
		}
		g.Proposal, key = &proposal{Kind: proposeUndo, By: p, Moves: len(g.Moves)}, "undo-proposed"
		data["N"], data["Move"] = k+1, g.Moves[k]
	case "accept":
		if pending == nil {
			return refuse(whyNoProposal, nil).on(g.Board)
		}
		if pending.By == p {
			return refuse(whyOwnProposal, nil).on(g.Board)
		}
		g.Proposal = nil
		if pending.Kind == proposeDraw {
			key = "draw-accepted"
			r.finish(g, StatusTie, 0, EndDraw)
			break
		}
		k := lastMove(g)
		key = "undo-accepted"
		data["N"], data["Move"] = k+1, g.Moves[k]
		g.Moves, g.MoveTimes = g.Moves[:k], g.MoveTimes[:k]
		g.TakeBacks++
		g.LastMove = time.Time{}
		if k > 0 {
			g.LastMove = g.MoveTimes[k-1]
		}
	case "reject":
		if pending == nil {
			return refuse(whyNoProposal, nil).on(g.Board)
		}
		g.Proposal = nil
		key = "rejected"
		if pending.By == p {
			key = "withdrawn"
		}
		data["Kind"] = string(pending.Kind)
	}
	if word == "propose" || word == "undo" {
		robot, err := r.isRobot(other)
		if err != nil {
			return err
		}
		if robot {
			return r.robotAnswer(g, 3-p)
		}
	}
	notice, err := r.notice(key, data)
	if err != nil {
		return err
	}
	return r.moved(g, c, notice)
}
