package engine

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"lyngk.example/lyngk/engine/games"
)

// Command is one parsed command line. Keywords are matched in any case and
// stored in their canonical form; arguments keep the case they were written in.
type Command struct {
	// Game is the game word the command was written after ("lyngk"), ""
	// for the common commands.
	Game string
	// Name is the canonical command: "help", "signup", "confirm", "change password",
	// "change address", "signoff", "vacation", or one of the game commands
	// "challenge", "move", "resign", "decline", "show", "games", "history", "standings",
	// "subscribe", "unsubscribe", "chat" (written after a game word).
	Name string
	// Args are the arguments in order, options removed.
	Args []string
	// Variant is the variant a challenge's option selected ("stack6"),
	// "" for the game's default.
	Variant string
}

// maxArgs bounds the open argument lists (addresses, userids, boards).
const maxArgs = 20

// synonyms of game command words, as pbmserv accepts them.
var synonyms = map[string]string{"board": "move", "mvoe": "move"}

// topWords are the first words of the common commands of the table
// ("multiple" only as a subject); the game words are the others. A line
// that starts with anything else is not a command.
func topWords() []string {
	var words []string
	for _, c := range commandTable() {
		if w, _, _ := strings.Cut(c.name, " "); !c.game && !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	return words
}

// joinMove puts a move of game gm written in several words back together
// (games.Rules.MoveWords), as players type them.
func joinMove(gm games.Rules, words []string) []string {
	n := gm.MoveWords(words)
	if n <= 1 || n > len(words) {
		return words
	}
	return append([]string{strings.Join(words[:n], "")}, words[n:]...)
}

// ParseCommand parses one command line. Errors are refusals: the text of the
// error mail comes from the templates ("err.unknown-command", "err.usage",
// "err.bad-option").
func (e *Engine) ParseCommand(line string) (Command, error) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return Command{}, refuse(whyNoCommand, nil)
	}
	word := strings.ToLower(f[0])
	var c Command
	var args []string
	gm, isGame := e.games[word]
	var cmd *command
	switch {
	case len(e.subcommands(word)) > 0:
		// A command of two words: "change password", "all show".
		if len(f) < 2 {
			return Command{}, e.usageRefusal(word, "")
		}
		c.Name = word + " " + strings.ToLower(f[1])
		var ok bool
		if cmd, ok = e.command(c.Name, false); !ok {
			return Command{}, e.usageRefusal(word, "")
		}
		args = f[2:]
	case isGame:
		if len(f) < 2 {
			return Command{}, e.usageRefusal(word, "")
		}
		c.Game = word
		c.Name = strings.ToLower(f[1])
		if s, ok := synonyms[c.Name]; ok {
			c.Name = s
		}
		args = f[2:]
		if len(e.gameSubcommands(c.Name)) > 0 {
			// A game command of two words: "lyngk tournament join".
			if len(f) < 3 {
				return Command{}, e.usageRefusal(c.Name, c.Game)
			}
			c.Name += " " + strings.ToLower(f[2])
			if _, ok := e.command(c.Name, true); !ok {
				return Command{}, e.usageRefusal(strings.ToLower(f[1]), c.Game)
			}
			args = f[3:]
		}
		var ok bool
		if cmd, ok = e.command(c.Name, true); !ok {
			return Command{}, refuse(whyUnknownCommand, kv{"Word": f[0] + " " + f[1]})
		}
	default:
		var ok bool
		if cmd, ok = e.command(word, false); !ok {
			return Command{}, refuse(whyUnknownCommand, kv{"Word": f[0]})
		}
		c.Name = word
		args = f[1:]
	}
	if c.Name == "challenge" {
		var err error
		if args, c.Variant, err = options(gm, args); err != nil {
			var ref *refusal
			if errors.As(err, &ref) {
				ref.data["Usage"] = e.usage("challenge", c.Game)
			}
			return Command{}, err
		}
	}
	if i := cmd.arg(plain); cmd.moveArg && len(args) > i {
		// The move, the last argument, may be written in several words.
		args = append(args[:i:i], joinMove(gm, args[i:])...)
	}
	hi := cmd.max
	if hi < 0 {
		hi = maxArgs
	}
	if len(args) < cmd.min || len(args) > hi {
		return Command{}, e.usageRefusal(c.Name, c.Game)
	}
	if len(args) > 0 {
		c.Args = slices.Clone(args)
	}
	return c, nil
}

