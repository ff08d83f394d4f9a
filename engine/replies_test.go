package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/templates"
)

// Replies as mail clients write them, built from the mail the server
// really sent: each client's attribution (as it wraps it), its quoting
// ("> ", "| ", a tab, or the mail pasted under a header block), the part
// it quotes (the text part, or the text of the HTML part for clients that
// reply in HTML), top- or bottom-posting, and its sign-off.

// quoteLines quotes text as a client does: prefix before each line, and
// blank for a blank line (">" in Gmail, "> " in Apple Mail).
func quoteLines(text, prefix, blank string) string {
	var b strings.Builder
	for l := range strings.Lines(text) {
		l = strings.TrimSuffix(l, "\n")
		if strings.TrimSpace(l) == "" {
			b.WriteString(blank + "\n")
		} else {
			b.WriteString(prefix + l + "\n")
		}
	}
	return b.String()
}

// quoted76 is text wrapped at 76 columns and quoted "> ", as Gmail,
// Thunderbird and mutt quote a mail.
func quoted76(text string) string { return quoteLines(templates.Wrap(text, 76), "> ", ">") }

// client writes a reply to the mail sent holding own, the player's words.
type client struct {
	name  string
	write func(sent engine.Mail, own string) string
}

// top puts own above the attribution and quote, bottom below them.
func top(own, rest string) string    { return own + "\n" + rest }
func bottom(own, rest string) string { return rest + own }

// outlookBlock is Outlook's header block above the mail it pastes.
func outlookBlock(sent engine.Mail, from, sentLabel, to, subject string) string {
	return from + ": PBeM Server <" + robot + ">\n" + sentLabel + ": Saturday, November 28, 2026 12:40:19 PM\n" +
		to + ": bob@players.example <bob@players.example>\n" + subject + ": " + sent.Subject + "\n\n"
}

// yahooAndroid is Yahoo Mail for Android's sign-off, its link written out.
const yahooAndroid = "Sent from Yahoo Mail on Android<https://go.onelink.me/107872968?pid=InProduct&c=Global_Internal_YGrowth_AndroidEmailSig__AndroidUsers&af_wl=ym&af_sub1=Internal&af_sub2=Global_YGrowth&af_sub3=EmailSignature>"

