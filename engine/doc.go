// Package engine is the play-by-mail server: the command language of
// Richard's PBeM Server (pbmserv), one table of commands (commands.go) for
// every game it offers, accounts, the game lifecycle (challenge, move,
// resign, show, timers, ratings) and the reply mails. It opens no sockets
// and knows no file format: [Engine.Handle] runs the commands of one
// incoming mail inside the caller's store transaction and returns the mails
// to send; [Engine.Tick] runs the timers. It knows no game: the games are
// Config.Games, each speaking through the contract of package games (rules,
// text board, picture, clicks, robot); the texts are package templates'.
//
// # Records
//
// Where each record lives (bucket, key) is store/doc.go's table; this one
// says what the engine's records hold, in the same order and with the same
// keys. Each record is JSON with a version field "v" (a reader refuses any
// other version):
//
//	users   lower-cased userid  user: id as signed up, bcrypt hash, addresses
//	                            (confirmed), pending (asked for, unconfirmed),
//	                            replace (the first pending one confirmed
//	                            replaces the addresses), created, left (signed
//	                            off), vacation, back (end of the last
//	                            vacation), games (by game word: rating
//	                            and won/lost/tied in each game played;
//	                            none: the start rating), format (""
//	                            = text and HTML with the picture, "text";
//	                            absent in older records: ""),
//	                            deleted (delete: no hash, address
//	                            or choice left), messages ("off": none, nor
//	                            broadcasts), messages sent and their day
//	                            (message), broadcaster (the operator allows
//	                            broadcast) and last broadcast
//	games   "%08d" board        game: game (its word), variant,
//	                            players (challenge order), moves
//	                            (normalised, "--" for passes, terminal "resign"
//	                            or "Forfeit"), move times, status, winner, how
//	                            (resign/forfeit/draw), started, last move, ended,
//	                            nagged, due (when the timer looks at it
//	                            next), subscribers, pending proposal, ratings
//	                            after the game, number of accepted take-backs,
//	                            submitted (by userid: the move and
//	                            the number of changes when submitted) and
//	                            queued (by userid: the move and its move
//	                            number, 0 for the next turn), which only the
//	                            player's own commands show
//	                            and for a tournament's game its tournament
//	                            (name as created), round (from 1) and
//	                            unrated (a tournament without -rated)
//	tokens  reply token         token: board, user, number of moves and of
//	                            take-backs when sent; text, html: hashes of
//	                            the mail's lines as sent (absent in older
//	                            records)
//	rate    lower-cased sender  rate window: start, count, notified
//	        "password USERID"   wrong-password window (lockout) of the
//	                            lower-cased userid: start, count (no address
//	                            has a space, so no sender takes the key)
//	strangers                   lower-cased address: mails sent to that
//	                            stranger this hour (start, count); Tick
//	                            drops the windows of rate and strangers
//	                            whose hour is over
//	meta    "nextboard"         the next board number (101 first)
//	        "verp"              the VERP secret, 32 bytes from crypto/rand
//	        "championship " + game word  a game's championship
//	                            (championship.go): on, the players
//	                            enrolled (as signed up, in the order they
//	                            joined), the edition, its leagues (their
//	                            tournaments, the top one first), when the
//	                            next edition starts (zero while one runs)
//	robot   "%08d" board        a game waiting for the robot player's move: the
//	                            number of moves then (kept by saveGame)
//	addresses lower-cased address  address: the users for which it is
//	                            confirmed (signed-off ones removed), start and
//	                            count of its confirmation-mail window
//	confirms  code              confirmation: user, address, sent
//	bounces   lower-cased address  bounce record (bounce.go): hard
//	                            bounces in the window (mail, time), soft
//	                            count, bouncing since, retry
//	          "verp " TAG       the address of a VERP tag (the tag is its
//	                            HMAC with meta "verp"; "token " keys of an
//	                            older release are ignored)
//	byplayer, running, deadlines, ended, counts: the indexes of the game
//	                            records (index.go), kept by writeGame,
//	                            the one write of a game record, in its
//	                            transaction; empty values but the counts
//	                            (decimal ASCII)
//	summaries "%08d" board      each game's line of the listings
//	                            (summaries.go): what a GameSummary holds
//	                            but board and title, short JSON; kept by
//	                            writeGame with the indexes
//	ratings                     each game's standings (index.go), kept
//	                            by saveUser, the one write of a user
//	                            record, with the count "standings GAME"
//	gametokens, expiry          the expiry indexes (expire.go): each
//	                            game's tokens, and by the time it expires
//	                            what the prune deletes; kept by saveToken,
//	                            writeGame, saveUser, saveAddress and
//	                            saveConfirm, the writes of those records
//	recipients                  the players who take messages, a
//	                            broadcast's recipients (message.go), kept
//	                            by saveUser
//	tournaments lower-cased name tournament (tournaments.go): name as
//	                            created, game, variant, format, Swiss
//	                            rounds, min and max players, double,
//	                            rated, private (salt and SHA-256 of the
//	                            join password), creator, created, state
//	                            (open, running, finished), started, ended,
//	                            players (join order while open, then by
//	                            rating at the start: the Berger numbers,
//	                            seeds; each with joined, rating at the
//	                            start, withdrawn) and the rounds played
//	                            (started, games: white and black as
//	                            player indexes, black -1 for a bye, board,
//	                            result as package tournament's Result)
//	tourindex                   the tournaments by game and state, and
//	                            each player's open and running ones, kept
//	                            by saveTourney, the one write of a
//	                            tournament record; lyngk admin check
//	                            compares it with the records
//	reviews "%08d" board        a robot's review owed (reviews.go): the
//	                            game's number of moves and the time it
//	                            ended; written in the transaction that
//	                            ends a won game (when a player or watcher
//	                            takes reviews), deleted in the one that
//	                            queues the review's mails, so a crash in
//	                            between makes the review again and mails
//	                            it once
//
// Schema upgrades ([Upgrade], run by store.Open one step a transaction
// until it is done, its progress in meta "upgrade" so that a killed
// upgrade goes on where it was; a step indexes UpgradeBatch records at
// most): from version 1, which had no confirmation, the addresses of
// every account that has not signed off count as confirmed and are indexed
// in addresses; user records keep their form (pending and replace absent).
// From version 2, which wrote no game in LYNGK's game records and kept
// LYNGK's rating and record in the user record's own fields (rating, won,
// lost, tied), every game record gets its game and that standing moves
// into games; the engine then knows no first game. From version 3, which
// had no index, the indexes are built from a full scan (a running game's
// due is then zero: the first ticks set it, firstLooks times TickBatch a
// minute, reading the record alone unless the game is due). From version
// 4, which had no expiry index, the expiry indexes and recipients are
// built from a full scan of the tokens, users, addresses and
// confirmation codes, and meta "pruned" (the cursor of version 4's prune)
// is deleted. From version 5, whose expiry index had no confirmation
// code, the codes' keys are added from a scan of confirms alone.
//
// A position is never stored: it is the replay of the moves on the start
// position of the board number (the game's Rules.New, then Parse and Play
// of each stored move; "--" is skipped because passes are automatic).
//
// # Errors
//
// Bad input is answered with an error mail to the sender alone and changes
// nothing: every command checks everything (board, user, password, turn,
// move number, notation, legality) before it writes. Only the sender's rate
// counter moves. Handle returns an error only when the store fails; the
// caller then aborts the transaction, so nothing of the mail is applied.
// Anything else that goes wrong with one mail (a template that does not
// render, a record that does not decode, a panic) is that mail's failure,
// reported apart: a mail's writes are held back in memory until it has
// been handled whole and are dropped on failure, so the mail changes
// nothing but the sender's rate counter, and the sender gets the error text
// err.internal (a fixed text if the error mail itself does not render).
// Later commands of a mail read its earlier writes.
// With subject "multiple" each command line stands alone: a refused line
// does not undo the lines before it.
//
// # Read API
//
// What anybody may see of games and players (read.go, readjson.go) is one
// exported API, used by the mail listings (games, history, standings and
// show's selection) and by the web pages alike. Each but GameVersion is
// a method of the Engine (it needs the games); each reads through the Tx
// it is given (a store View), and nothing else reads the engine's buckets:
//
//	ListGames(tx, GameFilter{Users, State, Game})  games in board order;
//	                                        State active, finished, all or
//	                                        next (the mail's inactive is
//	                                        finished); Game one game's
//	Page(tx, filter, skip, limit)           one page of them in the
//	                                        listings' order (running, then
//	                                        finished, newest first) and
//	                                        how many more: what the pages
//	                                        and the mail listings read
//	StandingsPage(tx, game, at, limit)      one page of the standings,
//	                                        after a line (a cursor of
//	                                        rating and userid)
//	History(tx, game, users...)             finished games, last ended first
//	ReadGame(tx, board)                     one game: GameDetail with the
//	                                        move list and what each player
//	                                        has beside the board (Sides);
//	                                        Position(k) is the position
//	                                        after move k, JSON() the game
//	                                        as /game/N.json
//	ReadPlayer(tx, id, game),               rating, provisional, record in
//	Standings(tx, game)                     one game (its word)
//	GameVersion(tx, board)                  a number that changes with every
//	                                        change of the game anybody can
//	                                        see: the web's Server-Sent
//	                                        Events poll it (one record read)
//	ListTournaments(tx, game, states...)    tournaments (TournamentSummary) by
//	                                        game, state, name, from the index
//	PlayerTournaments(tx, id)               a player's open and running ones
//	ReadTournament(tx, name)                one tournament (TournamentDetail):
//	                                        players in seed order, standings
//	                                        with tie-breaks, crosstable,
//	                                        rounds with their games and boards
//
// Unknown games and users are ErrNoGame and ErrNoUser, an unknown
// tournament ErrNoTournament, a filter's unknown state ErrBadState
// (errors.Is). A game's summary names its tournament and round. What is public: userids, ratings, records,
// games with their moves, times and results, whether an account is the
// robot's or has signed off. Never public: addresses (confirmed or
// pending), password hashes, reply tokens and confirmation codes, a game's
// subscribers, a pending draw offer or take-back request (they are between
// the players, so GameVersion does not move with them either), vacations,
// mail preferences. A signed-off user stays readable (their games stay on
// record) but leaves the standings, as in the standings mail.
//
// A game's status in the read API is the record's, with a win by
// resignation or forfeit told apart: playing, won (by the rules), tie (by
// the rules, or an agreed draw: How EndDraw), cancelled (How says why),
// resigned, forfeit; Winner is 1 or 2 (challenge order) for won, resigned
// and forfeit. /game/N.json (GameJSON) names its game (game, the game's
// word) and variant, and carries the fields of `lyngk
// analyze -json` with their meaning (Analysis, one definition for both)
// for the current position, where status and winner are the game's (they
// equal analyze's while the game runs and when the rules ended it); a game
// over otherwise has turn 0 and no legal moves. Its moves are analyze's
// (passes included; a terminal "resign" or "Forfeit" shows in status
// only), positions[K] the board block after K of them, what `lyngk analyze
// -seed N -players A,B -json` prints for those moves.
//
// # Decisions where the spec is silent
//
// Reading a mail. A Subject is a command when its first word is a command
// word (help, signup, change, signoff, vacation, lyngk) and it is not the
// subject of one of our own mails, which replies carry, often without
// "Re:" ("Lyngk Board 101 bob **"; none of those is a complete command).
// Otherwise the command is the first body line that is not blank, quoted
// (">", "|", or indented with a tab as s-nail and mailx quote) or a reply
// attribution ("On ... wrote:", also wrapped over two lines, Apple's "On
// ..., at ..., ... wrote:", "\"Name\" <addr> wrote:", and the French,
// German, Spanish, Dutch and Italian forms). The text ends at quoted text,
// an attribution, the signature separator "-- " (or "--"), a phone
// sign-off ("Sent from my iPhone", "Von meinem iPhone gesendet", ...), an
// Outlook "From: / Sent:" block or an "Original Message" line in any of
// those languages. What follows the
// command up to there is the comment; a body line that repeats the
// subject's command is dropped, so a password typed twice is not passed on.
// Subject "multiple": the body lines up to the first blank line are the
// commands, and the text after the blank line is the comment.
//
// Copies of the mail answered (reply.go). Some clients paste the mail a
// player answers with no quote mark and no attribution, above or below the
// player's words, re-wrapped at 72 to 78 columns, or the text of its HTML
// part instead of its text part. So every mail sent with a reply token
// keeps in the token's record what it said: the 64-bit FNV-1a hashes of
// its lines, normalised (quote marks in front dropped, white space
// collapsed, Gmail's "[image: ALT]" read as ALT), blank ones left out, in
// order, of the text part and of the HTML part's text (as a client or
// mailer renders it: cells side by side, lines at blocks and <br>, the
// picture's alt text on a line) apart, at most 96 of each: 1536 bytes at
// most (2 KB in JSON); a board mail with a comment keeps 59 lines, a token
// record of 724 bytes in JSON. Before a mail that answers such a token (In-Reply-To, else References) is read for commands and
// comment, any run of its lines that repeats one part in order is dropped,
// with the blank lines after it, whatever command the mail then holds
// (plain reply, full command, chat). Each line of a run is the next line
// of the part or the one after it (one line left out by the client), or
// up to 8 lines of at most 200 characters that make one when joined (a
// re-wrapped line, or a table row whose cells take a line each); blank
// lines inside a run do not break it. A run counts only from two lines in
// a row that repeat the mail with no blank line between them, or one line
// of the mail of at least 60 characters that takes two lines or more of the
// reply: a player's own line that is also a line of the mail ("thanks", a
// move, a row of the board) is relayed, even next to a copy (the copy
// starts elsewhere in the mail), and so are two such lines apart. The first
// 2000 lines and 64 KB of a mail are searched, each line as the start of a
// copy in at most 4 places of the mail (at most 12 ms for the worst 64 KB,
// BenchmarkCutCopiesHostile). A token recorded before the lines were kept
// has none: a plain reply's comment then ends where three lines in a row
// repeat the board mail as it would be written now, and other commands'
// comments are relayed as they are, as before.
//
// Comments go after a line of 60 '*' as "USERID writes:" in the board mails
// of the other players and subscribers (subject + " **"); the writer's own
// copy has none. Commands without a player (challenge, show, ...) pass no
// comment.
//
// Plain replies. A first line that is not a command is a move when the mail
// answers one of our board mails: the token is taken from In-Reply-To, else
// the newest of References. The first word is the move ("e4-e5",
// "R,e4-e5#12", "resign", "propose", "accept", "reject", "undo"); the rest
// of the line starts the comment. A token is refused when unknown (forged,
// or no board mail), when its user does not play the game (a subscriber),
// when the game is over, or when the game has moved on since the mail was
// sent (its number of moves differs, or a move was taken back since, even if
// the game has as many moves again: a token names one exact position): the
// error says to reply to the latest board mail or to send the full command. Tokens are 160 random bits,
// base32; they are kept, so that a late reply gets this precise answer.
//
// Moves on the web. With Config.WebURL set (web_url, or local mode), every
// board mail to a player of a running game (board, new game, reminder,
// show, an error carrying a token) adds "Move on the web:" and, on the next
// line, WebURL/play/TOKEN with that mail's own token, in both parts. The
// page's move (PlayToken, play.go) runs the plain reply's code (replyWith):
// the same token checks and refusals (as a *Refusal with the error mail's
// text), the same board mails, one transaction, nothing written when
// refused. It is spent as a reply is: it names one position, so once the
// game moves on it is stale, by mail and on the web alike. The mover's own
// board mail then answers no mail of theirs: it is auto-generated in the
// game's thread, the one difference from a reply by mail. A web move does
// not count against the sender's hourly rate (there is no sender address
// to count): a token moves at most once, and a forged one costs one read.
//
// Board mails. Every player and subscriber gets one, the mover too, each
// with its own token in the Message-ID <lyngk.TOKEN@DOMAIN>. A mail to the
// sender of the command is a reply (In-Reply-To, References,
// Auto-Submitted: auto-replied); mails to others are auto-generated. While
// a game runs, a board mail shows the last four
// rows of the move list, as the gamerz mail after-move.txt; the new-game
// mail, the game-over mail and show give the whole list. show BOARD mails
// the board to the sender, with a token when the sender's address is one of
// a player's (so it can be answered with a move); show BOARD#N is the
// position after move N, with no token. show USERID... mails the boards of
// their games (default filter active); games lists them (default all). The
// filters: all; active = running; inactive = finished; next = running and
// waiting for one of the userids named.
//
// Pictures. Every mail that shows a board (new game, board, reminder, show,
// an error with the game's summary) has, beside its text, an HTML part with
// a PNG of the position (the game's games.Picture, drawn once per request and
// position), unless its recipient chose "change format ... text" (user
// field format) or the server cannot tell who the recipient is: mails to
// the sender go out with HTML only when the sender's address is that of a
// player or subscriber of the game, and never to a stranger (TextOnly).
//
// Threads. Every mail about a game (new game, boards, reminders, errors
// about the game, chat, notices, game over, unsubscribe) starts References
// with the game's thread root for its recipient, <game-N.DIGEST@DOMAIN>,
// DIGEST from the domain, the board and the recipient's userid (or address):
// never sent, the same for every mail of the game to that recipient. A mail
// that answers the recipient's mail has In-Reply-To that mail, after the
// root in References; any other has In-Reply-To the root. A user who chose
// "change subject ... game" (user field subject) gets every mail of a game
// under one subject, "Lyngk Board N P1-P2", what the gamerz subject said
// opening the text (mail.go, oneSubject): Gmail and Outlook group by
// subject too.
//
// Chat. Each chat mail carries a reply token of its own (token field chat):
// a reply to it is a chat back from the token's user to the game's players
// and subscribers (social.go, chatBack), never a move. The sender gets a
// copy, or with "change chat ... confirm" one line.
//
// Error mails. Errors about a move also show the summary of the board;
// when it is the game's current position and the sender is one of its
// players, the mail carries that player's reply token like a board mail, so
// that a reply to it with a move works (a reply to the "has moved on" error
// of a reply to an older board mail, say). They quote "Subject: ..." and,
// when the command came from the body, the command line: never more of the
// mail. A mail over the size limit is not quoted at all.
//
// Confirmed addresses (double opt-in). signup and change address mail
// "Confirm PBeM Server signup|address USERID" (Config.ServerName) to each new address, with a
// Message-ID <lyngk-confirm.CODE@DOMAIN>, CODE 160 random bits as a reply
// token's. A mail whose In-Reply-To or References names such a code
// confirms that address, whatever its text and sender (the code is the
// proof that the address received it), and so does "confirm USERID CODE".
// A code stays on record for 7 days (confirmKeep; at most 3 an address a
// day), used or not: a second use within them is answered "already
// confirmed"; after them the code confirms nothing and is answered as
// unknown, saying codes are kept 7 days and how to get a new one (change
// address), and Tick deletes it, so a signup leaves no record for good. All mail to a user goes to the confirmed
// addresses only; an account can be named in a challenge only once it has
// one (user.canPlay, the one place that decides). The first confirmation
// of a signup brings the welcome mail; a later one a notice to the old and
// new addresses. After change address, addresses named that were confirmed
// stay; if none was, the old ones keep the mail until the first new one is
// confirmed (a mistyped address cannot lose a player's games). A code of
// an address replaced meanwhile confirms nothing. An address gets at most
// 3 confirmation mails in a window of 24 hours opened by the first, over all
// accounts (a signup naming a victim's address is a mail to the victim);
// the command that would exceed it is refused and changes nothing.
// [ConfirmedAddress] tells whether a sender is a confirmed address of some
// account that has not signed off. Addresses are plain local@domain: a
// dot-atom local part, a host name with a dot or our own domain; never a
// quoted local part, an address literal or an IP address (a relay may read
// those otherwise than we do, and the account's mail would be lost).
//
// Accounts. A userid has 1 to 16 letters, digits, '.', '_' or '-', starts
// with a letter or digit and has a letter (so it never reads as a board
// number); all, active, inactive and next are reserved. Passwords have 1 to
// 72 bytes (bcrypt's limit) without white space, quotes or colons. A change
// of address is told to the old and the new addresses. signoff resigns the
// running games, ends the subscriptions and keeps the record, marked as
// left: the userid stays taken and the history readable. The resignations
// are rated before the record is marked (the record is read again after
// them), and its addresses no longer count as confirmed. Anybody may
// challenge, as in pbmserv.
//
// Resigning. A player may resign at any time (signoff must be able to).
// On the player's turn the move list records "resign"; out of turn only the
// result records it, since the list's columns are the turns. The resigned
// player is added to the game's subscribers.
//
// Nobody is made to play (anybody may challenge anybody). A game counts
// (rating, won/lost, history as a result) only once every player has made
// a move (game.started; passes and terminal entries are no moves). Until
// a player's first move that player may decline: "decline" as the move
// word of a plain reply or of lyngk move, or lyngk decline BOARD USERID
// PASSWORD. The game then ends with status "cancelled" (how "declined"),
// unrated, and both players and the subscribers get the board mail saying
// so. Whatever else ends a game before every player has moved cancels it
// the same way (finish is the one place): a resignation (how "resign"; so
// resigning before the opponent's first move is withdrawing a challenge,
// and resigning before one's own first move is declining), an agreed draw
// (how "draw"), and the timer (how "timeout", below). A take-back that
// removes a player's only move makes that player one who has not moved.
// games, history and show list cancelled games as "cancelled (HOW)", with
// the finished ones (filter inactive); standings never count them, since
// they change no rating.
//
// Draws and take-backs (pbmserv's move words). propose offers a draw; undo
// asks to take back one's own last move (with the automatic passes after
// it); the opponent answers accept or reject, the proposer may withdraw with
// reject. One proposal at a time; a move voids it. None needs the turn.
//
// Ratings. Elo, everybody starting at 1600. Every finished game that is not
// cancelled is rated, however it ended. K is 40 while a rating is provisional (fewer than 10
// finished games), then 20 (FIDE's factors for new and established players).
// The game-over mail gives both ratings after the game, the second player's
// first, as the gamerz mail game-over.txt.
//
// Timers. The player to move gets a reminder after NagAfter without a move
// (default 7 days), again every 7 days, and forfeits after ForfeitAfter
// (default 21 days); the forfeit is recorded as the move "Forfeit". When a
// player has not moved yet, that time cancels the game instead (no
// "Forfeit" entry, how "timeout"): twenty challenges of a victim who never
// answers cost the victim nothing. The
// clock runs from the last move (or the start), or from the player's
// return from vacation if later; on vacation nothing happens. A server that
// was down catches up at its first Tick. Each game's timer is isolated as a
// mail is: one that fails (a template, an undecodable record, a panic) is
// left as it was and reported, and the other games' timers run.
//
// The robot player. With Config.RobotPlayer each level of
// Config.RobotLevels (RobotLevels: robot-novice, robot-club, "robot", the
// default, and robot-max) is a built-in account (user.Robot): made on its
// first challenge unless a human holds the userid (he keeps it, and the
// level is not offered), without password or address, so it can neither
// be logged into nor signed up for, and it gets no mail. Each level is a
// player of its own, rated on its own; RobotTurn carries its budget. A
// level left out is refused by name, and two robots never play each
// other. Every save of a game against a robot updates the index bucket
// robot in the same transaction; RobotTurns reads the index (a level left
// out is skipped: its games wait), the caller thinks outside any transaction, and RobotMove plays the move in a
// transaction of its own only if the game's move list is still the one
// thought about (a take-back followed by another move gives a list of the
// same length, so the whole list is compared). A robot is never reminded
// and never forfeits. It answers a draw offer or a take-back request at once,
// in the mail that made it: it takes back any move, and accepts a draw
// unless it would win were the game counted now (rulebook G). With the
// robots off, every level is an unknown userid (a human may sign up as
// "robot"; that account never counts as a robot), and games they already
// play wait.
//
// Times are stored as given; mails show them in UTC. In the timing block of
// a finished game each move's time since the previous move (or the start)
// counts for the player who made it.
//
// Rate limit. Each command line counts (a plain reply or an empty mail as
// one) against Config.RatePerHour per sender, in a fixed window that opens
// with the sender's first command. The command that would go over gets one
// notice, everything after it silence until the window ends. Zero means no
// limit.
//
// Bounds (bounds.go). From is forged at will, so what one incoming mail
// causes is bounded whoever it claims to come from: at most MaxMails (25)
// mails and MaxBytes (4 MB) in all, the last of them, when anything was
// left out, a summary to the sender: the boards whose mails were left out
// (and a show command for the first 20 of them), the number of other
// mails left out (errors, listings), and the commands not run. Mails are
// sent in the order the commands ask for them; loops that would render
// many mails (show, board mails) stop rendering once the bounds are
// reached, so a mail asking for thousands costs no more than one asking
// for 25. Every mail is at most MaxReply (64 KB) on the wire, reckoned
// as quoted-printable with CRLF line ends (a board picture comes on top,
// counted as PictureAllowance against the 4 MB): a longer text is cut at
// a line end with a note; an argument echoed in an error is cut to
// MaxEcho (100) characters with "…", the quote of the offending mail to
// MaxQuote (2 KB), References to 10 ids.
//
// A move with many subscribers. The board mails of one game event must
// all go out, or a player would not learn of a move. So a game has at
// most MaxSubscribers (20): its event is at most 2 players, 20
// subscribers and 2 players who resigned and stay on, 24 mails, which
// always fit, with the summary's slot, in a fresh mail. A command that
// changes a game or an account first reserves room for all its mails; if
// they no longer fit after the mail's earlier commands, it is not run,
// nor any command after it (the commands of a mail run in order), and the
// summary lists them to be sent again: nothing is half done. The first
// command of a mail always runs; only signoff, which resigns every game
// of the leaver, can then exceed the bounds, and the board mails beyond
// them are left out (the games are over; the others see it in games and
// show) and summarised to the sender.
//
// Strangers. An address that is no confirmed address of an account
// (signed off ones excluded; [ConfirmedAddress]) is a stranger: a forged sender, or somebody who has not
// signed up. A stranger gets at most one mail per incoming mail (the
// first), at most StrangerPerHour (5) an hour, counted in bucket
// strangers (a fixed window from the first mail, as the rate limit's;
// Tick drops the windows that are over),
// each TextOnly (no picture, no HTML); past that, silence, not a notice.
// And he gets an answer only to help, list, signup and confirm, never a
// text he chose (backscatter.go): his listings (show, games, history,
// standings, ratings) run and answer him nothing.
//
// Passwords. bcrypt is slow on purpose, and the store has one writer, so
// the caller should not let Handle run it: [Engine.Checks] lists, in a read
// transaction, the comparisons and the new hashes (signup, change
// password) a mail's commands will need, [Engine.Verify] runs one outside
// any transaction (the caller decides how many at once), and Handle then
// finds each verdict or hash in memory (the authCache: HMACs of passwords
// bcrypt accepted or refused, never the passwords; a hash made ahead is
// used once, so equal passwords still get different salts). A bcrypt run
// the forecast missed still happens inside Handle, and
// [Engine.InlineChecks] counts it. A hash whose password the process knows refuses every other
// password without bcrypt. Checks skips what Handle would not check: no
// such account, a signed-off one, an unknown board, a userid locked out,
// and more checks than the userid has wrong passwords left.
//
// Lockout. Per userid, not per sender: forged senders are free. The
// MaxWrongPasswords-th wrong password within LockoutWindow (10 within an
// hour, a window opened by the first wrong one) is refused like the others
// and mails the account's addresses one notice; until the window ends,
// every command with that userid's password is refused without a check
// ("Too many wrong passwords ... until HH:MM UTC"), the right password too,
// and tells nobody else. A right password does not reset the count (it is
// no proof that the guessing stopped). Moves by reply need no password and
// go on.
//
// Loop guards (RFC 3834 §2): mail marked automatic (Inbound.Auto: the
// mailer applies RFC 3834, RFC 3464, RFC 8098, List-* fields and
// out-of-office subjects), mail without a sender, and mail from our own
// address get no answer at all.
//
// Tournaments (tournaments.go, tournamentplay.go; the pairing is package
// tournament's). "GAME tournament create NAME USERID PASSWORD [OPTION...]"
// makes one, and its creator plays in it; the others join, the creator
// starts it once Min have joined, or the join that makes Max starts it.
// Names are one word of a letter then letters, digits, '.', '_', '-', at
// most MaxTournamentName, unique over every game in any case. Before the
// start a player may leave; the creator's leave cancels the tournament
// (its record is deleted, the name is free, the others are told). At the
// start the players are ordered by their rating in the game, the higher
// first, equal ratings in the order they joined: the Berger numbers of a
// round robin, the seeds of a knockout, the first ranking of a Swiss. The
// server starts each game as a challenge would (board mails, tokens,
// timers, the robot), White the first to move; then every player gets
// the start mail with his games. A round robin starts all its games at
// once (the Berger rounds only list them): nobody waits for others' slow
// games, and a player has N−1 games of it at a time (2(N−1) doubled); its
// byes are no games and score nothing. A Swiss plays -rounds rounds
// (default ⌈log2 N⌉, never more than N−1), a knockout until its final; each
// of their rounds is paired and started in the transaction that ends the
// last game of the round before (a move, a resignation, a withdrawal, the
// timer's forfeit), and its players get the round mail. A Swiss that
// cannot pair a round (every pair left has met) ends after the rounds
// played. A knockout's drawn game is replayed once with the colours
// swapped; a second draw sends the higher seed through. When the last
// game ends, every player gets the final standings.
//
// A tournament's game counts from its start, unlike a challenge: its
// players joined to play it. It cannot be declined; a resignation or an
// agreed draw before both moved ends it as usual (never cancelled); a
// player who never moves forfeits it at ForfeitAfter. A forfeit (the
// timer's, a withdrawal's) is a loss that counts for no Sonneborn-Berger
// and no games won (package tournament); a resignation is a game lost on
// the board. "withdraw" after the start forfeits the player's running
// games of it at once and he is paired no more; a player whose account
// signed off counts as withdrawn at the next pairing (his running games
// were resigned). A game paired for a withdrawn player is his forfeit,
// without a board. The games of a tournament created with -rated change
// ratings and records as any game; the others change neither (game field
// unrated). A tournament's mails are not held to the bounds of the one
// incoming mail that causes them (every recipient joined with his
// password), but to the tournament's sizes (deploy/SECURITY.md). The robot
// enters only when Config.TournamentRobot allows it, by the creator's
// "GAME tournament robot NAME USERID PASSWORD".
//
// Relayed text. Comments and chat reach other people's terminals and mail
// programs, so they lose every control character but TAB and the line end
// (NUL, ESC and the rest of C0, DEL, C1) before they are passed on.
package engine