// options takes the options out of a challenge's arguments of game gm;
// they may stand anywhere (games.Rules.Variant).
func options(gm games.Rules, args []string) (rest []string, variant string, err error) {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			rest = append(rest, a)
			continue
		}
		v, ok := gm.Variant(a)
		if !ok || a == "" {
			return nil, "", refuse(whyBadOption, kv{"Option": a})
		}
		variant = v
	}
	return rest, variant, nil
}

// String formats c as a command line that ParseCommand reads back to c.
func (c Command) String() string {
	var b strings.Builder
	if c.Game != "" {
		b.WriteString(c.Game + " ")
	}
	b.WriteString(c.Name)
	if c.Variant != "" {
		b.WriteString(" -" + c.Variant)
	}
	for _, a := range c.Args {
		b.WriteString(" " + a)
	}
	return b.String()
}

// isCommandLine reports whether line starts with a command word (a common
// command's or a game's): such a line is a command (maybe a malformed one),
// anything else is not.
func (e *Engine) isCommandLine(line string) bool {
	f := strings.Fields(line)
	if len(f) == 0 {
		return false
	}
	w := strings.ToLower(f[0])
	_, game := e.games[w]
	return game || slices.Contains(e.topWords, w)
}

// ownSubjectRE matches the subjects of our own mails, which a reply carries
// (often without "Re:") and which are never commands: the board mails of
// every game start with its title ("Yinsh Board 102 bob", "Lyngk Board
// 101 bob **", "Lyngk Board 101 Error", "Lyngk Board 101 chat bob"), the
// mails of no game with the server's name ("PBeM Server error", "PBeM
// Server help rules", "PBeM Server account bob", "Confirm PBeM Server
// signup bob"), and those the server sent before it had a name of its own
// with "Lyngk" ("Lyngk help").
// None of them is a complete command: a move by "lyngk board" takes six words.
func ownSubjectRE(server string, titles []string) *regexp.Regexp {
	alts := []string{"lyngk", strings.Join(strings.Fields(regexp.QuoteMeta(strings.ToLower(server))), `\s+`)}
	for _, t := range titles {
		if w := regexp.QuoteMeta(strings.ToLower(t)); !slices.Contains(alts, w) {
			alts = append(alts, w)
		}
	}
	return regexp.MustCompile(`(?i)^(confirm\s+)?(` + strings.Join(alts, "|") +
		`)\s+(board\s+\d+(\s+\S+){0,2}|error|help(\s+\S+)?|signup\s+\S+|address\s+\S+|account\s+\S+)$`)
}

// Script is what one mail asks for.
type Script struct {
	// Lines are the command lines in order: the Subject, or the first text
	// line, or for subject "multiple" every line up to the first blank one.
	// A first line that is not a command is a plain reply (a move).
	Lines []string
	// FromSubject is set when Lines[0] is the Subject.
	FromSubject bool
	// Multiple is set for subject "multiple": every line must be a command.
	Multiple bool
	// Comment is the text for the other players, each line ending in "\n";
	// "" when there is none.
	Comment string
}

// ReadMail finds the commands and the comment of a mail. The text ends at
// the first quoted line (">"), reply attribution ("On ... wrote:") or
// signature separator ("-- "); quoted text and attributions before the first
// text line are skipped, so bottom-posted replies work as well.
func (e *Engine) ReadMail(subject, body string) Script {
	subject = strings.TrimSpace(subject)
	lines := strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n")
	var s Script
	i := firstText(lines)
	switch {
	case strings.EqualFold(subject, "multiple"):
		s.Multiple = true
		for ; i < len(lines) && !endOfText(lines, i); i++ {
			line := strings.TrimSpace(lines[i])
			if line == "" {
				break
			}
			s.Lines = append(s.Lines, line)
		}
	case e.isCommandLine(subject) && !e.ownSubject.MatchString(subject):
		s.Lines, s.FromSubject = []string{subject}, true
		// A body that repeats the command must not pass its password on.
		if i < len(lines) && e.isCommandLine(lines[i]) {
			i++
		}
	case i < len(lines):
		s.Lines = []string{strings.TrimSpace(lines[i])}
		i++
	}
	s.Comment = comment(lines, i)
	return s
}

// firstText returns the index of the first line that is neither blank,
// quoted nor an attribution; len(lines) when the text ends first.
func firstText(lines []string) int {
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		switch n := attribution(lines, i); {
		case n > 0:
			i += n - 1
		case t == "" || quoted(lines[i]):
		case endOfText(lines, i):
			return len(lines)
		default:
			return i
		}
	}
	return len(lines)
}

