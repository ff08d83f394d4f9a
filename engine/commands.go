package engine

import (
	"slices"
	"strings"

	"lyngk.example/lyngk/templates"
)

// The command table: each command is one entry, and everything that knows
// commands is derived from it: the parser (ParseCommand: its words and the
// number of its arguments), the dispatch (run), the password forecast
// (Checks: which arguments are USERID, PASSWORD, a new password and BOARD),
// the usage errors and "help commands". A command added here is in all of
// them, or the tests of the table fail.

// role says what an argument of a command is, for the password forecast.
type role uint8

// The roles.
const (
	plain       role = iota
	userArg          // a userid whose password follows
	passwordArg      // the password of the userid before it
	newPassword      // a password to hash (signup, change password)
	boardArg         // a board number, checked before the password
)

// form is one way of writing a command: its usage line (after the game
// word for a game command) and its text in "help commands", lines without
// their indentation ("" for a form whose text is the next form's).
type form struct {
	usage, help string
}

// command is one entry of the table.
type command struct {
	name string // canonical, as Command.Name: "move", "change password"
	game bool   // written after a game word ("lyngk move ...")
	// roles are the roles of the first arguments; min and max bound
	// their number (max < 0: up to maxArgs).
	roles    []role
	min, max int
	// moveArg: the last argument is a move, which a player may write in
	// several words (games.Rules.MoveWords): they are joined.
	moveArg bool
	// left: the command takes the USERID of an account that signed off
	// (delete), so its password is forecast for one too.
	left  bool
	forms []form
	// note is added to the usage line of the usage error.
	note string
	// mails is the room in the mail's bounds the command reserves before
	// it runs (an account's mails: to the old and the new addresses at
	// most, and a confirmation).
	mails int
	run   func(*request, Command) error
}

// arg returns the index of the first argument of role ro, -1 for none.
func (c *command) arg(ro role) int {
	for i, r := range c.roles {
		if r == ro {
			return i
		}
	}
	return -1
}

