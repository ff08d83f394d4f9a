package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/daemon"
	"lyngk.example/lyngk/store"
)

const adminUsage = "usage: lyngk admin -db FILE [-config FILE] users | games | game N | outbox | bounces | check | broadcast [USERID on|off] | championship GAME [on|off]"

// runAdmin is `lyngk admin -db FILE users|games|game N|outbox|bounces|check`:
// a look into the store for an operator at the console (check compares the
// indexes of the games with a full scan, and fails when they differ); it
// reads only, but
// for `broadcast USERID on|off`, which sets the allow-list of broadcast. When the
// daemon holds the store, the daemon answers through its control socket.
// Otherwise -config names the daemon's configuration, whose mails_per_day
// and stranger_share the outbox listing reports; without it the listing
// says it does not know them.
func runAdmin(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("admin", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dbPath := fs.String("db", "", "the store `FILE`")
	cfgPath := fs.String("config", "", "the daemon's configuration `FILE`: the caps the outbox listing reports when the daemon is not running")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *dbPath == "" || !adminArgs(fs.Args()) {
		fmt.Fprintln(stderr, adminUsage)
		return 2
	}
	if _, err := os.Stat(*dbPath); err != nil {
		// Never create an empty store by mistake: a typo must not look like a backup.
		fmt.Fprintf(stderr, "lyngk: no store: %v\n", err)
		return 1
	}
	var lim store.Limits
	if *cfgPath != "" {
		var err error
		if lim, err = adminLimits(*cfgPath); err != nil {
			fmt.Fprintf(stderr, "lyngk: admin: %v\n", err)
			return 1
		}
	}
	err := withStore(*dbPath, "admin "+strings.Join(fs.Args(), " "), nil, lim, stdout, func(db *store.DB) error {
		return admin(db, daemon.New(daemon.Config{DB: db}), fs.Args(), *cfgPath != "", stdout)
	})
	if errors.Is(err, errUsage) {
		fmt.Fprintln(stderr, adminUsage)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "lyngk: admin: %v\n", err)
		return 1
	}
	return 0
}

// adminArgs reports whether args are one of the listings admin knows.
func adminArgs(args []string) bool {
	switch len(args) {
	case 1:
		return args[0] == "users" || args[0] == "games" || args[0] == "outbox" || args[0] == "bounces" || args[0] == "broadcast" ||
			args[0] == "check"
	case 2:
		_, err := strconv.Atoi(args[1])
		return args[0] == "game" && err == nil || args[0] == "championship"
	case 3:
		return (args[0] == "broadcast" || args[0] == "championship") && (args[2] == "on" || args[2] == "off")
	}
	return false
}

// adminLimits reads the store's limits from the daemon's configuration.
// admin sends no mail, so a secret the environment lacks (the daemon's
// passwords) is no error here: every other setting is checked as serve
// checks it.
func adminLimits(path string) (store.Limits, error) {
	f, err := os.Open(path)
	if err != nil {
		return store.Limits{}, err
	}
	defer f.Close()
	c, err := parseConfig(f, func(key string) string {
		if v := os.Getenv(key); v != "" {
			return v
		}
		return "unused by admin"
	})
	return c.Store, err
}

// admin writes the listing that args ask for; d makes its one change.
// limits says whether db was opened with the daemon's limits (the daemon's
// own store, or -config), so that the outbox listing can tell the caps.
func admin(db *store.DB, d *daemon.Daemon, args []string, limits bool, w io.Writer) error {
	if !adminArgs(args) {
		return errUsage
	}
	switch args[0] {
	case "broadcast":
		return adminBroadcast(db, d, args[1:], w)
	case "championship":
		return adminChampionship(db, d, args[1:], w)
	}
	return db.View(func(tx *store.Tx) error {
		switch {
		case args[0] == "users":
			us, err := engine.Users(tx)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "USERID\tSINCE\tSTATE\tRATING W/L/T BY GAME\tADDRESSES")
			for _, u := range us {
				state := "active"
				if !u.Left.IsZero() {
					state = "left " + u.Left.Format(time.DateOnly)
				}
				// Each game played, "-" for none yet (the start rating).
				ratings := make([]string, 0, len(u.Games))
				for _, s := range u.Games {
					ratings = append(ratings, fmt.Sprintf("%s %d %d/%d/%d", s.Game, s.Rating, s.Won, s.Lost, s.Tied))
				}
				if len(ratings) == 0 {
					ratings = append(ratings, "-")
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", u.ID, u.Created.Format(time.DateOnly), state,
					strings.Join(ratings, ", "), strings.Join(u.Addresses, " "))
			}
			return tw.Flush()
		case args[0] == "games":
			gs, err := engine.Games(tx)
			if err != nil {
				return err
			}
			for _, g := range gs {
				fmt.Fprintln(w, g)
			}
			return nil
		case args[0] == "game":
			n, _ := strconv.Atoi(args[1])
			g, board, err := engine.GameRecord(tx, offered(), n)
			if err != nil {
				return err
			}
			fmt.Fprintln(w, g)
			fmt.Fprintf(w, "started %s, last move %s, ended %s\n", stamp(g.Started), stamp(g.LastMove), stamp(g.Ended))
			for i, m := range g.Moves {
				fmt.Fprintf(w, "%3d %s\n", i+1, m)
			}
			fmt.Fprint(w, "\n", board)
			return nil
		case args[0] == "check":
			diffs, err := engine.CheckIndexes(tx)
			if err != nil {
				return err
			}
			for _, d := range diffs {
				fmt.Fprintln(w, d)
			}
			c, err := engine.Counts(tx)
			if err != nil {
				return err
			}
			if len(diffs) > 0 {
				return fmt.Errorf("check: %d differences between the indexes and the %d game records", len(diffs), c.Games)
			}
			fmt.Fprintf(w, "the indexes agree with the %d game records\n", c.Games)
			return nil
		case args[0] == "bounces":
			bs, err := engine.Bounces(tx)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ADDRESS\tSTATE\tHARD (14 DAYS)\tSOFT\tLAST SOFT")
			for _, b := range bs {
				state := "ok"
				if !b.Bouncing.IsZero() {
					state = "bouncing since " + b.Bouncing.UTC().Format(time.DateOnly)
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\n", b.Address, state, b.Hard, b.Soft, stamp(b.LastSoft))
			}
			return tw.Flush()
		case args[0] == "outbox":
			out, err := tx.Outbox()
			if err != nil {
				return err
			}
			dead, err := tx.DeadLetters()
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "%d queued, %d dead letters\n", len(out), len(dead))
			d, err := tx.DailySent(time.Now())
			if err != nil {
				return err
			}
			fmt.Fprint(w, dailyLine(d, limits))
			for _, m := range out {
				fmt.Fprintf(w, "queued %d to %s, %d attempts, next %s %s\n", m.ID, strings.Join(m.To, ","),
					m.Attempts, stamp(m.NextAttempt), m.LastError)
			}
			for _, m := range dead {
				fmt.Fprintf(w, "dead %d to %s, %s: %s\n", m.ID, strings.Join(m.To, ","), stamp(m.Died), m.LastError)
			}
			return nil
		}
		return errUsage
	})
}

