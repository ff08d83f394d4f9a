// Package mailer moves mail in and out of the game server, and turns it into
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
// The all-in-one mail service of local mode is a child package,
// [lyngk.example/lyngk/mailer/localmail], as go-imap keeps its memory
// server apart from its client: it is a server, run beside the daemon for
// trying the game without an account anywhere, while this package is the
// daemon's client side.
package mailer