// commandTable returns the commands, in the order of "help commands". It
// is built once per Engine (New): the handlers refer to the table (help
// lists it), which a package variable could not.
func commandTable() []command {
	return []command{
		{name: "help", min: 0, max: 1, roles: []role{plain}, run: (*request).help,
			forms: []form{{"help [commands|notation|rules]", "This help."}}},
		{name: "signup", min: 2, max: -1, roles: []role{userArg, newPassword}, mails: accountMails, run: (*request).signup,
			forms: []form{{"signup USERID PASSWORD [ADDRESS...]", `Register. Mail goes to the ADDRESSes, or to the sender without any. Each
address gets a confirmation mail: reply to it (any text), and the
welcome mail follows. You play once an address is confirmed. An
ADDRESS is plain: name@example.com.`}}},
		{name: "confirm", min: 2, max: 2, roles: []role{plain, plain}, run: (*request).confirmCommand,
			forms: []form{{"confirm USERID CODE", `Confirm an address with the code of its confirmation mail, instead of
replying to that mail. An address gets at most 3 of them a day.`}}},
		{name: "change password", min: 3, max: 3, roles: []role{userArg, passwordArg, newPassword}, mails: accountMails,
			run: (*request).changePassword, forms: []form{{"change password USERID OLDPASSWORD NEWPASSWORD", ""}}},
		{name: "change address", min: 2, max: -1, roles: []role{userArg, passwordArg}, mails: accountMails,
			run: (*request).changeAddress, forms: []form{{"change address USERID PASSWORD [ADDRESS...]", `Account upkeep. Without ADDRESS, mail goes to the sender. A new address
is confirmed as at signup; until one is, mail goes to the old ones.`}}},
		{name: "change format", min: 3, max: 3, roles: []role{userArg, passwordArg, plain}, run: (*request).changeSetting,
			forms: []form{{"change format USERID PASSWORD html|text", `html (the default): board mails carry a picture of the board and a web
page version beside the text. text: plain text only.`}}},
		{name: "change subject", min: 3, max: 3, roles: []role{userArg, passwordArg, plain}, run: (*request).changeSetting,
			forms: []form{{"change subject USERID PASSWORD gamerz|game", `gamerz (the default): the subject says what changed ("Lyngk Board 101
bob **"). game: every mail of a game has one subject ("Lyngk Board 101
alice-bob"), what changed is the first line; Gmail and Outlook then
show a game as one conversation.`}}},
		{name: "change chat", min: 3, max: 3, roles: []role{userArg, passwordArg, plain}, run: (*request).changeSetting,
			forms: []form{{"change chat USERID PASSWORD copy|confirm", `What you get when you chat: a copy of the chat mail (the default), or
a one-line confirmation.`}}},
		{name: "change messages", min: 3, max: 3, roles: []role{userArg, passwordArg, plain}, run: (*request).changeSetting,
			forms: []form{{"change messages USERID PASSWORD on|off", `Take (on, the default) or refuse (off) messages and broadcasts.`}}},
		{name: "change review", min: 3, max: 3, roles: []role{userArg, passwordArg, plain}, run: (*request).changeSetting,
			forms: []form{{"change review USERID PASSWORD on|off", `on (the default): the mail that ends each game names the three
turns where the loser's chance fell most, as the robot sees them, each
with the move it would have played; it waits up to a minute for them.
off: no review, and the mail goes at once.`}}},
		{name: "signoff", min: 2, max: 2, roles: []role{userArg, passwordArg}, mails: accountMails, run: (*request).signoff,
			forms: []form{{"signoff USERID PASSWORD", "Leave the server. Your running games are resigned."}}},
		{name: "vacation", min: 3, max: 3, roles: []role{userArg, passwordArg, plain}, mails: accountMails, run: (*request).vacation,
			forms: []form{{"vacation USERID PASSWORD on|off", "Pause (on) or resume (off) the reminders and forfeits of your games."}}},
		{name: "add", min: 3, max: -1, roles: []role{userArg, passwordArg}, mails: accountMails, run: (*request).add,
			forms: []form{{"add USERID PASSWORD ADDRESS...", `Add addresses to your account: each is confirmed as at signup, then gets
your mail too.`}}},
		{name: "delete", min: 2, max: 2, roles: []role{userArg, passwordArg}, left: true, mails: accountMails, run: (*request).deleteAccount,
			forms: []form{{"delete USERID PASSWORD", `Erase your account's addresses, password and choices; your running
games are resigned. Finished games stay on record under USERID, which
nobody else can take.`}}},
		{name: "message", min: 3, max: 2 + MaxMessageRecipients, roles: []role{userArg, passwordArg}, mails: MaxMessageRecipients + 1, run: (*request).message,
			note: " (the text below the command is sent)",
			forms: []form{{"message USERID PASSWORD TOUSERID...", `Send the text below the command to these players (at most 10 a mail,
20 a day), from the server, saying it is from you.`}}},
		{name: "broadcast", min: 2, max: 2, roles: []role{userArg, passwordArg}, run: (*request).broadcast,
			note: " (the text below the command is sent)",
			forms: []form{{"broadcast USERID PASSWORD", `Send the text below the command to every player who takes messages:
for the userids the operator allows, once a day.`}}},
		{name: "list", min: 0, max: -1, run: (*request).list,
			forms: []form{{"list [GAME...]", "The games this server offers, with their options."}}},
		{name: "all show", min: 1, max: 2, run: (*request).allShow,
			forms: []form{{"all show USERID [next|active]", `Mail the boards of that player's games of every game (default: active).`}}},
		{name: "challenge", game: true, min: 2, max: 2, roles: []role{plain, plain}, run: (*request).challenge,
			forms: []form{{"challenge " + optionsMark + " USERID1 USERID2", "Start a game (a new board number); USERID1 moves first." + optionsHelpMark}}},
		{name: "move", game: true, min: 4, max: 4, roles: []role{boardArg, userArg, passwordArg, plain}, moveArg: true, run: (*request).moveCommand,
			forms: []form{{"move BOARD USERID PASSWORD MOVE[#N]", `Play MOVE on BOARD (see "help notation"); #N is the move number you
mean. MOVE may also be resign, or one of:
  propose   propose a draw          undo     ask to take back your move
  accept    accept the proposal     reject   refuse (or withdraw) it`}}},
		{name: "queue", game: true, min: 4, max: 4, roles: []role{boardArg, userArg, passwordArg, plain}, moveArg: true, run: (*request).queue,
			forms: []form{{"queue BOARD USERID PASSWORD MOVE[#N]", `Play MOVE for you when your turn comes (at move N, if given): if it is
legal then, else you are told why. A new queue or a move of yours
replaces it; your opponent does not see it.`}}},
		{name: "submit", game: true, min: 4, max: 4, roles: []role{boardArg, userArg, passwordArg, plain}, moveArg: true, run: (*request).submit,
			forms: []form{{"submit BOARD USERID PASSWORD MOVE[#N]", ""}}},
		{name: "confirm", game: true, min: 3, max: 3, roles: []role{boardArg, userArg, passwordArg}, run: (*request).confirmSubmitted,
			forms: []form{{"confirm BOARD USERID PASSWORD", `submit checks MOVE and mails you the board as it would be, changing
nothing; confirm then plays it, unless the game has changed since.`}}},
		{name: "preview", game: true, min: 2, max: 1 + MaxPreviewMoves*maxMoveWords, run: (*request).preview,
			forms: []form{{"preview BOARD MOVE...", `Mail the board as it would be after these moves (at most 20), changing
nothing. Any player may preview any game.`}}},
		{name: "resign", game: true, min: 3, max: 3, roles: []role{boardArg, userArg, passwordArg}, run: (*request).resignCommand,
			forms: []form{{"resign BOARD USERID PASSWORD", "Give up."}}},
		{name: "decline", game: true, min: 3, max: 3, roles: []role{boardArg, userArg, passwordArg}, run: (*request).declineCommand,
			forms: []form{{"decline BOARD USERID PASSWORD", `Refuse a game you were challenged to, before your first move (or reply
"decline" to its board mail). The game is cancelled: it counts for
nobody. A game counts only once both players have moved; ended before
(resigned, drawn, or a player's first move not made within the
forfeit time), it is cancelled the same way.`}}},
		{name: "show", game: true, min: 1, max: -1, run: (*request).show,
			forms: []form{
				{"show BOARD[#N]...", "Mail the board(s); BOARD#N shows the position after move N."},
				{"show USERID... [all|active|inactive|next]", "Mail the boards of these players (default: active)."}}},
		{name: "record", game: true, min: 1, max: 1, run: (*request).recordCommand,
			forms: []form{{"record BOARD", `Mail the game's record: the moves as text in the mail, and the game in
boardspace.net's SGF attached, which other programs read.`}}},
		{name: "showas", game: true, min: 2, max: -1, roles: []role{userArg, passwordArg}, run: (*request).showAs,
			forms: []form{{"showas USERID PASSWORD [BOARD...|all|active|inactive|next]", `Mail USERID its boards again as its board mails, each with a new reply
token (for a lost mail; default: active).`}}},
		{name: "games", game: true, min: 0, max: -1, run: (*request).games,
			forms: []form{{"games [USERID...] [all|active|inactive|next]", `List games (default: all). active = running, inactive = finished,
next = running and waiting for one of the USERIDs.`}}},
		{name: "history", game: true, min: 0, max: -1, run: (*request).history,
			forms: []form{{"history [USERID...]", "Finished games, newest first."}}},
		{name: "standings", game: true, min: 0, max: 0, run: (*request).standings,
			forms: []form{{"standings", "The rating table (Elo, everybody starts at 1600)."}}},
		{name: "ratings", game: true, min: 0, max: 0, run: (*request).ratings,
			forms: []form{{"ratings", "The ratings: player, rating and number of games."}}},
		{name: "subscribe", game: true, min: 3, max: 3, roles: []role{boardArg, userArg, passwordArg}, run: (*request).subscribe,
			forms: []form{{"subscribe BOARD USERID PASSWORD", ""}}},
		{name: "unsubscribe", game: true, min: 3, max: 3, roles: []role{boardArg, userArg, passwordArg}, run: (*request).unsubscribe,
			forms: []form{{"unsubscribe BOARD USERID PASSWORD", `Get (or stop getting) every board mail of a game you do not play. A
game has at most 20 subscribers.`}}},
		{name: "chat", game: true, min: 3, max: 3, roles: []role{boardArg, userArg, passwordArg}, run: (*request).chat,
			note:  " (the text below the command is sent)",
			forms: []form{{"chat BOARD USERID PASSWORD", "Send the text below the command to the other players and watchers."}}},
		{name: "tournaments", game: true, min: 0, max: 0, run: (*request).tourList,
			forms: []form{{"tournaments", "The open and running tournaments."}}},
		{name: "tournament show", game: true, min: 1, max: 1, roles: []role{plain}, run: (*request).tourShow,
			forms: []form{{"tournament show NAME", "A tournament: its players, standings with tie-breaks, rounds and games."}}},
		{name: "tournament create", game: true, min: 3, max: -1, roles: []role{plain, userArg, passwordArg}, mails: 1, run: (*request).tourCreate,
			forms: []form{{"tournament create NAME USERID PASSWORD [OPTION...]",
				`Create a tournament, which you play in. OPTIONs: -format
roundrobin|swiss|knockout, -rounds N, -players MIN-MAX, -double,
-rated, -private PASSWORD2, and the game's ` + optionsMark + `.
roundrobin (the default): each meets each, all games at once (-double:
twice, colours swapped; at most 16 players). swiss: N rounds (default:
enough for a winner), each paired when the last ends. knockout: seeded
by rating; a drawn game is replayed once with colours swapped, then
the higher seed goes on. -players: default 4-8, at most 64. -rated:
its games change ratings. -private: joining needs PASSWORD2. A win
scores 1, a draw ½; ties are broken by Sonneborn-Berger, head to head,
then games won. At most 2 tournaments a week, and 5 open or running
ones a player.`}}},
		{name: "tournament join", game: true, min: 3, max: 4, roles: []role{plain, userArg, passwordArg, plain}, mails: 1, run: (*request).tourJoin,
			forms: []form{{"tournament join NAME USERID PASSWORD [PASSWORD2]", `Join an open tournament (PASSWORD2 for a private one). The join that
fills it starts it.`}}},
		{name: "tournament leave", game: true, min: 3, max: 3, roles: []role{plain, userArg, passwordArg}, mails: 1, run: (*request).tourLeave,
			forms: []form{{"tournament leave NAME USERID PASSWORD", `Leave before the start. The creator's leave cancels the tournament.`}}},
		{name: "tournament start", game: true, min: 3, max: 3, roles: []role{plain, userArg, passwordArg}, mails: 1, run: (*request).tourStart,
			forms: []form{{"tournament start NAME USERID PASSWORD", `Its creator starts it once enough players joined. Every player gets his
games, each with its board mail.`}}},
		{name: "tournament withdraw", game: true, min: 3, max: 3, roles: []role{plain, userArg, passwordArg}, mails: 1, run: (*request).tourWithdraw,
			forms: []form{{"tournament withdraw NAME USERID PASSWORD", `Leave a running tournament: your running games of it are lost by
forfeit, and you are paired no more.`}}},
		{name: "tournament robot", game: true, min: 3, max: 3, roles: []role{plain, userArg, passwordArg}, mails: 1, run: (*request).tourRobot,
			forms: []form{{"tournament robot NAME USERID PASSWORD", `Its creator enters the robot player, where the server allows it.`}}},
		{name: "championship show", game: true, min: 0, max: 0, run: (*request).championshipShow,
			forms: []form{{"championship show", "The championship: its leagues, who is enrolled, when the next edition starts."}}},
		{name: "championship join", game: true, min: 2, max: 2, roles: []role{userArg, passwordArg}, mails: 1, run: (*request).championshipJoin,
			forms: []form{{"championship join USERID PASSWORD", `Enrol in the championship, where the server holds one: leagues of about
ten by rating, each a rated round robin; the first two of a league go
up, the sixth and below go down; the next edition starts some days
after the last game of the one before. You stay enrolled, edition after
edition, until you leave.`}}},
		{name: "championship leave", game: true, min: 2, max: 2, roles: []role{userArg, passwordArg}, mails: 1, run: (*request).championshipLeave,
			forms: []form{{"championship leave USERID PASSWORD", `Play no more editions after the running one (whose games you play to
their end, or withdraw from as from any tournament).`}}},
	}
}

