// Package store keeps the server's durable state in one bbolt file: the
// engine's records (users, games, reply tokens, rate counters, strangers'
// counts, the games waiting for the robot player), the Message-IDs of
// processed mail, the outbox of composed mail with its dead
// letters.
//
// Everything one incoming mail causes is written in a single read-write
// transaction ([DB.Update]): the dedupe record, the game change and the
// outgoing mails commit together or not at all, so a crash can neither lose
// a command nor apply it twice.
//
// # Bucket layout
//
// This table is the one place that says where every stored record lives
// (bucket and key); engine/doc.go says what the engine's records hold, in
// the same order and with the same keys. [Open] creates the buckets named
// in the buckets variable of store.go.
//
//	bucket     key                                value                                    encoding owned by
//	users      lower-cased userid                 user record                              engine (JSON)
//	games      board number, "%08d"               game record (of any game: it names its   engine (JSON)
//	                                              game; one sequence of board numbers)
//	tokens     reply token                        token record                             engine (JSON)
//	rate       lower-cased sender address         rate counter                             engine (JSON)
//	           "password " + lower-cased userid   wrong-password window (lockout)          engine (JSON)
//	strangers  address that is no account's      hourly count of mails sent to it         engine (JSON)
//	meta       "nextboard"                        next board number                        engine (JSON)
//	           "verp"                             the VERP secret (32 random bytes)        engine (JSON)
//	           "upgrade"                          an upgrade under way: the version from,  engine (JSON)
//	                                              the bucket being indexed, the next key
//	           "championship " + game word        a game's championship: on, enrolled,     engine (JSON)
//	                                              edition, its leagues, next start
//	           "schema"                           schema version, decimal ASCII ("7")      store
//	robot      board number, "%08d"               a game waiting for the robot player's    engine (JSON)
//	                                              move: the number of moves then
//	addresses  lower-cased address                address record (confirmed for whom,     engine (JSON)
//	                                              confirmation mails sent)
//	confirms   confirmation code                  confirmation record (kept 7 days)        engine (JSON)
//	bounces    lower-cased address                bounce record (hard bounces, soft count, engine (JSON)
//	                                              bouncing since, retry)
//	           "verp " + VERP tag                 the address the tag is the HMAC of       engine (JSON)
//	byplayer   lower-cased userid, 0x00, scope    empty: the index of a player's games:    engine
//	           ("*" every game, else the game's   running first, then finished, newest
//	           word), 0x00, "0" (running) "1"     first, then the subscribed ones
//	           (finished) or "2" (subscribed),
//	           99999999 minus the board, "%08d"
//	running    scope, 0x00, 99999999 minus the    empty: the running games, newest first   engine
//	           board number, "%08d"
//	deadlines  when the timer looks at the game   empty: the timer's queue of the running  engine
//	           next (game.Due), Unix nanoseconds  games, the earliest due first
//	           in 16 hex digits, then the board
//	           number, "%08d"
//	ended      scope, 0x00, MaxInt64 minus the    empty: the finished games, the last      engine
//	           end's Unix nanoseconds in 16 hex   ended first
//	           digits, then the board, "%08d"
//	counts     "games", "running", "finished",    the number of game records of the kind,  engine
//	           "cancelled"; "scope " + scope +    decimal ASCII (absent: none)
//	           " running" or " finished";
//	           "player " + userid + " " + scope
//	           + " running" or " finished";
//	           "standings " + game word           the players in its standings
//	summaries  board number, "%08d"               the game's line of the listings: its     engine (JSON)
//	                                              game, variant, players, state, winner,
//	                                              how it ended, the player to move, moves,
//	                                              start, last activity, end, tournament
//	ratings    game word, 0x00, the rating        a game's standings, the best first, of   engine (JSON)
//	           inverted (16 hex digits of its     the players with a finished game of it
//	           float64 bits, sortable), then the  who have not signed off; the value is
//	           lower-cased userid                 the line: userid, robot, created,
//	                                              rating, won, lost, tied (empty before
//	                                              version 7)
//	gametokens board number, "%08d", then the     empty: the reply tokens of each game     engine
//	           reply token
//	expiry     when it expires, Unix nanoseconds  empty: what the prune deletes, the       engine
//	           in 16 hex digits, then "t" and a   earliest expiring first: the tokens of
//	           board ("%08d"), "u" and a lower-   a finished game, an account that
//	           cased userid, "a" and a lower-     confirmed no address, an address
//	           cased address, or "c" and a        confirmed for nobody, a confirmation
//	           confirmation code                  code
//	recipients lower-cased userid                 empty: the players who take messages     engine
//	                                              and broadcasts (confirmed address,
//	                                              messages on, not signed off)
//	tournaments lower-cased tournament name       tournament record                        engine (JSON)
//	tourindex  "g" game word, 0x00, state ("0"    empty: every tournament by game and      engine
//	           open, "1" running, "2" finished),  state, then name; a player's open and
//	           0x00, lower-cased name; or "p"     running tournaments (not those he
//	           lower-cased userid, 0x00, name     withdrew from)
//	reviews    board number, "%08d"               a game that ended whose robot's review   engine (JSON)
//	                                              is not made yet: its number of moves,
//	                                              when it ended, its game-over mails held
//	                                              for the review, each picture once
//	                                              (written with the game's end, deleted
//	                                              when the mails go, a minute at most)
//	seen       dedupe key of a processed mail     time processed, 8-byte big-endian        store
//	           (Message-ID and a digest of        int64 Unix nanoseconds
//	           sender and text, cmd/lyngk)
//	outbox     mail ID, 8-byte big-endian uint64  mail record, below                       store
//	dead       mail ID, 8-byte big-endian uint64  mail record with LastError, Died and     store
//	                                              Size set; the message's header only
//	hourly     lower-cased recipient address      start of its hour, 8-byte big-endian     store
//	                                              int64 Unix nanoseconds, then the mails
//	                                              sent to it since, 4-byte big-endian
//	daily      time sent or dropped, 8-byte       its distinct recipients sent to, of      store
//	           big-endian int64 Unix nanoseconds, them the strangers, the strangers
//	           then the mail ID, 8-byte           dropped: three 4-byte big-endian
//	           big-endian                         counts (kept 24 hours; an older
//	                                              release wrote the first alone)
//	sent       Message-ID of a mail queued, " ",  time queued, 8-byte big-endian int64     store
//	           lower-cased recipient address      Unix nanoseconds (kept 14 days: bounces)
//	sentat     time queued, 8-byte big-endian     empty: the index by time of bucket sent, store
//	           int64 Unix nanoseconds, then the   for Expire
//	           key of the sent record
//
// A mail record is a 4-byte big-endian length n, then n bytes of JSON holding
// the [OutMail] fields but ID (the key) and Data, then the message itself,
// raw. The split lets [Tx.Due] pick due mail without reading every queued
// message, and spares the message base64.
//
// A dead letter keeps the header of its message (up to 16 KiB) and its
// size, not its body: it tells an operator what was lost and why, and a
// refused reply can be megabytes. Buckets created by a later release (hourly,
// bounces, daily, sent, sentat, tournaments, tourindex, reviews) are added by
// [Open] to an older file, empty; the schema version stays.
//
// # Delivery state and expiry
//
// Everything about a mail's delivery lives in its record: attempts, next
// attempt, last error ([Tx.RecordAttempt], [Tx.Failed], [Tx.RelayFailed]).
// [Tx.Due] is the one place that decides per-recipient order (a mail waits
// while an earlier mail to one of its recipients is queued) and the hourly
// allowance per address ([Limits.MailsPerHour], counted by [Tx.Sent] in
// the hourly bucket), and the daily cap of all recipients together
// ([Limits.MailsPerDay], counted by [Tx.Sent] in the daily bucket, read by
// [Tx.DailySent]). It serves the outbox in lanes: the players' mail first,
// the strangers' ([OutMail.Stranger]) last and only within their share of
// the daily cap ([Limits.StrangerShare]); past it a stranger's mail is
// dropped ([Tx.Drop], counted in the daily bucket), never held.
// [Tx.Expire] deletes dedupe records, dead letters, hourly counts and daily
// records once [Limits] says they are no longer needed, and the records of
// mails sent after [SentKeep], a bounded batch a run.
//
// Mail IDs come from the outbox bucket's sequence, so they rise with every
// [Tx.Enqueue] and are never reused; big-endian keys make bbolt's key order
// the queue order (FIFO). A dead letter keeps its ID.
//
// The engine reaches its buckets through the generic [Tx.Get], [Tx.Put],
// [Tx.Delete] and [Tx.ForEach]; the store's own buckets
// are reachable only through their typed methods, so nobody else can write a
// record the store cannot read back. The "schema" key of meta is reserved.
//
// # Schema
//
// The schema version is a singleton record (meta/"schema"). [Open] writes it
// into a new file and refuses, with an error wrapping [ErrSchema], a file
// written with a newer version, before changing anything in it. A file of
// an older version is upgraded by [Options].Upgrade (the engine's records
// are the engine's to convert), in steps: [Open] calls it, each call in a
// transaction of its own that also creates any missing bucket, until it
// says it is done, and writes the new version in the transaction of that
// last step. The file keeps its old version until then, so a crash
// leaves it to be upgraded again at the next start, which goes on where
// the upgrade was (the engine keeps its progress in meta/"upgrade",
// written with each step); no step holds more than a bounded batch in
// memory. Without Upgrade such a file is refused like a newer one.
// Buckets that an earlier release created and none reads (obsoleteBuckets
// in store.go: "mailboxes") are removed by [Open]; they never held a
// record, so their removal changes no version.
//
// Versions: 1, the first; 2 adds the buckets addresses and confirms
// (confirmed addresses); 3 changes no bucket but the engine's records:
// every game record names its game, and a user's rating and record are
// kept per game (LYNGK's were the user record's own fields); 4 adds the
// indexes of the game and user records (byplayer, running, deadlines,
// ended, counts, ratings), which the engine writes in the transaction of
// the record they index and builds from the records on an older file; 5
// adds the expiry indexes (gametokens, expiry) and the recipients of a
// broadcast (recipients), kept and built alike, and
// drops meta/"pruned" (version 4's cursor of the prune, which then read
// every token and account); 6 adds no bucket: the expiry index holds the
// confirmation codes too (kind "c"), built from the confirms bucket on a
// file of version 5 (the prune read every code a minute before); 7 adds
// summaries, each game's line of the listings, and a value to each key of
// ratings, the player's line of the standings, which the engine writes
// with the game and user records and builds from the records on an older
// file (a listing of 500 games read and replayed 500 records before, the
// standings read 500 user records).
package store