// clients are the mail clients the relay tests write replies as: every
// client and language of TestClientReplies, and Gmail's, Claws Mail's and
// Outlook for iOS's attributions over two lines.
var clients = []client{
	{"Gmail, attribution wrapped after <", func(m engine.Mail, own string) string {
		return top(own, "\nOn Sat, Nov 28, 2026 at 12:40\u202fPM PBeM Server <\n"+robot+"> wrote:\n\n"+quoted76(m.Body))
	}},
	{"Gmail, attribution wrapped before wrote", func(m engine.Mail, own string) string {
		return top(own, "\nOn Sat, Nov 28, 2026 at 12:40 PM PBeM Server <"+robot+">\nwrote:\n\n"+quoted76(m.Body))
	}},
	{"Gmail, attribution over three lines", func(m engine.Mail, own string) string {
		return top(own, "\nOn Saturday, November 28, 2026 at 12:40:19 PM Coordinated Universal Time, PBeM\nServer <"+robot+">\nwrote:\n\n"+quoted76(m.Body))
	}},
	{"Gmail (Portuguese)", func(m engine.Mail, own string) string {
		return top(own, "\nEm sáb., 28 de nov. de 2026 às 12:59, PBeM Server <"+robot+">\nescreveu:\n\n"+quoted76(m.Body))
	}},
	{"Gmail (Spanish)", func(m engine.Mail, own string) string {
		return top(own, "\nEl sáb, 28 nov 2026 a las 12:40, PBeM Server (<"+robot+">)\nescribió:\n\n"+quoted76(m.Body))
	}},
	{"Gmail Android", func(m engine.Mail, own string) string {
		return top(own, "\nOn Sat, 28 Nov 2026, 12:40 PBeM Server, <"+robot+"> wrote:\n\n"+quoted76(m.Body))
	}},
	{"Gmail, HTML part quoted", func(m engine.Mail, own string) string {
		return top(own, "\nOn Sat, Nov 28, 2026 at 12:40\u202fPM PBeM Server <\n"+robot+"> wrote:\n\n"+quoted76(gmailText(m.HTML)))
	}},
	{"Claws Mail, bottom-posted", func(m engine.Mail, own string) string {
		return bottom(own, "On Sat, 28 Nov 2026 12:40:19 +0000\nPBeM Server <"+robot+"> wrote:\n\n"+quoted76(m.Body)+"\n")
	}},
	{"Claws Mail, top-posted", func(m engine.Mail, own string) string {
		return top(own, "\nOn Sat, 28 Nov 2026 12:40:19 +0000\nPBeM Server <"+robot+"> wrote:\n\n"+quoted76(m.Body))
	}},
	{"Outlook for iOS (German), header block", func(m engine.Mail, own string) string {
		return top(own, "\nGesendet von Outlook für iOS<https://aka.ms/o0ukef>\n________________________________\n"+
			outlookBlock(m, "Von", "Gesendet", "An", "Betreff")+clientText(m.HTML))
	}},
	{"Outlook for iOS (German), attribution wrapped", func(m engine.Mail, own string) string {
		return top(own, "\nOutlook für iOS<https://aka.ms/o0ukef> herunterladen\n\nAm Sa., 28. Nov. 2026 um 12:40 schrieb PBeM Server\n<"+robot+">:\n\n"+quoted76(m.Body))
	}},
	{"Outlook for iOS (German), wrapped after <", func(m engine.Mail, own string) string {
		return top(own, "\nOutlook für iOS<https://aka.ms/o0ukef> herunterladen\n\nAm Sa., 28. Nov. 2026 um 12:40 schrieb PBeM Server <\n"+robot+">:\n\n"+quoted76(m.Body))
	}},
	{"Outlook for iOS", func(m engine.Mail, own string) string {
		return top(own, "\nGet Outlook for iOS<https://aka.ms/o0ukef>\n________________________________\n"+
			outlookBlock(m, "From", "Sent", "To", "Subject")+clientText(m.HTML))
	}},
	{"Outlook for iOS, quote below", func(m engine.Mail, own string) string {
		return top(own, "\nGet Outlook for iOS <https://aka.ms/o0ukef>\n\nOn Sat, Nov 28, 2026 at 12:40 PM, PBeM Server <"+robot+"> wrote:\n"+quoted76(m.Body))
	}},
	{"Outlook for Android", func(m engine.Mail, own string) string {
		return top(own, "\nGet Outlook for Android<https://aka.ms/AAb9ysg>\n\n________________________________\n"+
			outlookBlock(m, "From", "Sent", "To", "Subject")+clientText(m.HTML))
	}},
	{"Yahoo Mail for Android", func(m engine.Mail, own string) string {
		return top(own, "\n"+yahooAndroid+"\n\n  On Sat, Nov 28, 2026 at 12:40, PBeM Server<"+robot+"> wrote:\n"+quoteLines(clientText(m.HTML), "   ", ""))
	}},
	{"Yahoo Mail for iPhone", func(m engine.Mail, own string) string {
		return top(own, "\nSent from Yahoo Mail for iPhone\n\nOn Saturday, November 28, 2026, 12:40 PM, PBeM Server <"+robot+"> wrote:\n\n"+m.Body)
	}},
	{"Apple Mail iOS", func(m engine.Mail, own string) string {
		return top(own, "\nSent from my iPhone\n\n> On Nov 28, 2026, at 12:40, PBeM Server <"+robot+"> wrote:\n> \n"+quoteLines(m.Body, "> ", "> "))
	}},
	{"Apple Mail macOS", func(m engine.Mail, own string) string {
		return top(own, "\n> On 28 Nov 2026, at 12:40, PBeM Server <"+robot+"> wrote:\n> \n"+quoteLines(m.Body, "> ", "> "))
	}},
	{"Apple Mail, attribution wrapped", func(m engine.Mail, own string) string {
		return top(own, "\nOn 28 Nov 2026, at 12:40, PBeM Server <"+robot+">\nwrote:\n\n"+quoteLines(m.Body, "> ", "> "))
	}},
	{"Apple Mail iOS (Dutch)", func(m engine.Mail, own string) string {
		return top(own, "\nVerzonden vanaf mijn iPhone\n\n> Op 28 nov. 2026 om 12:40 heeft PBeM Server <"+robot+"> het volgende geschreven:\n"+quoteLines(m.Body, "> ", "> "))
	}},
	{"Apple Mail iOS (French)", func(m engine.Mail, own string) string {
		return top(own, "\nEnvoyé de mon iPhone\n\nLe 28 nov. 2026 à 12:40, PBeM Server <"+robot+"> a écrit :\n\n"+quoteLines(m.Body, "> ", "> "))
	}},
	{"Apple Mail iOS (Italian)", func(m engine.Mail, own string) string {
		return top(own, "\nInviato da iPhone\n\nIl giorno 28 nov 2026, alle ore 12:40, PBeM Server <"+robot+"> ha scritto:\n\n"+quoteLines(m.Body, "> ", "> "))
	}},
	{"Thunderbird", func(m engine.Mail, own string) string {
		return top(own, "\nOn 28.11.26 12:40, PBeM Server wrote:\n"+quoted76(m.Body))
	}},
	{"Thunderbird, quote wrapped at 72", func(m engine.Mail, own string) string {
		return top(own, "\nOn 28.11.26 12:40, PBeM Server wrote:\n"+quoteLines(templates.Wrap(m.Body, 72), "> ", ">"))
	}},
	{"Gmail, quote wrapped at 78", func(m engine.Mail, own string) string {
		return top(own, "\nOn Sat, Nov 28, 2026 at 12:40\u202fPM PBeM Server <\n"+robot+"> wrote:\n\n"+quoteLines(templates.Wrap(m.Body, 78), "> ", ">"))
	}},
	{"Thunderbird, bottom-posted", func(m engine.Mail, own string) string {
		return bottom(own, "On 28.11.26 12:40, PBeM Server wrote:\n"+quoted76(m.Body)+"\n")
	}},
	{"Thunderbird, forward inline", func(m engine.Mail, own string) string {
		return top(own, "\n-------- Original Message --------\nSubject: "+m.Subject+"\nDate: Sat, 28 Nov 2026 12:40:19 +0000\n\n"+m.Body)
	}},
	{"Outlook desktop", func(m engine.Mail, own string) string {
		return strings.ReplaceAll(top(own, "\n-----Original Message-----\n"+outlookBlock(m, "From", "Sent", "To", "Subject")+m.Body), "\n", "\r\n")
	}},
	{"Outlook desktop, HTML reply read as text", func(m engine.Mail, own string) string {
		return top(own, "\n"+outlookBlock(m, "From", "Sent", "To", "Subject")+templates.Wrap(clientText(m.HTML), 76))
	}},
	{"Outlook desktop (German)", func(m engine.Mail, own string) string {
		return top(own, "\n"+outlookBlock(m, "Von", "Gesendet", "An", "Betreff")+m.Body)
	}},
	{"Outlook (Dutch)", func(m engine.Mail, own string) string {
		return top(own, "\nOp za 28 nov. 2026 om 12:40 schreef PBeM Server <"+robot+">:\n\n"+quoted76(m.Body))
	}},
	{"Windows Mail", func(m engine.Mail, own string) string {
		return top(own, "\nSent from Mail<https://go.microsoft.com/fwlink/?LinkId=550986> for Windows\n\nFrom: PBeM Server<mailto:"+robot+
			">\nSent: Saturday, 28 November 2026 12:40\n\n"+clientText(m.HTML))
	}},
	{"Samsung Email (Spanish)", func(m engine.Mail, own string) string {
		return top(own, "\nEnviado desde mi Samsung Galaxy\n\n-------- Mensaje original --------\nDe: PBeM Server <"+robot+
			">\nFecha: 28/11/26 12:40 (GMT+00:00)\n\n"+m.Body)
	}},
	{"NeoMutt default, bottom-posted", func(m engine.Mail, own string) string {
		return bottom(own, "On Sat, Nov 28, 2026 at 12:40:19PM +0000, PBeM Server wrote:\n"+quoted76(m.Body)+"\n")
	}},
	{"NeoMutt, * name <addr> [date]:", func(m engine.Mail, own string) string {
		return top(own, "\n* PBeM Server <"+robot+"> [2026-11-28 12:40]:\n"+quoted76(m.Body))
	}},
	{"NeoMutt, signature", func(m engine.Mail, own string) string {
		return top(own, "\n-- \nBob\n\nOn Sat, Nov 28, 2026 at 12:40:19PM +0000, PBeM Server wrote:\n"+quoted76(m.Body))
	}},
	{"mutt, name and date only", func(m engine.Mail, own string) string {
		return top(own, "\nPBeM Server, 28.11.2026 12:40:\n"+quoted76(m.Body))
	}},
	{"alpine", func(m engine.Mail, own string) string {
		return top(own, "\nOn Sat, 28 Nov 2026, PBeM Server wrote:\n\n"+quoted76(m.Body))
	}},
	{"s-nail, tab quotes", func(m engine.Mail, own string) string {
		return bottom(own, "PBeM Server <"+robot+"> wrote:\n\n"+quoteLines(m.Body, "\t", "\t"))
	}},
	{"mailx, bottom-posted", func(m engine.Mail, own string) string {
		return bottom(own, robot+" wrote:\n"+quoteLines(m.Body, "\t", "\t")+"\n")
	}},
	{"Evolution, signature without its space", func(m engine.Mail, own string) string {
		return top(own, "\n--\nBob Example\n\nOn Sat, 2026-11-28 at 12:40 +0000, PBeM Server wrote:\n"+quoted76(m.Body))
	}},
	{"KMail (German)", func(m engine.Mail, own string) string {
		return top(own, "\nAm Samstag, 28. November 2026, 12:40:19 CET schrieb PBeM Server:\n"+quoted76(m.Body))
	}},
	{"K-9 Mail, pipe quotes", func(m engine.Mail, own string) string {
		return top(own, "\nPBeM Server <"+robot+"> schrieb am 28. November 2026 12:40:19 MEZ:\n"+quoteLines(m.Body, "| ", "|"))
	}},
	{"Roundcube (German)", func(m engine.Mail, own string) string {
		return top(own, "\nAm 28.11.2026 12:40, schrieb PBeM Server:\n"+quoted76(m.Body))
	}},
	{"GMX (German)", func(m engine.Mail, own string) string {
		return top(own, "\nVon meinem iPhone gesendet\n\nAm 28.11.2026 um 12:40 schrieb PBeM Server <"+robot+">:\n\n"+quoted76(m.Body))
	}},
	{"Orange webmail (French)", func(m engine.Mail, own string) string {
		return top(own, "\nLe sam. 28 nov. 2026 à 12:40, PBeM Server <"+robot+"> a écrit :\n"+quoted76(m.Body))
	}},
	{"Libero (Italian)", func(m engine.Mail, own string) string {
		return top(own, "\nIl giorno sab 28 nov 2026 alle ore 12:40 PBeM Server <"+robot+"> ha scritto:\n\n"+quoted76(m.Body))
	}},
	{"Proton Mail, linked", func(m engine.Mail, own string) string {
		return top(own, "\nSent with [Proton Mail](https://proton.me/mail/home) secure email.\n\nOn Saturday, November 28th, 2026 at 12:40, PBeM Server <"+
			robot+"> wrote:\n\n"+quoted76(m.Body))
	}},
	{"Spark, linked", func(m engine.Mail, own string) string {
		return top(own, "\nSent with [Spark](https://sparkmailapp.com/source?from=signature)\nOn 28 Nov 2026 at 12:40 +0000, PBeM Server <"+
			robot+">, wrote:\n"+quoted76(m.Body))
	}},
	{"Fastmail (Swedish)", func(m engine.Mail, own string) string {
		return top(own, "\nLör 28 nov. 2026 kl. 12:40 skrev PBeM Server:\n"+quoted76(m.Body))
	}},
	{"unknown client, any language", func(m engine.Mail, own string) string {
		return top(own, "\n2026年11月28日(土) 12:40 PBeM Server <"+robot+">:\n\n"+quoted76(m.Body))
	}},
}