// optionsMark and optionsHelpMark stand in the challenge's form for what
// the game says of its options (gameText "options" and "options-help";
// LYNGK: "[-stack6]" and how -stack6 is written).
const (
	optionsMark     = "\x00options"
	optionsHelpMark = "\x00options-help"
)

// command finds the table entry of a canonical name: a game command's
// (written after a game word) when game is set, else a common command's.
// One word may name both ("confirm USERID CODE", "lyngk confirm BOARD ...").
func (e *Engine) command(name string, game bool) (*command, bool) {
	for i := range e.commands {
		if c := &e.commands[i]; c.name == name && c.game == game {
			return c, true
		}
	}
	return nil, false
}

// gameWord is how help and usage write the game word of the game commands:
// the game's own for a command written after it, the one game's when the
// server offers one, else GAME.
func (e *Engine) gameWord(game string) string {
	switch {
	case game != "":
		return game
	case len(e.cfg.Games) == 1:
		return e.cfg.Games[0].Name()
	}
	return "GAME"
}

// gameTexts are the texts every game brings, templates GAME.NAME: New
// refuses a game that lacks one, so that a missing file or a misspelt name
// stops the server at start rather than leaving a blank in some mail.
// Beside them a game may bring intro (its name in the help mail; else its
// title), notation and rules (its part of "help notation" and "help
// rules"; else it has none there, and its help page covers them).
var gameTexts = []string{"options", "options-help", "help", "about", "example", "help-topic", "play-examples"}

