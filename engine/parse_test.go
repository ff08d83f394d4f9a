package engine_test

import (
	"reflect"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/templates"
)

func TestParseCommand(t *testing.T) {
	e := parser(t)
	tests := []struct {
		line string
		want engine.Command
		bad  bool
	}{
		{line: "help", want: engine.Command{Name: "help"}},
		{line: "HELP Notation", want: engine.Command{Name: "help", Args: []string{"Notation"}}},
		{line: "help a b", bad: true},
		{line: "signup alice pw", want: engine.Command{Name: "signup", Args: []string{"alice", "pw"}}},
		{line: "signup alice pw a@x.org b@y.org", want: engine.Command{Name: "signup", Args: []string{"alice", "pw", "a@x.org", "b@y.org"}}},
		{line: "signup alice", bad: true},
		{line: "Change Password alice old new", want: engine.Command{Name: "change password", Args: []string{"alice", "old", "new"}}},
		{line: "change address alice pw", want: engine.Command{Name: "change address", Args: []string{"alice", "pw"}}},
		{line: "change colour alice pw", bad: true},
		{line: "change", bad: true},
		{line: "signoff alice pw", want: engine.Command{Name: "signoff", Args: []string{"alice", "pw"}}},
		{line: "vacation alice pw on", want: engine.Command{Name: "vacation", Args: []string{"alice", "pw", "on"}}},
		{line: "lyngk challenge alice bob", want: engine.Command{Game: "lyngk", Name: "challenge", Args: []string{"alice", "bob"}}},
		{line: "LYNGK Challenge -stack6 alice bob", want: engine.Command{Game: "lyngk", Name: "challenge", Args: []string{"alice", "bob"}, Variant: "stack6"}},
		{line: "lyngk challenge alice -s bob", want: engine.Command{Game: "lyngk", Name: "challenge", Args: []string{"alice", "bob"}, Variant: "stack6"}},
		{line: "lyngk challenge alice bob -STACK", want: engine.Command{Game: "lyngk", Name: "challenge", Args: []string{"alice", "bob"}, Variant: "stack6"}},
		{line: "lyngk challenge -x alice bob", bad: true},
		{line: "lyngk challenge - alice bob", bad: true},
		{line: "lyngk challenge alice", bad: true},
		{line: "lyngk move 101 alice pw R,e4-e5", want: engine.Command{Game: "lyngk", Name: "move", Args: []string{"101", "alice", "pw", "R,e4-e5"}}},
		{line: "lyngk board 101 alice pw e4-e5#3", want: engine.Command{Game: "lyngk", Name: "move", Args: []string{"101", "alice", "pw", "e4-e5#3"}}},
		{line: "lyngk mvoe 101 alice pw e4-e5 #3", want: engine.Command{Game: "lyngk", Name: "move", Args: []string{"101", "alice", "pw", "e4-e5#3"}}},
		{line: "lyngk move 101 alice pw r, e4-e5 #3", want: engine.Command{Game: "lyngk", Name: "move", Args: []string{"101", "alice", "pw", "r,e4-e5#3"}}},
		{line: "lyngk move 101 alice pw R, e4-e5", want: engine.Command{Game: "lyngk", Name: "move", Args: []string{"101", "alice", "pw", "R,e4-e5"}}},
		{line: "lyngk move 101 alice pw", bad: true},
		{line: "lyngk resign 101 alice pw", want: engine.Command{Game: "lyngk", Name: "resign", Args: []string{"101", "alice", "pw"}}},
		{line: "lyngk show 101 102#4", want: engine.Command{Game: "lyngk", Name: "show", Args: []string{"101", "102#4"}}},
		{line: "lyngk show", bad: true},
		{line: "lyngk games", want: engine.Command{Game: "lyngk", Name: "games"}},
		{line: "lyngk games alice next", want: engine.Command{Game: "lyngk", Name: "games", Args: []string{"alice", "next"}}},
		{line: "lyngk standings", want: engine.Command{Game: "lyngk", Name: "standings"}},
		{line: "lyngk standings x", bad: true},
		{line: "lyngk history bob", want: engine.Command{Game: "lyngk", Name: "history", Args: []string{"bob"}}},
		{line: "lyngk subscribe 101 carol pw", want: engine.Command{Game: "lyngk", Name: "subscribe", Args: []string{"101", "carol", "pw"}}},
		{line: "lyngk unsubscribe 101 carol pw", want: engine.Command{Game: "lyngk", Name: "unsubscribe", Args: []string{"101", "carol", "pw"}}},
		{line: "lyngk chat 101 carol pw", want: engine.Command{Game: "lyngk", Name: "chat", Args: []string{"101", "carol", "pw"}}},
		{line: "lyngk", bad: true},
		{line: "lyngk help", bad: true},
		{line: "lyngk signup a b", bad: true},
		{line: "challenge alice bob", bad: true},
		{line: "e4-e5", bad: true},
		{line: "", bad: true},
	}
	for _, tt := range tests {
		got, err := e.ParseCommand(tt.line)
		if tt.bad {
			if err == nil {
				t.Errorf("ParseCommand(%q) = %+v, want an error", tt.line, got)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseCommand(%q): %v", tt.line, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseCommand(%q) = %#v, want %#v", tt.line, got, tt.want)
		}
	}
}

