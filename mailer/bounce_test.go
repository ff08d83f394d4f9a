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
		// The original recipient, as the robot addressed it, not the one
		// it was forwarded to.
		{"office365-ndr.eml", true, "dsn", []BounceRecipient{hard("Erin@fabrikam.example", "5.1.10")},
			[]string{"lyngk-ZZ99YY88XX@contoso.com"}, []string{"lyngk@contoso.com"}},
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