// missingTexts are the names of gameTexts that set lacks for game word.
func missingTexts(set *templates.Set, word string) []string {
	have := set.Names()
	var missing []string
	for _, name := range gameTexts {
		if _, found := slices.BinarySearch(have, word+"."+name); !found {
			missing = append(missing, word+"."+name)
		}
	}
	return missing
}

// GameText is gameText for the web part: game word's text name ("" when
// it has none).
func (e *Engine) GameText(word, name string) string { return e.gameText(word, name) }

// gameText renders the game's text name ("lyngk.options"), "" when the
// game has none or the word is not one game's.
func (e *Engine) gameText(word, name string) string {
	if _, ok := e.games[word]; !ok {
		return ""
	}
	s, err := e.cfg.Templates.Render(word+"."+name, nil)
	if err != nil {
		return ""
	}
	return s
}

// example is a move of game word as a player writes it at turn (from 1):
// the game's text "example", which may tell the phases of the game apart
// by .Turn (YINSH's ring placement "e3", then ring moves "h7-g7"); "" when
// the game has none.
func (e *Engine) example(word string, turn int) string {
	if _, ok := e.games[word]; !ok {
		return ""
	}
	s, err := e.cfg.Templates.Render(word+".example", struct{ Turn int }{turn})
	if err != nil {
		return ""
	}
	return s
}

