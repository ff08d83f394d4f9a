package engine

import (
	"bytes"
	"crypto/rand"
	"regexp"
	"testing"
)

// bitcoinID is SpamAssassin's __BITCOIN_ID (rules of 2024, 72_active.cf):
// a mail whose text matches it scores PDS_BTC_ID, +1.0.
var bitcoinID = regexp.MustCompile(`\b[13][a-km-zA-HJ-NP-Z1-9]{29,34}\b`)

// TestDrawTokenNoBitcoinID: a code or token whose first character would
// be "3" begins with "l" instead, so none looks like a Bitcoin address, and
// every other draw is as before. Before,
// one in 80 did (a "3" first, no "l"), and a confirmation mail carrying
// it scored 1.0 in SpamAssassin.
func TestDrawTokenNoBitcoinID(t *testing.T) {
	// 0xd8 = 11011 000: the first five bits are 27, "3".
	three := bytes.Repeat([]byte{0xd8}, 20)
	if tok := tokenEncoding.EncodeToString(three); !bitcoinID.MatchString("confirm " + tok) {
		t.Fatalf("the test's draw %s does not look like a Bitcoin address", tok)
	}
	for _, c := range []struct{ in, want string }{
		{string(three), "l" + tokenEncoding.EncodeToString(three)[1:]},
		{"\x10abcdefghijklmnopqrs", tokenEncoding.EncodeToString([]byte("\x10abcdefghijklmnopqrs"))},
	} {
		tok, err := drawToken(bytes.NewReader([]byte(c.in)), 20)
		if err != nil {
			t.Fatal(err)
		}
		if tok != c.want {
			t.Errorf("drawToken(%q) = %s, want %s", c.in, tok, c.want)
		}
	}
	for range 20000 {
		tok, err := drawToken(rand.Reader, 20)
		if err != nil {
			t.Fatal(err)
		}
		if bitcoinID.MatchString("confirm " + tok + " please") {
			t.Fatalf("drawToken gave %s, a Bitcoin address to SpamAssassin", tok)
		}
	}
}