// TestClientRepliesRelayed: a reply to a real board mail, as each client
// writes it, relays exactly the player's words to the opponent; a reply
// holding only the move relays nothing and its board mail's subject has
// no "**". On the main before, the first line of the two-line attributions
// of Gmail (English and Portuguese), Claws Mail and German Outlook for
// iOS, and the sign-offs of Yahoo Mail for Android and German Outlook for
// iOS were relayed as the player's comment.
func TestClientRepliesRelayed(t *testing.T) {
	for _, c := range clients {
		for _, own := range []struct{ typed, comment string }{
			{"B,b1-b2\n", ""},
			{"B,b1-b2\ngood game\n", "good game\n"},
		} {
			t.Run(fmt.Sprintf("%s/%q", c.name, own.typed), func(t *testing.T) {
				v, sent := boardToBob(t)
				body := c.write(sent, own.typed)
				got, subject := relayed(t, v.reply(sent, addr("bob"), body))
				if got != own.comment {
					t.Errorf("alice got bob's comment %q, want %q; bob wrote:\n%s", got, own.comment, body)
				}
				if (own.comment != "") != strings.HasSuffix(subject, " **") {
					t.Errorf("subject %q", subject)
				}
			})
		}
	}
}

// TestAttributionWrappedAnywhere: an attribution that names the server's
// address, its name or a date and ends with a "wrote"-like word, in any
// language, is cut wherever a client wraps it over up to three lines,
// above a quote and in a reply read without the mail answered.
func TestAttributionWrappedAnywhere(t *testing.T) {
	e := parser(t)
	attributions := []string{
		"On Sat, Nov 28, 2026 at 12:40 PM PBeM Server <" + robot + "> wrote:",
		"Em sáb., 28 de nov. de 2026 às 12:59, PBeM Server <" + robot + "> escreveu:",
		"El sáb, 28 nov 2026 a las 12:40, PBeM Server (<" + robot + ">) escribió:",
		"Le sam. 28 nov. 2026 à 12:40, PBeM Server <" + robot + "> a écrit :",
		"Am Sa., 28. Nov. 2026 um 12:40 schrieb PBeM Server <" + robot + ">:",
		"Am Samstag, 28. Nov. 2026 um 12:40 schrieb PBeM Server <" + robot + ">:",
		"Il giorno sab 28 nov 2026 alle ore 12:40 PBeM Server <" + robot + "> ha scritto:",
		"Op za 28 nov. 2026 om 12:40 schreef PBeM Server <" + robot + ">:",
		"W dniu 28.11.2026 o 12:40, PBeM Server <" + robot + "> napisał:",
		"Den lör 28 nov. 2026 kl 12:40 skrev PBeM Server <" + robot + ">:",
		"la 28.11.2026 klo 12.40 PBeM Server (" + robot + ") kirjoitti:",
		"On Saturday, November 28, 2026 at 12:40:19 PM Coordinated Universal Time, PBeM Server <" + robot + "> wrote:",
	}
	for _, a := range attributions {
		seen := map[string]bool{}
		for width := 16; width <= 80; width++ {
			wrapped := templates.Wrap(a, width)
			if n := strings.Count(wrapped, "\n") + 1; n > 3 || seen[wrapped] {
				continue
			}
			seen[wrapped] = true
			for _, body := range []string{
				"e4-e5\n\n" + wrapped + "\n\n> Summary of Lyngk Board 101\n",
				"e4-e5\ngood game\n" + wrapped + "\n> Summary of Lyngk Board 101\n",
				wrapped + "\n> Summary of Lyngk Board 101\n\ne4-e5\ngood game\n",
			} {
				s := e.ReadMail("Re: Lyngk Board 101 bob", body)
				want := "good game\n"
				if strings.HasPrefix(body, "e4-e5\n\n") {
					want = ""
				}
				if len(s.Lines) != 1 || s.Lines[0] != "e4-e5" || s.Comment != want {
					t.Errorf("ReadMail(%q) = %q, %q", body, s.Lines, s.Comment)
				}
			}
		}
	}
}