// fill puts the game's texts in place of the marks of a form's line.
func (e *Engine) fill(word, s string) string {
	opts := e.gameText(word, "options")
	if _, one := e.games[word]; !one {
		opts = "[OPTIONS]"
	}
	if opts != "" {
		opts = " " + opts
	}
	s = strings.Replace(s, " "+optionsMark, opts, 1)
	help := e.gameText(word, "options-help")
	if _, one := e.games[word]; !one {
		var words []string
		for _, g := range e.cfg.Games {
			words = append(words, g.Name())
		}
		help = "GAME is one of " + strings.Join(words, ", ") + `; OPTIONS are the game's ("help GAME").`
	}
	if help != "" {
		help = " " + help
	}
	return strings.Replace(s, optionsHelpMark, help, 1)
}

// usage is the usage of command name as the usage error gives it: its
// forms joined by " or ", the game word before a game command's. The
// first word of commands of two words ("change") and a game word alone
// give the choice of what follows.
func (e *Engine) usage(name, game string) string {
	if subs := e.subcommands(name); len(subs) == 1 {
		return e.usage(name+" "+subs[0], "")
	} else if len(subs) > 1 {
		return name + " " + strings.Join(subs, "|") + " ..."
	}
	if subs := e.gameSubcommands(name); game != "" && len(subs) > 0 {
		return e.gameWord(game) + " " + name + " " + strings.Join(subs, "|") + " ..."
	}
	if _, ok := e.games[name]; ok {
		var words []string
		for _, c := range e.commands {
			if c.game {
				words = append(words, c.name)
			}
		}
		return name + " COMMAND ..., COMMAND one of " + strings.Join(words, ", ")
	}
	c, ok := e.command(name, game != "")
	if !ok {
		return name
	}
	var lines []string
	for _, f := range c.forms {
		line := f.usage
		if c.game {
			line = e.gameWord(game) + " " + line
		}
		lines = append(lines, e.fill(e.gameWord(game), line))
	}
	return strings.Join(lines, " or ") + c.note
}

