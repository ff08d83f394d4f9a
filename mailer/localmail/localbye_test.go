package localmail

import (
	"strings"
	"testing"
)

// TestLocalCloseSaysBye: closing the local mail service
// (SIGTERM to `lyngk serve`) sends "* BYE" to every IMAP connection,
// whatever its state, before closing it; before, connections were dropped
// without a word and NeoMutt showed an empty mailbox.
func TestLocalCloseSaysBye(t *testing.T) {
	l := startTestLocal(t)
	greeted := dialRawIMAP(t, l.IMAPAddr())
	loggedIn := dialRawIMAP(t, l.IMAPAddr())
	loggedIn.cmd("a", "LOGIN bob@localhost bob", true)
	selected := dialRawIMAP(t, l.IMAPAddr())
	selected.cmd("a", "LOGIN bob@localhost bob", true)
	selected.cmd("b", "SELECT INBOX", true)
	idling := dialRawIMAP(t, l.IMAPAddr())
	idling.cmd("a", "LOGIN carol@localhost carol", true)
	idling.cmd("b", "SELECT INBOX", true)
	idling.cmd("c", "IDLE", false)
	if got := idling.line(); !strings.HasPrefix(got, "+ ") {
		t.Fatalf("IDLE answered %q", got)
	}

	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]*rawIMAP{"greeted": greeted, "logged in": loggedIn, "selected": selected, "idling": idling} {
		var lines []string
		for {
			s, err := c.r.ReadString('\n')
			if err != nil {
				t.Errorf("%s connection closed without BYE after %q", name, lines)
				break
			}
			lines = append(lines, s)
			if strings.HasPrefix(s, "* BYE ") {
				break
			}
		}
	}
}
