package engine

import (
	"slices"
	"strings"
)

// add: add USERID PASSWORD ADDRESS... adds addresses to the account. Each
// new one is confirmed as at signup (a confirmation mail, within the same
// daily caps) and gets the mail once confirmed; the confirmed addresses
// keep getting it meanwhile. The account's addresses hear of it, as of a
// change of address. An add replaces the addresses an earlier add or
// change address left waiting for confirmation; addresses the account
// already has are taken as they are.
func (r *request) add(c Command) error {
	u, err := r.authenticate(c.Args[0], c.Args[1])
	if err != nil {
		return err
	}
	addrs, err := r.addresses(c.Args[2:])
	if err != nil {
		return err
	}
	var ask []string
	for _, a := range addrs {
		if !slices.ContainsFunc(u.Addresses, func(o string) bool { return strings.EqualFold(o, a) }) {
			ask = append(ask, a)
		}
	}
	if err := r.confirmsAllowed(ask); err != nil {
		return err
	}
	u.Pending, u.Replace = ask, false
	if err := r.saveUser(u); err != nil {
		return err
	}
	err = r.mail("account", u.Addresses, accountView{User: u.ID, What: "address", Addresses: u.Addresses, Pending: u.Pending})
	if err != nil {
		return err
	}
	return r.askConfirm(u, ask, false)
}
