package engine

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"golang.org/x/crypto/bcrypt"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/templates"
)

// Tx is the store transaction the engine works in. *store.Tx satisfies it.
type Tx interface {
	Get(bucket, key string) ([]byte, error)
	Put(bucket, key string, val []byte) error
	// Delete drops a key (the robot's index of waiting games, robot.go; the
	// strangers' counts of past hours, bounds.go).
	Delete(bucket, key string) error
	ForEach(bucket string, fn func(key string, val []byte) error) error
	// Scan is ForEach from the first key at or after from: the indexes
	// (index.go) are read by range, never whole.
	Scan(bucket, from string, fn func(key string, val []byte) error) error
}

// Inbound is an incoming mail, reduced to what the engine needs (a subset of
// mailer.Inbound).
type Inbound struct {
	MessageID  string // without <>
	From       string // bare address
	Subject    string
	Body       string // plain text, LF line ends
	InReplyTo  []string
	References []string
	Auto       string // non-empty: an automatic mail, never answered (RFC 3834)
	TooBig     bool   // over the size limit; Body is empty
	// AuthFailed says the receiving provider's Authentication-Results (of
	// the authserv-id the operator trusts) has SPF and DKIM both failed:
	// the sender is forged, and a stranger gets no answer at all.
	AuthFailed bool
}

// Mail is a reply or notice to send: one per recipient user.
type Mail struct {
	To            []string
	Subject       string
	Body          string
	MessageID     string // without <>; "" lets the composer generate one
	InReplyTo     string
	References    []string
	AutoSubmitted string // "auto-replied" or "auto-generated" (RFC 3834 §5)
	// TextOnly asks for the text alone, whatever format the recipient
	// chose: no picture, no HTML part. It is set on every mail to an
	// address that is no account's (a stranger, or a forged sender).
	TextOnly bool
	// HTML, when set, is the HTML alternative of Body; it shows Picture (a
	// PNG of the board) as "cid:" + PictureID. Never with TextOnly.
	HTML      string
	Picture   []byte
	PictureID string
	// Attachments are files the mail carries after its text: the SGF of
	// a game (`GAME record BOARD`). TextOnly keeps them: they are text,
	// and MaxReply bounds them with the body.
	Attachments []Attachment
	// Unasked marks a board mail of a game its recipient has not moved in
	// and did not ask for (MaxUnasked): the outbox's hourly cap serves the
	// recipient's other mail first.
	Unasked bool

	board int // the board the mail shows, for the summary of mails left out
}

// Attachment is a file a mail carries (Mail.Attachments).
type Attachment struct {
	Filename    string // "yinsh-101.sgf"
	ContentType string // "application/x-go-sgf; charset=utf-8"
	Data        []byte
}

// Config configures an Engine.
type Config struct {
	// Games are the games the server offers, at least one; every game
	// record names its game (store schema version 3).
	Games       []games.Game
	Server      string // our own address: mail from it is never answered
	Domain      string // right-hand side of our Message-IDs; "" = Robot's domain
	Templates   *templates.Set
	RatePerHour int // commands per sender and hour; 0 = no limit
	// SignupsPerHour bounds the new accounts in all per hour (a window
	// that opens with the first); a signup beyond it is refused with the
	// time to send it again. 0 = no limit.
	SignupsPerHour int
	// ConfirmsPerDay bounds the confirmation mails one mailbox gets in 24
	// hours; 0 = the default, 3.
	ConfirmsPerDay int
	Rand           io.Reader // reply tokens; nil = crypto/rand
	// NagAfter and ForfeitAfter are the timer periods; zero means the
	// defaults of SPEC §3 (7 and 21 days).
	NagAfter, ForfeitAfter time.Duration
	// ChampionshipPause is the time between the end of a championship's
	// edition and the start of the next, and from the switch to the first
	// (championship.go); zero means DefaultChampionshipPause.
	ChampionshipPause time.Duration
	// Listed is the number of games a listing by mail shows at most
	// (games, history, show USERID, all show); 0 = MaxListed, which keeps
	// the mail within MaxReply. Tests of the cut set fewer.
	Listed int
	// BcryptCost is the cost of new password hashes; 0 = bcrypt.DefaultCost.
	BcryptCost int
	// RobotPlayer makes the robot players play (robot.go): the accounts of
	// RobotLevels, weakest first (nil: RobotID alone, at its budget of
	// RobotLevels).
	RobotPlayer bool
	RobotLevels []RobotLevel
	// TournamentRobot lets a tournament's creator enter the robot player
	// (GAME tournament robot), so that a small community fills a group;
	// it needs RobotPlayer and a game that brings a robot.
	TournamentRobot bool
	// WebURL is the public base URL of the web part (no trailing slash):
	// when set, every board mail to a player says "Move on the web:"
	// WebURL/play/TOKEN in both parts (play.go). "" = no such line.
	WebURL string
	// ServerName is the server's own name, as players know it: the
	// display name of its mails' sender and the start of the subjects
	// and texts of every mail that belongs to no game ("PBeM Server
	// help", "Confirm PBeM Server signup bob"). "" = templates.DefaultServer,
	// gamerz's "PBeM Server".
	ServerName string
}

