package engine

import (
	"encoding/json"
	"strings"
)

// deleteAccount: delete USERID PASSWORD erases the account's personal
// data: its addresses (confirmed and waiting), password hash, choices
// (format, subject, chat, messages, vacation), its pending confirmation
// codes (and any that does not decode) and the bounce records of addresses no other account has. Its
// running games are resigned and its subscriptions end, as by signoff
// (which may come first: delete takes an account that signed off). What
// stays is the record under the userid, marked deleted, with its ratings
// and won/lost/tied: the finished games name it, and the userid is never
// given to anybody else. The account's addresses get one last mail.
func (r *request) deleteAccount(c Command) error {
	u, ok, err := r.loadUser(c.Args[0])
	switch {
	case err != nil:
		return err
	case !ok || !u.Deleted.IsZero() || u.Robot:
		return refuse(whyUnknownUser, kv{"User": c.Args[0]})
	}
	if u, err = r.verify(u, c.Args[1]); err != nil {
		return err
	}
	boards, u, err := r.quit(u)
	if err != nil {
		return err
	}
	// The last mail is composed now, to the addresses about to go.
	err = r.mail("deleted", u.Addresses, accountView{User: u.ID, Boards: boards})
	if err != nil {
		return err
	}
	key := strings.ToLower(u.ID)
	for _, a := range u.Addresses {
		if err := r.forgetBounces(a); err != nil {
			return err
		}
	}
	var codes, expiries []string
	err = r.tx.ForEach(bucketConfirms, func(code string, val []byte) error {
		var rec confirmation
		if json.Unmarshal(val, &rec) != nil || rec.User == key {
			codes, expiries = append(codes, code), append(expiries, confirmExpiryOf(code, val))
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i, code := range codes {
		if err := r.tx.Delete(bucketConfirms, code); err != nil {
			return err
		}
		if err := r.tx.Delete(bucketExpiry, expiries[i]); err != nil {
			return err
		}
	}
	kept := user{ID: u.ID, Created: u.Created, Left: u.Left, Deleted: r.now, Games: u.Games}
	return r.saveUser(&kept)
}

// forgetBounces drops the bounce record of addr (and its VERP tag) when
// addr is confirmed for no account any more.
func (r *request) forgetBounces(addr string) error {
	key := strings.ToLower(addr)
	if ok, err := confirmed(r.tx, key); err != nil || ok {
		return err
	}
	secret, err := verpKey(r.tx)
	if err != nil {
		return err
	}
	if err := r.tx.Delete(bucketBounces, verpPrefix+verpHMAC(secret, key)); err != nil {
		return err
	}
	return r.tx.Delete(bucketBounces, key)
}
