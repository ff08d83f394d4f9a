package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestProcessOversizeKeys: a Message-ID or an address longer than bbolt's
// 32 KB key limit, from the header or from a command, is answered or
// ignored like any bad input; it never becomes a store key, which would
// fail the mail's transaction at every delivery and stall the inbox.
func TestProcessOversizeKeys(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	huge := strings.Repeat("a", 40000)

	// A huge Message-ID is taken as absent: the mail is applied once, and
	// its redelivery (same bytes) is recognised by the digest of the mail.
	longID := rawMail{from: "alice@example.com", subject: "signup alice pw", id: huge + "@client.example"}
	if r := process(t, db, longID); len(r) != 1 || r[0].to != "alice@example.com" {
		t.Fatalf("mail with a 40 KB Message-ID: %d replies %+v, want the signup answer", len(r), r)
	}
	if r := process(t, db, longID); len(r) != 0 {
		t.Fatalf("redelivered mail with a 40 KB Message-ID: %d replies, want none", len(r))
	}

	// A huge sender address is no address: silence, nothing stored, and the
	// next mail is applied.
	longFrom := rawMail{from: huge + "@example.com", subject: "lyngk help", id: "long-from@client.example"}
	if r := process(t, db, longFrom); len(r) != 0 {
		t.Fatalf("mail from a 40 KB address: %d replies, want silence", len(r))
	}

	// A huge address argument is refused as a bad address.
	longArg := rawMail{from: "bob@example.com", subject: "signup bob pw " + huge + "@example.com", id: "long-arg@client.example"}
	r := process(t, db, longArg)
	if len(r) != 1 || r[0].to != "bob@example.com" || !strings.HasPrefix(r[0].Body, strangerRefusal) || len(r[0].Body) > 1000 {
		t.Fatalf("signup with a 40 KB address: %d replies %+v, want one bad-address answer to bob", len(r), r)
	}
	if r := process(t, db, rawMail{from: "bob@example.com", subject: "signup bob pw", id: "bob@client.example"}); len(r) != 1 {
		t.Fatalf("bob's next signup: %d replies, want 1", len(r))
	}
}