// adminBroadcast is `lyngk admin broadcast [USERID on|off]`: the operator's
// allow-list of the broadcast command, listed, or changed for one userid
// (the one thing admin writes).
func adminBroadcast(db *store.DB, d *daemon.Daemon, args []string, w io.Writer) error {
	if len(args) == 2 {
		err := d.Update(context.Background(), "admin", func(tx *store.Tx) error {
			return engine.SetBroadcaster(tx, args[0], args[1] == "on")
		})
		if err != nil {
			return err
		}
	}
	return db.View(func(tx *store.Tx) error {
		ids, err := engine.Broadcasters(tx)
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			_, err = fmt.Fprintln(w, "nobody may broadcast")
			return err
		}
		_, err = fmt.Fprintf(w, "may broadcast: %s\n", strings.Join(ids, " "))
		return err
	})
}

// adminChampionship is `lyngk admin championship GAME [on|off]`: the
// championship of the game GAME (its word), switched on or off, then
// shown: on or off, the edition and its leagues, when the next starts,
// the players enrolled.
func adminChampionship(db *store.DB, d *daemon.Daemon, args []string, w io.Writer) error {
	word := strings.ToLower(args[0])
	var words []string
	for _, g := range offered() {
		words = append(words, g.Name())
	}
	if !slices.Contains(words, word) {
		return fmt.Errorf("no game %q: the games are %s", args[0], strings.Join(words, ", "))
	}
	if len(args) == 2 {
		err := d.Update(context.Background(), "admin", func(tx *store.Tx) error {
			return engine.SetChampionship(tx, word, args[1] == "on")
		})
		if err != nil {
			return err
		}
	}
	return db.View(func(tx *store.Tx) error {
		c, err := engine.Championship(tx, word)
		if err != nil {
			return err
		}
		state := "off"
		if c.On {
			state = "on"
		}
		fmt.Fprintf(w, "%s championship: %s\n", word, state)
		if c.Edition > 0 {
			fmt.Fprintf(w, "edition %d: %s\n", c.Edition, strings.Join(c.Leagues, " "))
		}
		switch {
		case !c.Next.IsZero():
			fmt.Fprintf(w, "next edition: %s\n", stamp(c.Next))
		case c.On && c.Edition == 0:
			fmt.Fprintln(w, "next edition: scheduled by the daemon's next timer tick")
		case c.On:
			fmt.Fprintln(w, "next edition: championship_days after the last game of this one")
		}
		_, err = fmt.Fprintf(w, "enrolled (%d): %s\n", len(c.Enrolled), strings.Join(c.Enrolled, " "))
		return err
	})
}

// dailyLine tells how much of mails_per_day the last 24 hours used, and
// how much of it the strangers, with the mails dropped past their share.
// Without the daemon's limits (known false) it says it does not know the
// cap rather than claim there is none.
func dailyLine(d store.DailySent, known bool) string {
	line := fmt.Sprintf("%d recipients in the last 24 hours", d.Recipients)
	switch {
	case !known:
		return line + " (mails_per_day not known: the daemon is not running; -config FILE reads it)\n"
	case d.Held():
		line += fmt.Sprintf("; mails_per_day %d reached: the outbox is held until %s", d.Cap, stamp(d.Oldest.Add(24*time.Hour)))
	case d.Cap > 0:
		line += fmt.Sprintf(" of mails_per_day %d", d.Cap)
	default:
		return line + " (no mails_per_day cap)\n"
	}
	return line + fmt.Sprintf("\nstrangers (stranger_share): %d of %d a day, %d of %d in the last hour; %d dropped past it in the last 24 hours\n",
		d.Strangers, d.StrangerCap, d.StrangersHour, d.StrangerHourCap, d.Dropped)
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

// countGames counts the games ever started, those played to an end (the
// rules, an agreed draw, resignation or forfeit) and those cancelled, which
// count for nobody and are not finished games: the counts kept with the
// records (engine.Counts), no game read, whatever the store holds.
func countGames(tx *store.Tx) (started, finished, cancelled int, err error) {
	c, err := engine.Counts(tx)
	return c.Games, c.Finished, c.Cancelled, err
}