// Default timer periods (SPEC §3) and the interval of repeated reminders.
const (
	DefaultNagAfter     = 7 * 24 * time.Hour
	DefaultForfeitAfter = 21 * 24 * time.Hour
	NagRepeat           = 7 * 24 * time.Hour
)

// Engine executes commands. It holds no state of its own: everything lives
// in the store, so one Engine serves any number of transactions, one at a
// time or concurrently.
type Engine struct {
	cfg   Config
	games map[string]games.Game // by word
	// ownSubject matches the subjects of the server's own mails
	// (ownSubjectRE).
	ownSubject *regexp.Regexp
	commands   []command // the command table (commands.go)
	topWords   []string  // the first words of the common commands
	auth       *authCache
	inline     atomic.Int64 // bcrypt runs inside Handle (see InlineChecks)
	pics       *pictures    // the PNGs of positions (pictures.go)
	revs       *reviews     // the game-over reviews (reviews.go)
}

// New checks cfg and fills in its defaults.
func New(cfg Config) (*Engine, error) {
	if cfg.Templates == nil {
		return nil, errors.New("engine: no templates")
	}
	if cfg.Server == "" {
		return nil, errors.New("engine: no server address")
	}
	if len(cfg.Games) == 0 {
		return nil, errors.New("engine: no games")
	}
	byName := map[string]games.Game{}
	for _, g := range cfg.Games {
		name := g.Name()
		if !validGameWord(name) {
			return nil, fmt.Errorf("engine: game word %q: not a lower-case word of letters and digits, or one of the common commands", name)
		}
		if _, dup := byName[name]; dup {
			return nil, fmt.Errorf("engine: game %q offered twice", name)
		}
		if missing := missingTexts(cfg.Templates, name); len(missing) > 0 {
			return nil, fmt.Errorf("engine: game %q has no template %s (templates/%s.tmpl)", name, strings.Join(missing, ", "), name)
		}
		byName[name] = g
	}
	if cfg.Domain == "" {
		_, d, ok := strings.Cut(cfg.Server, "@")
		if !ok || d == "" {
			return nil, fmt.Errorf("engine: no domain for Message-IDs and none in the server address %q", cfg.Server)
		}
		cfg.Domain = d
	}
	if len(cfg.RobotLevels) == 0 {
		cfg.RobotLevels = []RobotLevel{RobotLevels[slices.IndexFunc(RobotLevels, func(l RobotLevel) bool { return l.ID == RobotID })]}
	}
	for _, l := range cfg.RobotLevels {
		if !validUserID(l.ID) || (l.Think.Playouts <= 0 && l.Think.Time <= 0) {
			return nil, fmt.Errorf("engine: robot level %q: a valid userid and a budget, please", l.ID)
		}
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	if err := CheckServerName(cfg.ServerName); err != nil {
		return nil, err
	}
	if cfg.ServerName = strings.TrimSpace(cfg.ServerName); cfg.ServerName == "" {
		cfg.ServerName = templates.DefaultServer
	}
	set, err := cfg.Templates.WithServer(cfg.ServerName)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	cfg.Templates = set
	if cfg.NagAfter == 0 {
		cfg.NagAfter = DefaultNagAfter
	}
	if cfg.ForfeitAfter == 0 {
		cfg.ForfeitAfter = DefaultForfeitAfter
	}
	if cfg.ChampionshipPause == 0 {
		cfg.ChampionshipPause = DefaultChampionshipPause
	}
	if cfg.Listed <= 0 || cfg.Listed > MaxListed {
		cfg.Listed = MaxListed
	}
	cfg.WebURL = strings.TrimRight(cfg.WebURL, "/")
	if cfg.BcryptCost == 0 {
		cfg.BcryptCost = bcrypt.DefaultCost
	}
	if cfg.BcryptCost < bcrypt.MinCost || cfg.BcryptCost > bcrypt.MaxCost {
		return nil, fmt.Errorf("engine: bcrypt cost %d outside %d..%d", cfg.BcryptCost, bcrypt.MinCost, bcrypt.MaxCost)
	}
	if cfg.ConfirmsPerDay == 0 {
		cfg.ConfirmsPerDay = 3
	}
	if cfg.RatePerHour < 0 || cfg.SignupsPerHour < 0 || cfg.ConfirmsPerDay < 0 || cfg.NagAfter < 0 || cfg.ForfeitAfter < 0 || cfg.ChampionshipPause < 0 {
		return nil, errors.New("engine: negative rate or timer period")
	}
	auth, err := newAuthCache()
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	var titles []string
	for _, g := range cfg.Games {
		titles = append(titles, g.Title())
	}
	return &Engine{cfg: cfg, auth: auth, pics: newPictures(), revs: new(reviews), games: byName, ownSubject: ownSubjectRE(cfg.ServerName, titles),
		commands: commandTable(), topWords: topWords()}, nil
}

// maxServerName bounds the server's name: it starts subjects, which stay
// on one line of a mail program's list.
const maxServerName = 40

// CheckServerName refuses a server name (Config.ServerName) that cannot
// start a subject or be a display name: longer than maxServerName, or
// with a control character, a quote, <, > or @. "" is the default's.
func CheckServerName(name string) error {
	if len(name) > maxServerName || strings.ContainsAny(name, "\"<>@") ||
		strings.ContainsFunc(name, unicode.IsControl) {
		return fmt.Errorf("engine: server name %q: at most %d bytes, no control character, quote, <, > or @", name, maxServerName)
	}
	return nil
}

// ServerName is the server's own name (Config.ServerName): the display
// name of its mails' sender, and the web's to show.
func (e *Engine) ServerName() string { return e.cfg.ServerName }

// Games returns the games the server offers, in the order of Config.Games.
func (e *Engine) Games() []games.Game { return slices.Clone(e.cfg.Games) }

// Game returns the game of word name (any case).
func (e *Engine) Game(name string) (games.Game, bool) {
	g, ok := e.games[strings.ToLower(name)]
	return g, ok
}

// gameOf returns the game of record g.
func (e *Engine) gameOf(g *game) (games.Game, error) {
	gm, ok := e.games[g.Game]
	if !ok {
		return games.Game{}, fmt.Errorf("engine: board %d: game %q is not offered by this server", g.Board, g.Game)
	}
	return gm, nil
}

// validGameWord: a game's word is the first word of its commands, so it is
// a lower-case word of letters and digits that no common command starts
// with.
func validGameWord(s string) bool {
	if s == "" || strings.TrimLeft(s, "abcdefghijklmnopqrstuvwxyz0123456789") != "" {
		return false
	}
	return !slices.Contains(topWords(), s)
}

// request is the work on one incoming mail (or one timer tick).
type request struct {
	e      *Engine
	tx     Tx
	in     Inbound
	now    time.Time
	script Script
	line   string // the command being run, for the error quote
	// word is the game word of the command being run ("" for a common
	// command and a plain reply): a board of another game is refused.
	word string
	out  []Mail
	budget
	// forecast runs the request for Forecast: no picture drawn (each is
	// listed in drawings), no bcrypt.
	forecast bool
	drawings []Drawing
	// work is the password work of this mail so far (spend): each
	// password check and new hash, once however often it is asked.
	work map[string]bool
	// messaged counts the recipients of this mail's messages
	// (MaxMessageRecipients).
	messaged int
	// drops are the queued moves this request could not play, for their
	// players' notices (queue.go).
	drops []dropped
	free  map[string]bool // checks of the passwords this mail hashed
	// stranger: the sender is no confirmed address of an account (no
	// backscatter: strangers get answers only to strangerCommands, and
	// never a text they chose). asked counts the confirmation mails of
	// this mail (MaxConfirmsPerMail). plain: the line run is a plain
	// reply, not a command.
	stranger bool
	// unlisted counts the games a listing of boards (show USERID, all
	// show) did not read, beyond Config.Listed: the summary counts them
	// among the boards left out.
	unlisted int
	asked    int
	plain    bool
	// silent: the line run is a stranger's command that gets no answer
	// (strangerMay): it runs, its mails go to accounts, none to him.
	silent bool
	// ignored: the mail was left alone (Handle returns no mails, nil).
	ignored bool
	// bounceNote, when set, opens the first mail to the sender: his
	// address was marked bouncing and this mail lifted the mark
	// (retryBouncing).
	bounceNote string
}

// Handle executes the commands of one mail against tx and returns the mails
// to send: none (nil) for a mail it left alone (automatic, throttled,
// forged), an empty list for one applied without an answer. Bad input yields an error mail. Each command checks everything
// before it writes, so a refused command changes nothing (only the sender's
// rate counter moves).
//
// err is non-nil only when the store failed: the caller aborts the
// transaction. Anything else that goes wrong with the mail (a template that
// does not render, a record that does not decode, a panic) is the mail's
// own failure, failed: nothing of the mail is applied (its writes are held
// back until it has been handled whole), the sender gets the internal-error
// answer in mails, and the caller sets the mail aside. The mail still counts
// against the sender's rate.
//
// mails is nil for a mail deliberately left unanswered (automatic mail,
// our own), and empty but not nil for one whose answers all went to
// bouncing addresses (bounce.go): applied, answered to nobody.
func (e *Engine) Handle(tx Tx, in Inbound, now time.Time) (mails []Mail, failed, err error) {
	in.From = strings.TrimSpace(in.From)
	if e.unanswerable(in) {
		return nil, nil, nil
	}
	p := newPending(tx)
	r := &request{e: e, tx: p, in: in, now: now, budget: budget{bounded: true}}
	failed = guard(r.handle)
	switch {
	case p.storeErr != nil:
		return nil, nil, p.storeErr
	case failed != nil:
		if err := p.commitBucket(bucketRate); err != nil {
			return nil, nil, err
		}
		mails, err := e.InternalError(tx, in, now)
		if err != nil {
			return nil, nil, err
		}
		return mails, failed, nil
	}
	if err := p.commit(); err != nil {
		return nil, nil, err
	}
	if r.out == nil && !r.ignored {
		// Applied without an answer (a stranger's command, a hint given
		// today already): not an ignored mail.
		r.out = []Mail{}
	}
	return r.out, nil, nil
}

// unanswerable is RFC 3834 §2: never answer automatic mail; and never
// ourselves, which would loop.
func (e *Engine) unanswerable(in Inbound) bool {
	return in.Auto != "" || in.From == "" || strings.EqualFold(in.From, e.cfg.Server)
}

// handle runs the commands of r's mail; r.out collects the mails.
func (r *request) handle() error {
	if !r.in.TooBig {
		r.script = r.e.ReadMail(r.in.Subject, r.withoutCopies(r.in.Body))
	}
	allowed, notice, err := r.throttle(max(1, len(r.script.Lines)))
	if err != nil {
		return err
	}
	if !allowed {
		if notice {
			return r.refused(refuse(whyThrottled, kv{"Limit": r.e.cfg.RatePerHour}), false)
		}
		r.ignored = true
		return nil
	}
	confirmed, err := r.confirmed(r.in.From)
	if err != nil {
		return err
	}
	r.stranger = !confirmed
	if r.stranger && r.in.AuthFailed {
		r.ignored = true
		return nil // forged: not a word to the address it names, nothing run
	}
	if !r.stranger && !r.in.AuthFailed {
		if err := r.retryBouncing(); err != nil {
			return err
		}
	}
	if r.in.TooBig {
		return r.refused(refuse(whyTooBig, nil), false)
	}
	// A reply to a confirmation mail confirms when it says so (yes,
	// confirm, or the code), so an auto-responder or a ticket system
	// confirms nothing; one that starts with a command is read as any
	// mail is, any other is told what the confirmation mail expects.
	if code, ok := r.confirmReference(); ok && r.saysConfirm(code) {
		err := r.confirm("", code)
		var ref *refusal
		if errors.As(err, &ref) {
			err = r.refused(ref, true)
		}
		return err
	}
	if code, ok := r.confirmReference(); ok && !r.commandFirst() {
		ref, known, err := r.confirmExpected(code)
		switch {
		case err != nil:
			return err
		case known:
			return r.hint(ref, "confirm "+code)
		}
		return r.hint(ref, "")
	}
	if len(r.script.Lines) == 0 {
		ref, err := r.replyExpected()
		if err != nil {
			return err
		}
		// A Subject that is no command ("ratings") may still be a
		// command mistyped: its answer names the nearest ones.
		if ref.key == whyNoCommand {
			if f := strings.Fields(r.in.Subject); len(f) > 0 && !r.e.ownSubject.MatchString(r.in.Subject) {
				if s := r.e.suggest(r.in.Subject, r.stranger); len(s) > 0 {
					ref = refuse(whyUnknownCommand, kv{"Word": f[0], "Suggest": s})
				}
			}
		}
		return r.hint(ref, "")
	}
	for i, line := range r.script.Lines {
		r.line, r.plain = line, false
		r.silent = r.stranger && !r.strangerMay(line)
		err := r.run(line)
		var ref *refusal
		if errors.As(err, &ref) {
			switch {
			case ref.key == whyUnknownCommand || ref.key == whyNoCommand:
				err = r.hint(r.withSuggestions(ref, line), "")
			case r.plain && (ref.key == whyNotation || ref.key == whyTokenUnknown):
				// A plain reply whose first word is no move: an
				// auto-responder repeats its text, a player his typo
				// seldom. The same word from the same stranger, the
				// same line from the same player, is answered once a
				// day.
				err = r.hint(r.withSuggestions(ref, line), strings.ToLower(strings.Fields(line)[0]))
			default:
				err = r.refused(ref, true)
			}
		}
		if errors.Is(err, errNoRoom) {
			// This command and the ones after it are not run: they are
			// listed in the summary, to be sent again.
			for _, l := range r.script.Lines[i:] {
				r.notRun = append(r.notRun, echo(l))
			}
			r.full = true
			break
		}
		if err != nil {
			return err
		}
	}
	if r.full {
		return r.summarize()
	}
	return nil
}

// internalErrorText answers a failed mail when even the error template
// cannot be rendered (a broken override of error.tmpl, say).
const internalErrorText = `Your mail could not be processed because of an internal error of the
server. Nothing of it was applied. The operator has been told; please try
again later.
`

// InternalError is the answer to a mail that failed for a reason of its
// own (Handle does this itself; the caller uses it for a failure outside
// the engine): the error text err.internal in the usual error mail, quoting
// the command, or a fixed text if that does not render either. Automatic
// mail gets none, and a stranger (no account's address) gets it within the
// strangers' bounds, which it counts against; it writes nothing else. The
// error is the store's.
func (e *Engine) InternalError(tx Tx, in Inbound, now time.Time) ([]Mail, error) {
	in.From = strings.TrimSpace(in.From)
	if e.unanswerable(in) {
		return nil, nil
	}
	p := newPending(tx)
	r := &request{e: e, tx: p, in: in, now: now, budget: budget{bounded: true}}
	// A stranger's answer quotes nothing (no backscatter), as in Handle.
	confirmed, err := r.confirmed(in.From)
	if err != nil {
		return nil, err
	}
	if r.stranger = !confirmed; r.stranger && in.AuthFailed {
		return nil, nil
	}
	if !in.TooBig {
		r.script = e.ReadMail(in.Subject, in.Body)
	}
	if len(r.script.Lines) > 0 {
		r.line = r.script.Lines[0]
	}
	if guard(func() error { return r.refused(refuse(whyInternal, nil), !in.TooBig) }) != nil && p.storeErr == nil {
		p = newPending(tx)
		r.tx, r.out, r.budget = p, nil, budget{bounded: true}
		if err := guard(func() error {
			return r.send(Mail{To: []string{in.From}, Subject: e.cfg.ServerName + " error", Body: internalErrorText}, envelope{})
		}); err != nil && p.storeErr == nil {
			return nil, nil // not even that: silence
		}
	}
	if p.storeErr != nil {
		return nil, p.storeErr
	}
	// The answer counts against a stranger's hourly allowance (bounds.go).
	if err := p.commitBucket(bucketStrangers); err != nil {
		return nil, err
	}
	return r.out, nil
}

// run executes one command line, or a plain reply.
func (r *request) run(line string) error {
	if !r.e.isCommandLine(line) {
		if r.script.Multiple {
			return refuse(whyUnknownCommand, kv{"Word": strings.Fields(line)[0]})
		}
		r.plain = true
		return r.reply(line)
	}
	c, err := r.e.ParseCommand(line)
	if err != nil {
		return err
	}
	r.word = c.Game
	cmd, ok := r.e.command(c.Name, c.Game != "")
	if !ok {
		return fmt.Errorf("engine: command %q has no handler", c.Name)
	}
	if cmd.mails > 0 {
		if err := r.reserve(cmd.mails); err != nil {
			return err
		}
	}
	return cmd.run(r, c)
}

// accountMails is the room an account command needs in a mail's bounds.
const accountMails = 3

// kv is the data of an error text.
type kv = map[string]any

// refusal is bad input: it becomes an error mail to the sender and changes
// nothing. key names the template "err.KEY"; board, when set, adds the
// summary of that board to the mail.
type refusal struct {
	key   why
	data  kv
	board int
}

func (r *refusal) Error() string { return "engine: refused: " + string(r.key) }

func refuse(key why, data kv) *refusal { return &refusal{key: key, data: data} }

// on attaches the board whose summary the error mail shows.
func (r *refusal) on(board int) *refusal {
	r.board = board
	return r
}