// TestAttributionKeepsPlayersLines: a player's lines around an attribution
// stay his: one that holds a time right above it, one ending in a colon
// or a full stop, and a line that says who wrote what without a date or
// our name; an attribution wrapped after a date's abbreviation ("Nov.")
// goes whole.
func TestAttributionKeepsPlayersLines(t *testing.T) {
	e := parser(t)
	for _, tt := range []struct{ body, comment string }{
		{"e4-e5\nSee you at 10:30\nOn Sat, 28 Nov 2026 12:40:19 +0000\nPBeM Server <" + robot + "> wrote:\n> x\n", "See you at 10:30\n"},
		{"e4-e5\nSee you at 10:30\nEm sáb., 28 de nov. de 2026 às 12:59, PBeM Server <" + robot + ">\nescreveu:\n> x\n", "See you at 10:30\n"},
		{"e4-e5\nGood game!\nPBeM Server <\n" + robot + "> wrote:\n> x\n", "Good game!\n"},
		{"e4-e5\nOn second thought, good move.\nOn Sat, 28 Nov 2026 12:40:19 +0000\nPBeM Server <" + robot + "> wrote:\n> x\n", "On second thought, good move.\n"},
		{"e4-e5\nAs alice wrote:\nnice\n", "As alice wrote:\nnice\n"},
		{"e4-e5\ngood game\nAm Sa., 28. Nov.\n2026 um 12:40 schrieb PBeM Server <" + robot + ">:\n> x\n", "good game\n"},
		{"e4-e5\nmy plan\nfor later:\nnice\n", "my plan\nfor later:\nnice\n"},
	} {
		s := e.ReadMail("Re: Lyngk Board 101 bob", tt.body)
		if len(s.Lines) != 1 || s.Comment != tt.comment {
			t.Errorf("ReadMail(%q) = %q, %q; want comment %q", tt.body, s.Lines, s.Comment, tt.comment)
		}
	}
}