// subcommands are the second words of the common commands of two words
// that start with word ("change": password, address, ...; "all": show).
func (e *Engine) subcommands(word string) []string {
	var subs []string
	for _, c := range e.commands {
		if sub, ok := strings.CutPrefix(c.name, word+" "); ok && !c.game {
			subs = append(subs, sub)
		}
	}
	return subs
}

// gameSubcommands are the second words of the game commands of two words
// that start with word ("tournament": create, join, ...).
func (e *Engine) gameSubcommands(word string) []string {
	var subs []string
	for _, c := range e.commands {
		if sub, ok := strings.CutPrefix(c.name, word+" "); ok && c.game {
			subs = append(subs, sub)
		}
	}
	return subs
}

// usageRefusal is the usage error of command name (of game, for a game
// command).
func (e *Engine) usageRefusal(name, game string) *refusal {
	return refuse(whyUsage, kv{"Name": name, "Usage": e.usage(name, game)})
}

// helpCommands is "help commands"' list of commands: each form's usage
// line, then its text indented by four spaces and wrapped.
func (e *Engine) helpCommands() string {
	var b strings.Builder
	word := e.gameWord("")
	for _, c := range e.commands {
		for _, f := range c.forms {
			line := f.usage
			if c.game {
				line = word + " " + line
			}
			b.WriteString(e.fill(word, line) + "\n")
			if f.help == "" {
				continue
			}
			text := e.fill(word, f.help)
			b.WriteString(templates.Wrap("    "+strings.ReplaceAll(text, "\n", "\n    "), templates.Width) + "\n")
		}
	}
	return b.String()
}
