package mailer

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestSetDate(t *testing.T) {
	at := time.Date(2026, 11, 26, 18, 4, 5, 0, time.UTC)
	const now = "Date: Thu, 26 Nov 2026 18:04:05 +0000\r\n"
	for _, tc := range []struct{ name, in, want string }{
		{"one line", "From: a@b.c\r\nDate: Thu, 26 Nov 2026 12:00:00 +0000\r\nSubject: s\r\n\r\nDate: body\r\n",
			"From: a@b.c\r\n" + now + "Subject: s\r\n\r\nDate: body\r\n"},
		{"folded, any case", "date: Thu,\r\n 26 Nov 2026\r\n\t12:00:00 +0000\r\nSubject: s\r\n\r\nx\r\n",
			now + "Subject: s\r\n\r\nx\r\n"},
		{"last field", "Subject: s\r\nDate: x\r\n\r\n", "Subject: s\r\n" + now + "\r\n"},
		{"none", "Subject: s\r\nDate-Sent: x\r\n\r\nDate: no\r\n", now + "Subject: s\r\nDate-Sent: x\r\n\r\nDate: no\r\n"},
		{"LF only", "Date: x\nSubject: s\n\nb\n", now + "Subject: s\n\nb\n"},
	} {
		if got := string(setDate([]byte(tc.in), at)); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// TestSenderDatesAtHandoff: a mail composed 6 hours
// before the relay takes it (an outage, the hourly caps) leaves with the
// Date of its handoff, not of its composition (SpamAssassin scored a board
// mail held 4 h DATE_IN_PAST_03_06, 5.2 in all: spam); its Message-ID and
// the rest are as stored.
func TestSenderDatesAtHandoff(t *testing.T) {
	st := newSenderTest(t)
	composed := st.clock.Add(-6 * time.Hour)
	data, err := Compose(Outgoing{From: "lyngk@example.org", To: []string{"alice@example.com"}, Subject: "Lyngk Board 101 alice",
		Body: "board\n", MessageID: "101.3.alice@example.org", Date: composed})
	if err != nil {
		t.Fatal(err)
	}
	st.q.add("m1", "alice@example.com")
	st.q.mails[0].Data = data
	st.s.round(context.Background())
	if len(st.srv.raws) != 1 {
		t.Fatalf("the relay got %d mails", len(st.srv.raws))
	}
	got := st.srv.raws[0]
	if want := "\r\nDate: " + st.clock.Format(dateLayout) + "\r\n"; !strings.Contains("\r\n"+got, want) {
		t.Errorf("sent mail has no %q:\n%s", want, got)
	}
	if strings.Contains(got, composed.Format(dateLayout)) {
		t.Errorf("sent mail keeps the composition date:\n%s", got)
	}
	if strings.Replace(got, st.clock.Format(dateLayout), composed.Format(dateLayout), 1) != string(data) {
		t.Errorf("more than the Date changed:\nstored %q\n  sent %q", data, got)
	}
}
