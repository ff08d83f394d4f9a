package mailer

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestParseBounce reads the bounce formats met in practice, from
// testdata/bounces: each gives its failed addresses, hard or soft, and the
// Message-ID of the mail that bounced; mail that is no bounce gives none.
func TestParseBounce(t *testing.T) {
	hard := func(addr, status string) BounceRecipient {
		return BounceRecipient{Addr: addr, Hard: true, Status: status}
	}
	soft := func(addr, status string) BounceRecipient { return BounceRecipient{Addr: addr, Status: status} }
	for _, tc := range []struct {
		file   string
		ok     bool
		format string
		rcpts  []BounceRecipient
		ids    []string
		to     []string
	}{
		{"postfix-unknown-user.eml", true, "dsn", []BounceRecipient{hard("carol@e2e.test", "5.1.1")},
			[]string{"lyngk-3TQ7ZV2C4N@e2e.test"}, []string{"lyngk+b-k7q2m4x9wz@e2e.test"}},
		{"gmail-dsn.eml", true, "dsn", []BounceRecipient{hard("dave.gone@gmail.com", "5.1.1")},
			[]string{"lyngk-AB12CD34EF@example.org"}, []string{"lyngk@example.org"}},
		// The original recipient, as the server addressed it, not the one
		// it was forwarded to.
		// Final-Recipient is the address; an Original-Recipient that
		// differs but in case is no other.
		{"office365-ndr.eml", true, "dsn", []BounceRecipient{hard("erin@fabrikam.example", "5.1.10")},
			[]string{"lyngk-ZZ99YY88XX@contoso.com"}, []string{"lyngk@contoso.com"}},
		// A forward: the address the robot wrote to is Original.
		{"postfix-forwarded.eml", true, "dsn", []BounceRecipient{{Addr: "pat@new.example", Original: "Pat@players.example", Hard: true, Status: "5.1.1"}},
			[]string{"18F2A3B4C5D9.4AB6CD8EF0GH@e2e.test"}, []string{"lyngk@e2e.test"}},
		// Exim with its multipart report: the text says who and why.
		{"exim-said.eml", true, "exim", []BounceRecipient{hard("leo@host.example", "")},
			[]string{"18F2A3B4C5D6.3KQ0ZJ7WXY9A@example.org"}, []string{"lyngk@example.org"}},
		// Outlook.com: a report without status part; the ids of the
		// returned headers, then In-Reply-To (the same: once).
		{"microsoft-text.eml", true, "microsoft", []BounceRecipient{hard("mike@outlook.example", "")},
			[]string{"lyngk.n4bdr7k2q5vmx3c6h8j2t4w6y8a2b4c6.p3m5q7s9u2w4y6a8@example.org"}, []string{"lyngk@example.org"}},
		{"microsoft-delayed.eml", true, "microsoft", []BounceRecipient{soft("olga@outlook.example", "")},
			[]string{"18F2A3B4C5D8.2XQ4RT6YU8IO@example.org"}, []string{"lyngk@example.org"}},
		{"exchange-legacy.eml", true, "microsoft", []BounceRecipient{hard("nora@corp.example", "")},
			[]string{"18F2A3B4C5D7.1ZQ4RT6YU8IO@example.org"}, []string{"lyngk@example.org"}},
		{"postfix-delayed.eml", true, "dsn", []BounceRecipient{soft("frank@slow.example", "4.4.1")},
			[]string{"lyngk-DELAY00001@example.org"}, []string{"lyngk@example.org"}},
		{"qmail.eml", true, "qmail", []BounceRecipient{hard("gina@oldhost.example", "")},
			[]string{"lyngk-QMAIL00001@example.org"}, []string{"lyngk@example.org"}},
		{"exim.eml", true, "exim", []BounceRecipient{hard("hank@isp.example", "")},
			[]string{"lyngk-EXIM000001@example.org"}, []string{"lyngk@example.org"}},
		{"exim-temporary.eml", true, "exim", []BounceRecipient{soft("ivy@isp.example", "")},
			[]string{"lyngk-EXIM000002@example.org"}, []string{"lyngk@example.org"}},
		{"failed-permanently.eml", true, "failed-permanently", []BounceRecipient{hard("jack@nowhere.example", "")},
			[]string{"lyngk-GMOLD00001@example.org"}, []string{"lyngk@example.org"}},
		{"yahoo.eml", true, "yahoo", []BounceRecipient{hard("kim@yahoo.example", "")},
			[]string{"lyngk-YAHOO00001@example.org"}, []string{"lyngk@example.org"}},
		{"out-of-office.eml", false, "", nil, nil, nil},
		{"delivered-notice.eml", false, "", nil, nil, nil},
	} {
		raw, err := os.ReadFile(filepath.Join("testdata", "bounces", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		b, ok := ParseBounce(raw)
		if ok != tc.ok || b.Format != tc.format || !reflect.DeepEqual(b.Recipients, tc.rcpts) ||
			!reflect.DeepEqual(b.MessageIDs, tc.ids) || !reflect.DeepEqual(b.To, tc.to) {
			t.Errorf("%s: ok %v, %+v\nwant ok %v, format %q, recipients %+v, ids %q, to %q", tc.file, ok, b, tc.ok, tc.format, tc.rcpts, tc.ids, tc.to)
		}
	}
}

// FuzzParseBounce: any input is read without a panic, within the bounds.
func FuzzParseBounce(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "bounces", "*.eml"))
	for _, p := range files {
		raw, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		b, ok := ParseBounce(raw)
		if len(b.Recipients) > maxBounceRecipients || len(b.MessageIDs) > maxBounceIDs || len(b.To) > maxBounceTo {
			t.Fatalf("over the bounds: %d recipients, %d ids, %d to", len(b.Recipients), len(b.MessageIDs), len(b.To))
		}
		if ok && len(b.Recipients) == 0 {
			t.Fatal("a bounce without recipients")
		}
	})
}