func TestCommandString(t *testing.T) {
	c := engine.Command{Game: "lyngk", Name: "challenge", Args: []string{"alice", "bob"}, Variant: "stack6"}
	if got, want := c.String(), "lyngk challenge -stack6 alice bob"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	c = engine.Command{Name: "change password", Args: []string{"a", "b", "c"}}
	if got, want := c.String(), "change password a b c"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func FuzzParseCommand(f *testing.F) {
	e := parser(f)
	for _, s := range []string{"help rules", "signup alice pw a@b.c", "change password a b c",
		"lyngk challenge -s alice bob", "lyngk mvoe 101 a pw R,e4-e5 #2", "lyngk show 101#3 bob all",
		"LYNGK games", "change address a b", "lyngk chat 1 a b", "vacation a b on", "\u00a0help\u0085x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		c, err := e.ParseCommand(line)
		if err != nil {
			return
		}
		again, err := e.ParseCommand(c.String())
		if err != nil {
			t.Fatalf("ParseCommand(%q) = %#v, whose String %q does not parse: %v", line, c, c.String(), err)
		}
		if !reflect.DeepEqual(c, again) {
			t.Fatalf("ParseCommand(%q) = %#v, but its String %q parses to %#v", line, c, c.String(), again)
		}
	})
}

func TestReadMail(t *testing.T) {
	e := parser(t)
	tests := []struct {
		name, subject, body string
		want                engine.Script
	}{
		{"subject command", "lyngk move 101 alice pw e4-e5", "Good luck!\n\n-- \nAlice\n",
			engine.Script{Lines: []string{"lyngk move 101 alice pw e4-e5"}, FromSubject: true, Comment: "Good luck!\n"}},
		{"subject command repeated in the body", "lyngk move 101 alice pw e4-e5", "lyngk move 101 alice pw e4-e5\nhi\n",
			engine.Script{Lines: []string{"lyngk move 101 alice pw e4-e5"}, FromSubject: true, Comment: "hi\n"}},
		{"body command with comment", "hello", "\n  lyngk move 101 alice pw e4-e5  \n\nNice one.\nYour move!   \n\n> quoted\n",
			engine.Script{Lines: []string{"lyngk move 101 alice pw e4-e5"}, Comment: "Nice one.\nYour move!\n"}},
		{"top-posted reply", "Re: Lyngk Board 101 bob", "R,e4-e5\nHa!\n\nOn Sat, Nov 21, 2026 at 10:52 PM PBeM Server <lyngk@example.net> wrote:\n> Summary\n",
			engine.Script{Lines: []string{"R,e4-e5"}, Comment: "Ha!\n"}},
		{"wrapped attribution", "Re: x", "e4-e5\nOn Sat, Nov 21, 2026 at 10:52 PM PBeM Server <\nlyngk@example.net> wrote:\n> x\n",
			engine.Script{Lines: []string{"e4-e5"}}},
		{"bottom-posted reply", "Re: Lyngk Board 101 bob", "On Sat, Nov 21, 2026, Server <\nlyngk@example.net> wrote:\n> Summary\n>\n\nresign\nsorry\n",
			engine.Script{Lines: []string{"resign"}, Comment: "sorry\n"}},
		{"phone signature", "Re: Lyngk Board 101 bob", "e4-e5\nYour turn\n\nSent from my iPhone\n\nOn Sat, Nov 21, 2026, PBeM Server wrote:\n> x\n",
			engine.Script{Lines: []string{"e4-e5"}, Comment: "Your turn\n"}},
		{"phone signature, Android Outlook", "Re: x", "e4-e5\nGet Outlook for Android\n",
			engine.Script{Lines: []string{"e4-e5"}}},
		{"own subject without Re", "Lyngk Board 101 bob **", "e4-e5\n",
			engine.Script{Lines: []string{"e4-e5"}}},
		{"outlook quote", "RE: Lyngk Board 101 bob", "e4-e5\r\nok\r\n-----Original Message-----\r\nFrom: x\r\n",
			engine.Script{Lines: []string{"e4-e5"}, Comment: "ok\n"}},
		{"outlook html reply", "RE: Lyngk Board 103 carol",
			"lyngk move 103 carol pw R,c5-g4\n\nThat’s my move\n\nFrom: PBeM Server <lyngk@example.net>\nSent: Monday, November 2, 2026 8:14 PM\n" +
				"To: carol@example.org\nSubject: Lyngk Board 103 carol\n\nSummary of Lyngk Board 103\n",
			engine.Script{Lines: []string{"lyngk move 103 carol pw R,c5-g4"}, Comment: "That’s my move\n"}},
		{"outlook german header", "AW: Lyngk Board 103 carol", "e4-e5\nDanke\nVon: lyngk@example.net\nGesendet: Montag\nBetreff: x\nSummary\n",
			engine.Script{Lines: []string{"e4-e5"}, Comment: "Danke\n"}},
		{"a From: line alone is text", "Re: x", "e4-e5\nFrom: now on I play faster\n",
			engine.Script{Lines: []string{"e4-e5"}, Comment: "From: now on I play faster\n"}},
		{"multiple", "MULTIPLE", "signup a pw\n lyngk games \n\nthe rest\n-- \nsig\n",
			engine.Script{Lines: []string{"signup a pw", "lyngk games"}, Multiple: true, Comment: "the rest\n"}},
		{"multiple ends at a quote", "multiple", "help\n> help rules\n",
			engine.Script{Lines: []string{"help"}, Multiple: true}},
		{"empty", "", "\n\n-- \nsig\n", engine.Script{}},
		{"only quotes", "Re: x", "> a\n> b\n", engine.Script{}},
	}
	for _, tt := range tests {
		got := e.ReadMail(tt.subject, tt.body)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: ReadMail = %#v, want %#v", tt.name, got, tt.want)
		}
	}
}

