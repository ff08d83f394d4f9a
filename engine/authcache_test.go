package engine

import (
	"testing"

	"golang.org/x/crypto/bcrypt"
)

// TestAuthCache checks that the cache never accepts what bcrypt refuses: a
// wrong password, before or after the right one was seen, nor the right
// password against another user's (or a changed) hash.
func TestAuthCache(t *testing.T) {
	c, err := newAuthCache()
	if err != nil {
		t.Fatal(err)
	}
	hash := func(pw string) string {
		h, err := bcrypt.GenerateFromPassword([]byte(pw), bcrypt.MinCost)
		if err != nil {
			t.Fatal(err)
		}
		return string(h)
	}
	alice, changed := hash("secret"), hash("secret2")
	steps := []struct {
		hash, pw string
		want     bool
	}{
		{alice, "wrong", false},
		{alice, "secret", true},
		{alice, "secret", true}, // from the cache now
		{alice, "wrong", false},
		{alice, "", false},
		{changed, "secret", false},
		{changed, "secret2", true},
		{alice, "secret2", false},
	}
	for i, s := range steps {
		if got := c.check(s.hash, s.pw); got != s.want {
			t.Errorf("step %d: check(%q) = %v, want %v", i, s.pw, got, s.want)
		}
	}
	if len(c.seen) != 2 {
		t.Errorf("cache holds %d entries, want 2", len(c.seen))
	}
	// A password remembered at signup is accepted from the cache; another
	// password against that hash still goes to bcrypt and is refused.
	fresh := hash("signup")
	c.remember(fresh, "signup")
	if !c.check(fresh, "signup") || c.check(fresh, "Signup") {
		t.Error("remembered password: wrong answer")
	}
}

func BenchmarkAuthCacheHit(b *testing.B) {
	c, err := newAuthCache()
	if err != nil {
		b.Fatal(err)
	}
	h, _ := bcrypt.GenerateFromPassword([]byte("secret"), bcrypt.DefaultCost)
	c.check(string(h), "secret")
	for b.Loop() {
		if !c.check(string(h), "secret") {
			b.Fatal("refused")
		}
	}
}