// comment collects the text from lines[i] up to the end of the text, without
// blank lines around it and without trailing spaces.
func comment(lines []string, i int) string {
	var out []string
	for ; i < len(lines) && !endOfText(lines, i); i++ {
		out = append(out, strings.TrimRightFunc(lines[i], unicode.IsSpace))
	}
	for len(out) > 0 && out[0] == "" {
		out = out[1:]
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, "\n") + "\n"
}

// endOfText reports whether lines[i] ends the text written by the sender.
func endOfText(lines []string, i int) bool {
	t := strings.TrimSpace(lines[i])
	return quoted(lines[i]) || isSignature(lines[i]) || attribution(lines, i) > 0 ||
		originalMessage.MatchString(t) || strings.HasPrefix(t, "________________") ||
		outlookHeader(lines, i) || isMobileSignature(t)
}

// isMobileSignature reports whether t is the line that phone and webmail
// apps add under what the player wrote ("Sent from my iPhone", "Get Outlook
// for Android"): it is no comment for the opponent. The apps link their
// name in the HTML part, which their text part writes out:
// "Get Outlook for iOS<https://aka.ms/o0ukef>", "Sent with [Proton
// Mail](https://proton.me/mail/home) secure email.", "Sent from
// Mail<https://go.microsoft.com/...> for Windows", "Sent from Yahoo Mail on
// Android<https://go.onelink.me/...>", German Outlook's "Outlook für
// iOS<https://aka.ms/o0ukef> herunterladen"; the links are dropped before
// the words are matched.
func isMobileSignature(t string) bool {
	if len(t) > 600 {
		return false // no sign-off is that long, its link of 230 (Yahoo's) and all
	}
	if strings.Contains(t, "http") {
		t = markdownLink.ReplaceAllString(t, "$1")
		t = strings.Join(strings.Fields(signatureLink.ReplaceAllString(t, " ")), " ")
	}
	return len(t) <= 200 && mobileSignature.MatchString(t)
}

var (
	// markdownLink is "[words](url)", signatureLink "<url>" or a bare URL.
	markdownLink  = regexp.MustCompile(`\[([^\]]*)\]\(https?://[^)\s]*\)`)
	signatureLink = regexp.MustCompile(`<(https?|mailto):[^>\s]*>|https?://\S+`)
)

// mobileSignature matches the sign-off lines, their links removed.
var mobileSignature = regexp.MustCompile(`^(?i:sent from my [\w .-]+|get outlook for (ios|android)|sent from (outlook|mail|yahoo mail) (for|on) [\w .-]+|` +
	`sent (from|with) spark|sent from (gmail mobile|yahoo mail|proton mail [\w .-]+)|sent with proton mail secure email\.?|` +
	`envoyé de mon [\w .-]+|von meinem [\w .-]+ gesendet|inviato da [\w .-]+|enviado desde mi [\w .-]+|verzonden (vanaf|met) (mijn )?[\w .-]+|` +
	`outlook für (ios|android) (herunterladen|beziehen)|(gesendet von|von) outlook für (ios|android)( gesendet)?|enviado do (meu )?[\w .-]+)$`)

// quoted reports whether a line is quoted text: "> ", ">", "| " (some
// webmails), or indented with a tab, as s-nail and mailx quote by default.
func quoted(line string) bool {
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, ">") || strings.HasPrefix(t, "|") || strings.HasPrefix(line, "\t") && t != ""
}

// outlookHeader recognises the header block that Outlook puts above the
// mail it answers, unquoted: "From: ..." then "Sent: ..." (or "Date:"),
// also in German and French. An HTML-only Outlook reply has nothing else
// that marks where the quoted board mail begins.
func outlookHeader(lines []string, i int) bool {
	return i+1 < len(lines) && outlookFrom.MatchString(strings.TrimSpace(lines[i])) &&
		outlookSent.MatchString(strings.TrimSpace(lines[i+1]))
}

// isSignature: "-- " is the separator (RFC 3676 §4.3); many clients strip
// its trailing space.
func isSignature(line string) bool {
	return line == "-- " || line == "--"
}

var (
	outlookFrom = regexp.MustCompile(`^(From|Von|De|Da|Van) ?:`)
	outlookSent = regexp.MustCompile(`^(Sent|Date|Gesendet|Envoyé|Enviado|Inviato|Verzonden|Datum|Data|Fecha) ?:`)
	// originalMessage is the line above an unquoted copy of the mail
	// answered (Outlook, Thunderbird's "forward inline", webmails).
	originalMessage = regexp.MustCompile(`^-{3,} ?(?i:original message|ursprüngliche nachricht|message d'origine|` +
		`messaggio originale|mensaje original|oorspronkelijk bericht|forwarded message) ?-{3,}$`)
)
