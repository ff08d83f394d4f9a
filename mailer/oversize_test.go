package mailer

import (
	"strings"
	"testing"
)

// TestParseOversize: a Message-ID longer than MaxMsgIDLen and an address
// longer than MaxAddressLen are taken as absent; the longest allowed pass.
func TestParseOversize(t *testing.T) {
	local := func(n int) string { return strings.Repeat("a", n-len("@example.com")) + "@example.com" }
	id := func(n int) string { return strings.Repeat("i", n-len("@client.example")) + "@client.example" }
	tests := []struct {
		from, id         string
		wantFrom, wantID bool
	}{
		{local(MaxAddressLen), id(MaxMsgIDLen), true, true},
		{local(MaxAddressLen + 1), id(MaxMsgIDLen + 1), false, false},
		{local(40000), id(40000), false, false},
	}
	for _, tt := range tests {
		raw := "From: Al <" + tt.from + ">\r\nTo: lyngk@localhost\r\nSubject: help\r\nMessage-ID: <" + tt.id +
			">\r\nIn-Reply-To: <" + tt.id + ">\r\n\r\nhi\r\n"
		in, err := Parse(strings.NewReader(raw), 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		if got := in.From == tt.from; got != tt.wantFrom || (!got && in.From != "") {
			t.Errorf("From of %d bytes: got %d bytes, want kept=%v", len(tt.from), len(in.From), tt.wantFrom)
		}
		if got := in.MessageID == tt.id; got != tt.wantID || (!got && in.MessageID != "") {
			t.Errorf("Message-ID of %d bytes: got %d bytes, want kept=%v", len(tt.id), len(in.MessageID), tt.wantID)
		}
		if got := len(in.InReplyTo) == 1 && in.InReplyTo[0] == tt.id; got != tt.wantID {
			t.Errorf("In-Reply-To of %d bytes: got %d ids, want kept=%v", len(tt.id), len(in.InReplyTo), tt.wantID)
		}
	}
}
