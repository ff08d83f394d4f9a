// Package localmail is the all-in-one mail service of local mode (SPEC §5):
// a whole mail system on loopback for trying the server without an account
// anywhere. It is a server, where its parent package mailer is the daemon's
// client side; the daemon reads and sends through mailer's Poller and
// Sender here as it would with a real provider.
//
// [StartLocal] starts an SMTP server that delivers to NAME@localhost and an
// IMAP server where each address is a mailbox (password NAME; the robot's
// mailbox, lyngk@localhost, gets a random password at each start,
// [Local.RobotPassword], since its subjects carry every signup password).
// Every address has INBOX, Drafts, Sent and Trash, the last three with
// their RFC 6154 SPECIAL-USE attributes; clients may APPEND (save sent mail
// and drafts), CREATE, RENAME and DELETE their own folders, MOVE and COPY.
// Both listen on loopback addresses only.
//
// The mailboxes live on disk, in the bbolt file mail.db of
// [LocalConfig.Dir] (the daemon's data directory), and survive restarts:
// UIDVALIDITY stays, UIDs are never given twice, a mailbox made anew gets a
// new UIDVALIDITY (RFC 9051 §2.3.1.1). localbox.go writes the layout down.
// The package opens that file with bbolt itself rather than through package
// store: mailer and its children import none of our other packages, and the
// mailboxes share no transaction with the games (a separate file also keeps
// the game store's backups free of mail). The IMAP side is our own
// imapserver.Session over that file (localsession.go): go-imap's
// imapmemserver numbers a mailbox's mails from UID 1 whenever they are
// loaded into it, so it cannot be made persistent by loading and saving
// around it. Its trackers (imapserver.MailboxTracker) carry the updates
// between sessions, and IDLE polls at every change (mailer/internal/idle).
package localmail
