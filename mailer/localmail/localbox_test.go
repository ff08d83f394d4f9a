package localmail

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"

	"lyngk.example/lyngk/mailer/mailtest"
)

// startLocalIn starts the local mail service on the mailboxes in dir.
func startLocalIn(t *testing.T, dir string) *Local {
	t.Helper()
	l, err := StartLocal(context.Background(), LocalConfig{SMTPAddr: "127.0.0.1:0", IMAPAddr: "127.0.0.1:0",
		Server: "lyngk@localhost", Dir: dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// imapLogin logs in to l as user (password: the name) over IMAP.
func imapLogin(t *testing.T, l *Local, user string) *imapclient.Client {
	t.Helper()
	c, err := imapclient.DialInsecure(l.IMAPAddr(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	name, _, _ := strings.Cut(user, "@")
	if err := c.Login(user, name).Wait(); err != nil {
		t.Fatal(err)
	}
	return c
}

// boxMail is what a test sees of one mail.
type boxMail struct {
	UID     imap.UID
	Subject string
	Flags   string
}

// listBox selects mailbox and returns its UIDVALIDITY and mails.
func listBox(t *testing.T, c *imapclient.Client, mailbox string) (uint32, []boxMail) {
	t.Helper()
	sel, err := c.Select(mailbox, nil).Wait()
	if err != nil {
		t.Fatal(err)
	}
	if sel.NumMessages == 0 {
		return sel.UIDValidity, nil
	}
	msgs, err := c.Fetch(imap.SeqSetNum(mailtest.SeqRange(sel.NumMessages)...), &imap.FetchOptions{
		UID: true, Flags: true, Envelope: true}).Collect()
	if err != nil {
		t.Fatal(err)
	}
	var out []boxMail
	for _, m := range msgs {
		var fs []string
		for _, f := range m.Flags {
			fs = append(fs, string(f))
		}
		slices.Sort(fs)
		out = append(out, boxMail{m.UID, m.Envelope.Subject, strings.Join(fs, " ")})
	}
	return sel.UIDValidity, out
}

func subjectMail(subject string) []byte {
	return fmt.Appendf(nil, "From: alice@localhost\r\nTo: bob@localhost\r\nSubject: %s\r\nMessage-ID: <%s@test>\r\n\r\ntext\r\n",
		subject, strings.ReplaceAll(subject, " ", "."))
}

// TestLocalMailboxesPersist: the local mailboxes are on
// disk. After a restart the same mails are there under the same UIDs and
// UIDVALIDITY, new mail gets UIDs above every UID ever given (an expunged
// UID is not reused), and mail a client APPENDed to Sent and Drafts is
// kept with its flags.
func TestLocalMailboxesPersist(t *testing.T) {
	dir := t.TempDir()
	l := startLocalIn(t, dir)
	for _, s := range []string{"first", "second", "third"} {
		if err := smtpSubmit(t, l.SMTPAddr(), "alice@localhost", []string{"bob@localhost"}, subjectMail(s)); err != nil {
			t.Fatal(err)
		}
	}
	c := imapLogin(t, l, "bob@localhost")
	validity, before := listBox(t, c, "INBOX")
	if want := []boxMail{{1, "first", ""}, {2, "second", ""}, {3, "third", ""}}; !slices.Equal(before, want) {
		t.Fatalf("INBOX = %v, want %v", before, want)
	}
	if validity == 0 {
		t.Fatal("UIDVALIDITY 0")
	}
	// The highest UID goes: it must never be given again.
	if err := c.Store(imap.UIDSetNum(3), &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true,
		Flags: []imap.Flag{imap.FlagDeleted}}, nil).Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Expunge().Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Store(imap.UIDSetNum(1), &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true,
		Flags: []imap.Flag{imap.FlagSeen, "$Label1"}}, nil).Close(); err != nil {
		t.Fatal(err)
	}
	// A client saves its sent mail and a draft.
	for _, a := range []struct {
		box   string
		flags []imap.Flag
	}{{"Sent", []imap.Flag{imap.FlagSeen}}, {"Drafts", []imap.Flag{imap.FlagDraft}}} {
		msg := subjectMail("saved in " + a.box)
		cmd := c.Append(a.box, int64(len(msg)), &imap.AppendOptions{Flags: a.flags})
		if _, err := cmd.Write(msg); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Close(); err != nil {
			t.Fatal(err)
		}
		data, err := cmd.Wait()
		if err != nil || data.UID != 1 {
			t.Fatalf("APPEND to %s: %+v %v", a.box, data, err)
		}
	}
	_, sent := listBox(t, c, "Sent")
	if want := []boxMail{{1, "saved in Sent", `\Seen`}}; !slices.Equal(sent, want) {
		t.Fatalf("Sent after APPEND = %v, want %v", sent, want)
	}
	c.Close()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	l = startLocalIn(t, dir)
	c = imapLogin(t, l, "bob@localhost")
	again, after := listBox(t, c, "INBOX")
	if want := []boxMail{{1, "first", `$Label1 \Seen`}, {2, "second", ""}}; again != validity || !slices.Equal(after, want) {
		t.Fatalf("after the restart: UIDVALIDITY %d, INBOX %v; want %d, %v", again, after, validity, want)
	}
	if err := smtpSubmit(t, l.SMTPAddr(), "alice@localhost", []string{"bob@localhost"}, subjectMail("fourth")); err != nil {
		t.Fatal(err)
	}
	if _, got := listBox(t, c, "INBOX"); !slices.Equal(got[2:], []boxMail{{4, "fourth", ""}}) {
		t.Fatalf("new mail after the restart: %v, want UID 4", got)
	}
	for box, want := range map[string][]boxMail{
		"Sent":   {{1, "saved in Sent", `\Seen`}},
		"Drafts": {{1, "saved in Drafts", `\Draft`}},
	} {
		if _, got := listBox(t, c, box); !slices.Equal(got, want) {
			t.Errorf("%s after the restart = %v, want %v", box, got, want)
		}
	}
}

// TestLocalSpecialUse: every mailbox has INBOX, Drafts,
// Sent and Trash, the last three with their RFC 6154 attributes, in a plain
// LIST and with RETURN (SPECIAL-USE); the server says SPECIAL-USE.
func TestLocalSpecialUse(t *testing.T) {
	l := startLocalIn(t, t.TempDir())
	c := imapLogin(t, l, "carol@localhost")
	if !c.Caps().Has(imap.CapSpecialUse) {
		t.Errorf("capabilities %v lack SPECIAL-USE", c.Caps())
	}
	for _, opts := range []*imap.ListOptions{nil, {ReturnSpecialUse: true}} {
		list, err := c.List("", "*", opts).Collect()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range list {
			var attrs []string
			for _, a := range d.Attrs {
				if a != imap.MailboxAttrSubscribed {
					attrs = append(attrs, string(a))
				}
			}
			got = append(got, strings.TrimSpace(d.Mailbox+" "+strings.Join(attrs, " ")))
		}
		if want := []string{`Drafts \Drafts`, "INBOX", `Sent \Sent`, `Trash \Trash`}; !slices.Equal(got, want) {
			t.Errorf("LIST %+v = %q, want %q", opts, got, want)
		}
	}
	st, err := c.Status("INBOX", &imap.StatusOptions{NumMessages: true, UIDValidity: true}).Wait()
	if err != nil || st.NumMessages == nil || *st.NumMessages != 0 || st.UIDValidity == 0 {
		t.Errorf("STATUS INBOX: %+v %v", st, err)
	}
	list, err := c.List("", "*", &imap.ListOptions{SelectSpecialUse: true}).Collect()
	if err != nil || len(list) != 3 {
		t.Errorf("LIST (SPECIAL-USE): %v %v", list, err)
	}
	if err := c.Delete("Sent").Wait(); err == nil {
		t.Error("Sent could be deleted")
	}
	// A mailbox made anew gets a new UIDVALIDITY.
	if err := c.Create("Games", nil).Wait(); err != nil {
		t.Fatal(err)
	}
	v1, _ := listBox(t, c, "Games")
	if err := c.Unselect().Wait(); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete("Games").Wait(); err != nil {
		t.Fatal(err)
	}
	if err := c.Create("Games", nil).Wait(); err != nil {
		t.Fatal(err)
	}
	if v2, _ := listBox(t, c, "Games"); v2 == v1 {
		t.Errorf("Games made again kept UIDVALIDITY %d", v1)
	}
}

// TestLocalMoveCopySearch: MOVE, COPY and SEARCH keep UIDs straight in
// both mailboxes, and another session watching the source hears of the
// EXPUNGE.
func TestLocalMoveCopySearch(t *testing.T) {
	l := startLocalIn(t, t.TempDir())
	for _, s := range []string{"one", "two", "three"} {
		if err := smtpSubmit(t, l.SMTPAddr(), "alice@localhost", []string{"dan@localhost"}, subjectMail(s)); err != nil {
			t.Fatal(err)
		}
	}
	c := imapLogin(t, l, "dan@localhost")
	listBox(t, c, "INBOX")
	// A second client watches the INBOX.
	expunged := make(chan uint32, 10)
	w, err := imapclient.DialInsecure(l.IMAPAddr(), &imapclient.Options{UnilateralDataHandler: &imapclient.UnilateralDataHandler{
		Expunge: func(seq uint32) { expunged <- seq },
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Login("dan@localhost", "dan").Wait(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Select("INBOX", nil).Wait(); err != nil {
		t.Fatal(err)
	}
	found, err := c.UIDSearch(&imap.SearchCriteria{Header: []imap.SearchCriteriaHeaderField{{Key: "Subject", Value: "tw"}}}, nil).Wait()
	if err != nil || !slices.Equal(found.AllUIDs(), []imap.UID{2}) {
		t.Fatalf("UID SEARCH subject: %v %v", found, err)
	}
	moved, err := c.Move(imap.UIDSetNum(2), "Trash").Wait()
	if err != nil || moved.DestUIDs.String() != "1" {
		t.Fatalf("MOVE: %+v %v", moved, err)
	}
	if err := w.Noop().Wait(); err != nil {
		t.Fatal(err)
	}
	select {
	case seq := <-expunged:
		if seq != 2 {
			t.Errorf("the watcher heard EXPUNGE %d, want 2", seq)
		}
	default:
		t.Error("the watcher did not hear of the MOVE")
	}
	if _, err := c.Copy(imap.UIDSetNum(3), "Trash").Wait(); err != nil {
		t.Fatal(err)
	}
	if _, got := listBox(t, c, "INBOX"); !slices.Equal(got, []boxMail{{1, "one", ""}, {3, "three", ""}}) {
		t.Fatalf("INBOX after MOVE: %v", got)
	}
	if _, got := listBox(t, c, "Trash"); !slices.Equal(got, []boxMail{{1, "two", ""}, {2, "three", ""}}) {
		t.Fatalf("Trash after MOVE and COPY: %v", got)
	}
	found, err = c.UIDSearch(&imap.SearchCriteria{UID: []imap.UIDSet{{imap.UIDRange{Start: 2, Stop: 0}}}}, nil).Wait()
	if err != nil || !slices.Equal(found.AllUIDs(), []imap.UID{2}) {
		t.Fatalf("UID SEARCH 2:*: %v %v", found.AllUIDs(), err)
	}
}
