package mailer

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

var mboxDate = time.Date(2026, 11, 3, 9, 2, 5, 0, time.FixedZone("CET", 3600))

func TestWriteMbox(t *testing.T) {
	tests := []struct {
		name, from, msg, want string
	}{
		{"CRLF mail", "lyngk@example.net", "Subject: x\r\n\r\nbody\r\n",
			"From lyngk@example.net Tue Nov  3 08:02:05 2026\nSubject: x\n\nbody\n\n"},
		{"From lines escaped, mboxrd style", "lyngk@example.net",
			"Subject: x\n\nFrom me\n>From you\n>>From them\n From not\nFrom:\n",
			"From lyngk@example.net Tue Nov  3 08:02:05 2026\nSubject: x\n\n>From me\n>>From you\n>>>From them\n From not\nFrom:\n\n"},
		{"no final line end", "lyngk@example.net", "Subject: x\n\nlast",
			"From lyngk@example.net Tue Nov  3 08:02:05 2026\nSubject: x\n\nlast\n\n"},
		{"trailing spaces kept", "lyngk@example.net", "Subject: x\n\n   A   \n",
			"From lyngk@example.net Tue Nov  3 08:02:05 2026\nSubject: x\n\n   A   \n\n"},
		{"null sender", "", "Subject: x\n\nb\n",
			"From MAILER-DAEMON Tue Nov  3 08:02:05 2026\nSubject: x\n\nb\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteMbox(&b, tt.from, mboxDate, []byte(tt.msg)); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got\n%q\nwant\n%q", b.String(), tt.want)
			}
		})
	}
}

func TestWriteMboxErrors(t *testing.T) {
	if err := WriteMbox(new(bytes.Buffer), "a b@example.net", mboxDate, []byte("x\n")); err == nil {
		t.Error("white space in the envelope sender accepted")
	}
	writeErr := errors.New("disk full")
	if err := WriteMbox(errWriter{writeErr}, "a@example.net", mboxDate, []byte("x\n")); !errors.Is(err, writeErr) {
		t.Errorf("err = %v, want %v", err, writeErr)
	}
}

type errWriter struct{ err error }

func (w errWriter) Write([]byte) (int, error) { return 0, w.err }

// TestMboxRoundTrip writes composed mails one after another, as `lyngk
// process -mbox` appends them, and reads them back.
func TestMboxRoundTrip(t *testing.T) {
	first, err := Compose(boardMail)
	if err != nil {
		t.Fatal(err)
	}
	m := boardMail
	m.Body = "From the start\n>From quoted\n\n"
	second, err := Compose(m)
	if err != nil {
		t.Fatal(err)
	}
	msgs := [][]byte{first, second, []byte("Subject: last\n\nno line end")}
	var b bytes.Buffer
	for _, msg := range msgs {
		if err := WriteMbox(&b, "lyngk@example.net", mboxDate, msg); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ReadMbox(&b)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		strings.ReplaceAll(string(first), "\r\n", "\n"),
		strings.ReplaceAll(string(second), "\r\n", "\n"),
		"Subject: last\n\nno line end\n",
	}
	if len(got) != len(want) {
		t.Fatalf("read %d mails, want %d", len(got), len(want))
	}
	for i := range want {
		if string(got[i]) != want[i] {
			t.Errorf("mail %d:\n%q\nwant\n%q", i, got[i], want[i])
		}
	}
	in, err := Parse(bytes.NewReader(got[1]), 0)
	if err != nil {
		t.Fatal(err)
	}
	if in.Body != m.Body {
		t.Errorf("Body from the mbox = %q, want %q", in.Body, m.Body)
	}
}

func TestReadMbox(t *testing.T) {
	tests := []struct {
		name    string
		mbox    string
		want    []string
		wantErr bool
	}{
		{"empty", "", nil, false},
		{"blank lines only", "\n\n", nil, false},
		{"mail ending in a blank line", "From a Tue Nov  3 08:02:05 2026\nS: x\n\nb\n\n\nFrom b Tue Nov  3 08:02:05 2026\nS: y\n\n",
			[]string{"S: x\n\nb\n\n", "S: y\n"}, false},
		{"truncated last line", "From a Tue Nov  3 08:02:05 2026\nS: x\n\n>From b", []string{"S: x\n\nFrom b"}, false},
		{"text before the first From line", "S: x\n", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadMbox(strings.NewReader(tt.mbox))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			for i := range got {
				if string(got[i]) != tt.want[i] {
					t.Errorf("mail %d = %q, want %q", i, got[i], tt.want[i])
				}
			}
		})
	}
	readErr := errors.New("read failed")
	if _, err := ReadMbox(iotest.ErrReader(readErr)); !errors.Is(err, readErr) {
		t.Errorf("err = %v, want %v", err, readErr)
	}
}

// FuzzMbox: any mail written by WriteMbox is read back as one mail, equal
// to the original with LF line ends and a final line end.
func FuzzMbox(f *testing.F) {
	f.Add([]byte("Subject: x\r\n\r\nFrom me\r\n>From you\r\n"))
	f.Add([]byte("From \n\n\nFrom "))
	f.Add([]byte("a\r\r\n\r"))
	f.Fuzz(func(t *testing.T, msg []byte) {
		var b bytes.Buffer
		if err := WriteMbox(&b, "lyngk@example.net", mboxDate, msg); err != nil {
			t.Fatal(err)
		}
		got, err := ReadMbox(&b)
		if err != nil {
			t.Fatal(err)
		}
		// A CR at the very end is the line end its missing LF would
		// have made.
		want := strings.ReplaceAll(string(msg), "\r\n", "\n")
		if strings.HasSuffix(want, "\r") {
			want = strings.TrimSuffix(want, "\r") + "\n"
		}
		if !strings.HasSuffix(want, "\n") {
			want += "\n"
		}
		if len(got) != 1 || string(got[0]) != want {
			t.Errorf("read back %q, want [%q]", got, want)
		}
	})
}
