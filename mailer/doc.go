// Package mailer moves mail in and out of the LYNGK server, and turns it into
// plain values and back. It knows nothing of games: the engine reads an
// [Inbound] and answers with texts that [Compose] turns into mails.
//
// # Parsing
//
// [Parse] reduces one RFC 5322 mail, as sent by real clients, to an
// [Inbound]: the bare sender address, decoded subject, message ids without
// brackets, and the body as UTF-8 text with LF line ends. The MIME tree is
// walked with go-message: a text/plain part is preferred to its
// multipart/alternative HTML sibling, HTML-only mail is rendered as text
// (quoted <blockquote> lines get "> "), quoted-printable and base64 are
// decoded, every charset go-message knows is converted, format=flowed
// (RFC 3676) is joined back, and attachments are dropped. Quoted text and
// signatures are kept: finding the command is the engine's business.
// Parse also classifies mail that must not be answered (RFC 3834 §2, SPEC
// §3) in [Inbound.Auto], and reads at most one byte more than its size limit,
// so an oversized mail is judged by its header alone.
//
// # Composing
//
// [Compose] writes one reply as a single text/plain part in UTF-8,
// quoted-printable and never format=flowed, so the board block arrives
// intact, trailing spaces included (SPEC §4). Every reply carries
// Message-ID, In-Reply-To, References and Auto-Submitted (RFC 3834 §5).
// [WriteMbox] and [ReadMbox] write and read the mbox that `lyngk process
// -mbox` produces instead of sending.
//
// # Receiving
//
// A [Poller] logs in to an IMAP server, fetches unseen mail from a mailbox,
// hands each raw mail to a [Handler] and, once the handler has committed its
// work, flags the mail \Seen and moves it to the processed or rejected
// folder. It waits with IDLE when the server offers it and polls otherwise;
// a watchdog bounds every command, and a broken connection is redialled with
// backoff. A handler error leaves the mail unseen for the next round, which
// is safe because handlers are idempotent (dedupe by Message-ID). A handler
// may also answer [Pending] for a mail it commits later (the daemon's
// password lane): the mail stays unseen and is not handed over again until
// [Poller.Recheck], when the handler says what became of it.
//
// # Sending
//
// A [Sender] drains a [Queue] of composed mails (the store's outbox) over
// SMTP submission; the queue keeps every mail's delivery state and decides
// which may go (per-recipient order), the sender keeps only the relay's.
// Each attempt is recorded before the connection is made, so a crash cannot
// turn into a tight retry loop. go-smtp's error says whose failure it is: a
// 4xx to a mail makes it wait for the next step of [RetrySchedule], a 5xx
// sends it to the dead letters, as does an exhausted schedule; a relay that
// fails (no connection, TLS, authentication, 421, MAIL FROM refused) takes
// the attempt back and makes the sender reconnect on [RelaySchedule], at
// most 30 s apart, so the outbox goes out within a minute of its return.
// [Sender.Wake] starts a round at once.
//
// # Local mail service
//
// [StartLocal] runs a whole mail system on loopback for trying the server
// without an account anywhere: an SMTP server that delivers to NAME@localhost
// and an IMAP server where each address is a mailbox (password NAME; the
// robot's mailbox, lyngk@localhost, gets a random password at each start,
// [Local.RobotPassword], since its subjects carry every signup password).
// Every address has INBOX, Drafts, Sent and Trash, the last three with
// their RFC 6154 SPECIAL-USE attributes; clients may APPEND (save sent mail
// and drafts), CREATE, RENAME and DELETE their own folders, MOVE and COPY.
//
// The mailboxes live on disk, in the bbolt file mail.db of
// [LocalConfig.Dir] (the daemon's data directory), and survive restarts:
// UIDVALIDITY stays, UIDs are never given twice, a mailbox made anew gets a
// new UIDVALIDITY (RFC 9051 §2.3.1.1). localbox.go writes the layout down.
// mailer opens that file with bbolt itself rather than through package
// store: mailer imports none of our packages, and the mailboxes share no
// transaction with the games (a separate file also keeps the game store's
// backups free of mail). The IMAP side is our own imapserver.Session over
// that file (localsession.go): go-imap's imapmemserver numbers a mailbox's
// mails from UID 1 whenever they are loaded into it, so it cannot be made
// persistent by loading and saving around it. Its trackers
// (imapserver.MailboxTracker) carry the updates between sessions.
package mailer