func FuzzReadMail(f *testing.F) {
	e := parser(f)
	f.Add("Re: Lyngk Board 101 bob", "e4-e5\nhi\n\nOn Mon, X wrote:\n> y\n")
	f.Add("multiple", "help\nlyngk games\n\ncomment\n-- \nsig")
	f.Add("lyngk move 1 a b c", "lyngk move 1 a b c\r\ntext\r\n")
	f.Add("x", "On a\n")
	f.Add("Re: x", "e4-e5\nat 10:30\nEm sáb., 28 de nov. de 2026 às 12:59, PBeM Server <a@b>\nescreveu:\n> y\n")
	f.Fuzz(func(t *testing.T, subject, body string) {
		s := e.ReadMail(subject, body)
		for _, l := range s.Lines {
			if l == "" || l != strings.TrimSpace(l) || strings.Contains(l, "\n") {
				t.Fatalf("command line %q is blank, untrimmed or has a line break", l)
			}
		}
		if s.FromSubject && (len(s.Lines) != 1 || s.Lines[0] != strings.TrimSpace(subject)) {
			t.Fatalf("FromSubject with lines %q, subject %q", s.Lines, subject)
		}
		if s.Comment != "" {
			if !strings.HasSuffix(s.Comment, "\n") || strings.HasPrefix(s.Comment, "\n") || strings.HasSuffix(s.Comment, "\n\n") {
				t.Fatalf("comment %q is not trimmed to whole lines", s.Comment)
			}
			for _, l := range strings.Split(strings.TrimSuffix(s.Comment, "\n"), "\n") {
				if strings.HasPrefix(strings.TrimSpace(l), ">") {
					t.Fatalf("comment %q holds quoted text", s.Comment)
				}
			}
		}
	})
}

// TestReadMailServerName: the subjects of the server's own mails, named by
// Config.ServerName, are never commands, also when the name starts with a
// game's word ("Lyngk Club help" answered with "e4-e5" is a move, not a
// help command); the subjects of before the server had a name of its own
// ("Lyngk help") stay ours.
func TestReadMailServerName(t *testing.T) {
	set, err := templates.Load("")
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(engine.Config{Games: offered(), Server: robot, Templates: set, ServerName: "Lyngk  Club"})
	if err != nil {
		t.Fatal(err)
	}
	for _, subject := range []string{"Lyngk Club help", "Re: lyngk club error", "Confirm Lyngk Club signup bob", "Lyngk help rules", "Lyngk Club account bob"} {
		if got := e.ReadMail(subject, "e4-e5\n"); !reflect.DeepEqual(got, engine.Script{Lines: []string{"e4-e5"}}) {
			t.Errorf("ReadMail(%q) = %#v, want the plain reply e4-e5", subject, got)
		}
	}
	if e.ServerName() != "Lyngk  Club" {
		t.Errorf("ServerName() = %q", e.ServerName())
	}
	for _, bad := range []string{"Kris <kris@example.org>", "two\nlines", strings.Repeat("x", 41)} {
		if _, err := engine.New(engine.Config{Games: offered(), Server: robot, Templates: set, ServerName: bad}); err == nil {
			t.Errorf("server name %q accepted", bad)
		}
	}
}
