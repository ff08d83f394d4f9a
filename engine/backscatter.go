package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"
)

// No backscatter. Mail that is answered goes to the address in
// From, which anybody may forge: a server that answers a forged mail with
// the text in it is a spam relay, and its domain ends on blocklists. So an
// address that is no account's confirmed address (a stranger) gets
//   - an answer only to strangerCommands (help, list, signup and confirm,
//     the second half of signup, whose code authenticates) and to a plain
//     reply (a reply token moves whoever sends it); every other command
//     runs (a password or a token is what authenticates, not the address),
//     its mails go to accounts only, and none to him, errors included.
//     That takes in the game commands that only list (show, games,
//     history, standings, ratings): their answer names the userids and
//     boards he typed, so a forged `lyngk games alice` would mail alice's
//     name to the forged address. He gets silence for them, not even
//     err.stranger: a mail of nothing else is applied and answered to
//     nobody (Handle returns no mail), as a mail of only a move with a
//     password is. A player asks from his confirmed address;
//   - never a text it chose: an error to a stranger is err.stranger or
//     err.no-command, without quote, argument, userid or address ("help
//     TOPIC" with a topic that is none of ours gets err.stranger, not the
//     help-topic error that names it; a mail that fails as a whole gets
//     the fixed err.internal, InternalError, whatever its commands);
//   - no answer at all when the receiving provider says SPF and DKIM both
//     failed (Inbound.AuthFailed).
// And the answer to a mail that holds no command (err.no-command,
// err.unknown-command; a plain reply whose first word is no move), which
// names the nearest commands (suggest.go), goes to a stranger at most once
// a day (a plain reply's counted per word): a loop with an auto-responder
// or a ticket system stops after one round. A player (a confirmed
// address) is answered every time he writes something new: only the same
// line again within the day, which is what a responder without the RFC
// 3834 marks repeats and a person seldom, gets silence. Automatic mail
// that carries the marks is never answered (Handle). Errors about real
// commands are answered every time.

// strangerCommands are the commands a stranger gets an answer to, all
// common commands (a line that starts with a game word gets none).
var strangerCommands = map[string]bool{"help": true, "list": true, "signup": true, "confirm": true}

// strangerSafe are the refusals whose texts hold nothing the mail chose
// (their data come from the store, or are ours): a stranger gets them as
// they are; any other refusal as err.stranger.
var strangerSafe = map[why]bool{whyInternal: true, whyTooBig: true, whyThrottled: true, whyNoCommand: true,
	whyConfirmUnknown: true, whyConfirmDone: true, whyConfirmExpected: true, whyReplyEmpty: true, whyConfirmVoid: true, whyConfirmsPerMail: true,
	whySignupsFull: true, whyTooManyChecks: true, whyTokenUnknown: true, whyTokenStale: true,
	whyTokenSpent: true, whyTokenTakenBack: true, whyTokenOver: true, whyTokenNotPlayer: true}

// hintKeep is how long one answer to a mail without a command silences
// the next ones from the same address.
const hintKeep = 24 * time.Hour

// hintPrefix begins the keys of the hint records in bucket strangers: no
// address has a space.
const hintPrefix = "hint "

// strangerMay says whether a stranger's line is answered (all are run).
func (r *request) strangerMay(line string) bool {
	if !r.e.isCommandLine(line) {
		return true // a plain reply: its token moves, or it is no command
	}
	return strangerCommands[strings.ToLower(strings.Fields(line)[0])]
}

// hint answers a mail that holds no command with ref, once a day: to a
// stranger once per address (and per word, when word is set), to a player
// once per line (the Subject for a mail without one); later ones get
// silence.
func (r *request) hint(ref *refusal, word string) error {
	key := hintPrefix + strings.ToLower(r.in.From)
	if !r.stranger {
		line := r.line
		if line == "" {
			line = r.in.Subject
		}
		word = "line " + strings.Join(strings.Fields(strings.ToLower(line)), " ")
	}
	if word != "" {
		sum := sha256.Sum256([]byte(word))
		key += " " + hex.EncodeToString(sum[:8])
	}
	var c rateCount
	found, err := load(r.tx, bucketStrangers, key, &c)
	if err != nil {
		return err
	}
	if found && r.now.Sub(c.Start) < hintKeep && !r.now.Before(c.Start) {
		return nil
	}
	if err := save(r.tx, bucketStrangers, key, &rateCount{V: recordVersion, Start: r.now, Count: 1}); err != nil {
		return err
	}
	return r.refused(ref, true)
}

// withSuggestions adds to ref the usage lines of the commands nearest to
// line (suggest), when there are any.
func (r *request) withSuggestions(ref *refusal, line string) *refusal {
	if s := r.e.suggest(line, r.stranger); len(s) > 0 {
		if ref.data == nil {
			ref.data = kv{}
		}
		ref.data["Suggest"] = s
	}
	return ref
}

// MaxConfirmsPerMail bounds the addresses one incoming mail may ask to
// confirm (signup and change address, all its commands together): one
// forged mail cannot make a confirmation cannon.
const MaxConfirmsPerMail = 2

// mailbox is the key of addr's daily count of confirmation mails: one
// mailbox whatever the spelling, lower-cased, without a +tag, and without
// the dots of the local part at gmail.com (which ignores them).
func mailbox(addr string) string {
	local, domain, _ := strings.Cut(strings.ToLower(strings.TrimSpace(addr)), "@")
	if i := strings.IndexByte(local, '+'); i > 0 {
		local = local[:i]
	}
	if domain == "gmail.com" || domain == "googlemail.com" {
		local, domain = strings.ReplaceAll(local, ".", ""), "gmail.com"
	}
	return local + "@" + domain
}
