package mailer

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"lyngk.example/lyngk/mailer/mailtest"
)

// eventLog is the order of things seen by the fake queue and the recording
// SMTP server together.
type eventLog struct {
	mu sync.Mutex
	ev []string
}

func (l *eventLog) add(format string, args ...any) {
	l.mu.Lock()
	l.ev = append(l.ev, fmt.Sprintf(format, args...))
	l.mu.Unlock()
}

func (l *eventLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	ev := l.ev
	l.ev = nil
	return ev
}

// fakeQueue is an in-memory Queue that logs every call. Its Due decides
// per-recipient order the way the store does: an earlier queued mail holds
// back the later mails to its recipients.
type fakeQueue struct {
	log    *eventLog
	mu     sync.Mutex
	mails  []*fakeQueued // ID order
	dead   map[uint64]string
	lastID uint64
	empty  chan struct{} // if set, told (without blocking) when Due finds nothing
}

type fakeQueued struct {
	QueuedMail
	next    time.Time
	lastErr string
}

func newFakeQueue(log *eventLog) *fakeQueue {
	return &fakeQueue{log: log, dead: map[uint64]string{}}
}

// add queues a mail whose body names it, due at once.
func (q *fakeQueue) add(name string, to ...string) uint64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.lastID++
	data := "From: lyngk@localhost\r\nSubject: " + name + "\r\n\r\n" + name + "\r\n"
	q.mails = append(q.mails, &fakeQueued{QueuedMail: QueuedMail{ID: q.lastID, From: "lyngk@localhost", To: to, Data: []byte(data)}})
	return q.lastID
}

func (q *fakeQueue) Due(now time.Time, max int) ([]QueuedMail, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var due []QueuedMail
	held := map[string]bool{}
	for _, m := range q.mails {
		ok := !m.next.After(now) && len(due) < max
		for _, r := range m.To {
			r = strings.ToLower(r)
			ok = ok && !held[r]
			held[r] = true
		}
		if ok {
			due = append(due, m.QueuedMail)
		}
	}
	if len(due) == 0 && q.empty != nil {
		select {
		case q.empty <- struct{}{}:
		default:
		}
	}
	return due, nil
}

func (q *fakeQueue) find(id uint64) (int, *fakeQueued) {
	for i, m := range q.mails {
		if m.ID == id {
			return i, m
		}
	}
	panic(fmt.Sprintf("fakeQueue: no mail %d", id))
}

func (q *fakeQueue) Begin(as []Attempt) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, a := range as {
		_, m := q.find(a.ID)
		m.Attempts++
		m.next = a.Next
		q.log.add("attempt %d", a.ID)
	}
	return nil
}

func (q *fakeQueue) Finish(now time.Time, rs []Result) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, r := range rs {
		i, m := q.find(r.ID)
		m.lastErr = r.Err
		switch r.Status {
		case Accepted:
			q.mails = slices.Delete(q.mails, i, i+1)
			q.log.add("sent %d", r.ID)
		case Refused:
			q.mails = slices.Delete(q.mails, i, i+1)
			q.dead[r.ID] = r.Err
			q.log.add("dead %d", r.ID)
		case Deferred:
			q.log.add("deferred %d", r.ID)
		case RelayDown:
			m.Attempts--
			m.next = now
			q.log.add("relay %d", r.ID)
		}
	}
	return nil
}

func (q *fakeQueue) get(id uint64) fakeQueued {
	q.mu.Lock()
	defer q.mu.Unlock()
	_, m := q.find(id)
	return *m
}

func (q *fakeQueue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.mails)
}

// smtpRecorder is a go-smtp backend that logs connections and deliveries
// and answers RCPT as told per recipient.
type smtpRecorder struct {
	log      *eventLog
	mu       sync.Mutex
	rcptErr  map[string]*smtp.SMTPError
	dropAt   string          // RCPT TO this address closes the connection
	mailErr  *smtp.SMTPError // answer to MAIL FROM
	dataErr  *smtp.SMTPError // answer to the data
	user     string          // when set, AUTH PLAIN user/password is required
	password string
	raws     []string // every mail's data as received
}

func (b *smtpRecorder) setRcptErr(rcpt string, err *smtp.SMTPError) {
	b.mu.Lock()
	b.rcptErr[rcpt] = err
	b.mu.Unlock()
}

// setDropAt makes RCPT TO rcpt close the connection ("" for none).
func (b *smtpRecorder) setDropAt(rcpt string) {
	b.mu.Lock()
	b.dropAt = rcpt
	b.mu.Unlock()
}

func (b *smtpRecorder) NewSession(c *smtp.Conn) (smtp.Session, error) {
	b.log.add("connect")
	return &recorderSession{b: b, conn: c}, nil
}

type recorderSession struct {
	b      *smtpRecorder
	conn   *smtp.Conn
	authed bool
	to     []string
}

var _ smtp.AuthSession = (*recorderSession)(nil)

func (s *recorderSession) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *recorderSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != s.b.user || pass != s.b.password {
			return smtp.ErrAuthFailed
		}
		s.authed = true
		return nil
	}), nil
}

func (s *recorderSession) Mail(string, *smtp.MailOptions) error {
	if s.b.user != "" && !s.authed {
		return smtp.ErrAuthRequired
	}
	if s.b.mailErr != nil {
		return s.b.mailErr
	}
	return nil
}

func (s *recorderSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if to == s.b.dropAt {
		s.conn.Close()
		return errors.New("dropped")
	}
	if err := s.b.rcptErr[to]; err != nil {
		return err
	}
	s.to = append(s.to, to)
	return nil
}

func (s *recorderSession) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if s.b.dataErr != nil {
		return s.b.dataErr
	}
	s.b.mu.Lock()
	s.b.raws = append(s.b.raws, string(data))
	s.b.mu.Unlock()
	_, body, _ := strings.Cut(string(data), "\r\n\r\n")
	s.b.log.add("data %s to %s", strings.TrimSpace(body), strings.Join(s.to, ","))
	return nil
}

func (s *recorderSession) Reset()        { s.to = nil }
func (s *recorderSession) Logout() error { return nil }

// startSMTPRecorder serves b on addr ("127.0.0.1:0" for any port) until
// the returned stop is called (or the test ends).
func startSMTPRecorder(t *testing.T, b *smtpRecorder, addr string, tlsCfg *tls.Config, implicit bool) (string, func()) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	srv := smtp.NewServer(b)
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = true
	srv.ErrorLog = newTestLogger(t)
	if implicit {
		ln = tls.NewListener(ln, tlsCfg)
	} else {
		srv.TLSConfig = tlsCfg
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(ln)
	}()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			srv.Close()
			ln.Close() // in case Serve had not registered it yet
			<-done
		})
	}
	t.Cleanup(stop)
	return ln.Addr().String(), stop
}

// senderTest is a Sender on a fake clock, a fake queue and a recording
// server, driven round by round.
type senderTest struct {
	log   *eventLog
	q     *fakeQueue
	srv   *smtpRecorder
	addr  string
	stop  func()
	s     *Sender
	clock time.Time
}

func newSenderTest(t *testing.T) *senderTest {
	st := &senderTest{log: &eventLog{}, clock: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	st.q = newFakeQueue(st.log)
	st.srv = &smtpRecorder{log: st.log, rcptErr: map[string]*smtp.SMTPError{}}
	st.addr, st.stop = startSMTPRecorder(t, st.srv, "127.0.0.1:0", nil, false)
	st.s = NewSender(SMTPConfig{Addr: st.addr, TLS: TLSNone}, st.q, nil)
	st.s.now = func() time.Time { return st.clock }
	return st
}

func (st *senderTest) round(t *testing.T, want ...string) {
	t.Helper()
	st.s.round(context.Background())
	if got := st.log.take(); !slices.Equal(got, want) {
		t.Errorf("events:\n got %q\nwant %q", got, want)
	}
}

var (
	tempFail = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 2, 0}, Message: "mailbox busy"}
	permFail = &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such user"}
	closing  = &smtp.SMTPError{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 3, 2}, Message: "shutting down"}
)

func TestSenderInOrderOnOneConnection(t *testing.T) {
	st := newSenderTest(t)
	st.q.add("m1", "a@example.com")
	st.q.add("m2", "b@example.com", "c@example.com")
	st.q.add("m3", "a@example.com")
	var sent []uint64
	st.s.OnSent = func(m QueuedMail, _ time.Time) { sent = append(sent, m.ID) }
	// The round's attempts are recorded in one write before the
	// connection is made, its outcomes in one write at the end. m3 goes to
	// a recipient of m1, so the queue holds it for the next round.
	st.round(t, "attempt 1", "attempt 2", "connect", "data m1 to a@example.com",
		"data m2 to b@example.com,c@example.com", "sent 1", "sent 2")
	st.round(t, "attempt 3", "connect", "data m3 to a@example.com", "sent 3")
	if !slices.Equal(sent, []uint64{1, 2, 3}) || st.q.len() != 0 {
		t.Errorf("OnSent for %v, %d left in queue", sent, st.q.len())
	}
}

func TestSenderTemporaryFailureRetriesInOrder(t *testing.T) {
	st := newSenderTest(t)
	st.srv.setRcptErr("alice@example.com", tempFail)
	st.q.add("m1", "alice@example.com")
	st.q.add("m2", "bob@example.com")
	st.q.add("m3", "Alice@example.com") // same recipient as m1: must wait for it
	st.round(t, "attempt 1", "attempt 2", "connect", "data m2 to bob@example.com", "deferred 1", "sent 2")
	m1 := st.q.get(1)
	if want := st.clock.Add(RetrySchedule[0]); !m1.next.Equal(want) || m1.Attempts != 1 {
		t.Errorf("m1 after a 451: next %v attempts %d, want %v 1", m1.next, m1.Attempts, want)
	}
	if st.q.get(3).Attempts != 0 {
		t.Error("m3 was attempted before m1 to the same recipient")
	}

	// Still failing, before the retry: m3 waits behind m1.
	st.clock = st.clock.Add(RetrySchedule[0] / 2)
	st.round(t)

	st.srv.setRcptErr("alice@example.com", nil)
	st.clock = st.clock.Add(RetrySchedule[0])
	// One mail per recipient and round: m3 goes in the next round.
	st.round(t, "attempt 1", "connect", "data m1 to alice@example.com", "sent 1")
	st.round(t, "attempt 3", "connect", "data m3 to Alice@example.com", "sent 3")
	if len(st.q.dead) != 0 || st.q.len() != 0 {
		t.Errorf("dead %v, queue %d", st.q.dead, st.q.len())
	}
}

// The queue holds a failed attempt's error as soon as the attempt is over,
// not one attempt late.
func TestSenderRecordsErrorAtOnce(t *testing.T) {
	st := newSenderTest(t)
	st.srv.setRcptErr("alice@example.com", tempFail)
	st.q.add("m1", "alice@example.com")
	st.round(t, "attempt 1", "connect", "deferred 1")
	if m1 := st.q.get(1); m1.Attempts != 1 || !strings.Contains(m1.lastErr, "451") {
		t.Errorf("m1 = attempts %d err %q, want 1 and the 451", m1.Attempts, m1.lastErr)
	}
	st.clock = st.clock.Add(RetrySchedule[0])
	st.round(t, "attempt 1", "connect", "deferred 1")
	m1 := st.q.get(1)
	if want := st.clock.Add(RetrySchedule[1]); !m1.next.Equal(want) || m1.Attempts != 2 || !strings.Contains(m1.lastErr, "451") {
		t.Errorf("m1 = next %v attempts %d err %q, want %v 2 and the 451", m1.next, m1.Attempts, m1.lastErr, want)
	}
}

func TestSenderPermanentFailureIsDead(t *testing.T) {
	st := newSenderTest(t)
	st.srv.setRcptErr("nobody@example.com", permFail)
	st.q.add("m1", "nobody@example.com")
	st.q.add("m2", "bob@example.com")
	st.round(t, "attempt 1", "attempt 2", "connect", "data m2 to bob@example.com", "dead 1", "sent 2")
	if !strings.Contains(st.q.dead[1], "550") {
		t.Errorf("dead reason %q, want the 550", st.q.dead[1])
	}
}

// A big round goes out on several connections at once; a refusal on one
// of them does not stop the others.
func TestSenderBigRoundUsesSeveralConnections(t *testing.T) {
	st := newSenderTest(t)
	const n = 40
	var want []string
	for i := 1; i <= n; i++ {
		to := fmt.Sprintf("p%02d@example.com", i)
		st.q.add(fmt.Sprintf("m%d", i), to)
		want = append(want, fmt.Sprintf("attempt %d", i))
		switch i {
		case 7:
			st.srv.setRcptErr(to, tempFail)
			want = append(want, "deferred 7")
		case 9:
			st.srv.setRcptErr(to, permFail)
			want = append(want, "dead 9")
		default:
			want = append(want, fmt.Sprintf("data m%d to %s", i, to), fmt.Sprintf("sent %d", i))
		}
	}
	for range sendConns {
		want = append(want, "connect")
	}
	st.s.round(context.Background())
	got := st.log.take()
	// The attempts are written before any mail is sent, the outcomes after.
	if got[0] != "attempt 1" || !slices.IsSorted([]int{
		slices.Index(got, "attempt 40"), slices.Index(got, "connect"), slices.Index(got, "data m1 to p01@example.com")}) {
		t.Errorf("events out of order: %q", got)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("events:\n got %q\nwant %q", got, want)
	}
	// m7 waits for its retry, its 451 kept in the queue.
	if m7 := st.q.get(7); st.q.len() != 1 || m7.Attempts != 1 || !strings.Contains(m7.lastErr, "451") {
		t.Errorf("queue holds %d mails, m7 = %d attempts, error %q; want only m7, 1 attempt, the 451",
			st.q.len(), m7.Attempts, m7.lastErr)
	}
}

// When the connection breaks in the middle of a mail, that mail keeps its
// attempt and waits for its retry, with later mail to its recipients; the
// mails the session did not reach spend nothing and go as soon as the
// sender reconnects.
func TestSenderBrokenConnectionKeepsOrder(t *testing.T) {
	st := newSenderTest(t)
	st.srv.setDropAt("b@example.com")
	st.q.add("m1", "a@example.com")
	st.q.add("m2", "b@example.com")
	st.q.add("m3", "c@example.com")
	st.round(t, "attempt 1", "attempt 2", "attempt 3", "connect", "data m1 to a@example.com",
		"sent 1", "deferred 2", "relay 3")
	st.q.add("m4", "c@example.com")
	st.q.add("m5", "b@example.com")
	st.srv.setDropAt("")
	st.round(t) // within the reconnection backoff
	if m3 := st.q.get(3); m3.Attempts != 0 || !m3.next.Equal(st.clock) {
		t.Errorf("m3 not reached: attempts %d next %v, want 0 %v", m3.Attempts, m3.next, st.clock)
	}
	st.clock = st.clock.Add(RelaySchedule[0])
	st.round(t, "attempt 3", "connect", "data m3 to c@example.com", "sent 3")
	st.round(t, "attempt 4", "connect", "data m4 to c@example.com", "sent 4")
	st.round(t) // m5 waits behind m2
	st.clock = st.clock.Add(RetrySchedule[0])
	st.round(t, "attempt 2", "connect", "data m2 to b@example.com", "sent 2")
	st.round(t, "attempt 5", "connect", "data m5 to b@example.com", "sent 5")
}

func TestSenderFailureKinds(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(*smtpRecorder)
		status string // the queue's record of m1
	}{
		{"550 to RCPT", func(b *smtpRecorder) { b.rcptErr["a@example.com"] = permFail }, "dead"},
		{"451 to RCPT", func(b *smtpRecorder) { b.rcptErr["a@example.com"] = tempFail }, "deferred"},
		{"554 to the data", func(b *smtpRecorder) {
			b.dataErr = &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 6, 0}, Message: "content rejected"}
		}, "dead"},
		{"451 to the data", func(b *smtpRecorder) { b.dataErr = tempFail }, "deferred"},
		// The relay closing the session is the relay's failure.
		{"421 to RCPT", func(b *smtpRecorder) { b.rcptErr["a@example.com"] = closing }, "relay"},
		{"421 to the data", func(b *smtpRecorder) { b.dataErr = closing }, "relay"},
		// Our own address refused: every mail would fail of it; the relay's
		// failure too.
		{"550 to MAIL FROM", func(b *smtpRecorder) { b.mailErr = permFail }, "relay"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newSenderTest(t)
			tt.setup(st.srv)
			st.q.add("m1", "a@example.com")
			st.round(t, "attempt 1", "connect", tt.status+" 1")
			switch tt.status {
			case "deferred":
				m1 := st.q.get(1)
				if want := st.clock.Add(RetrySchedule[0]); m1.Attempts != 1 || !m1.next.Equal(want) {
					t.Errorf("m1: attempts %d next %v, want 1 %v", m1.Attempts, m1.next, want)
				}
			case "relay":
				m1 := st.q.get(1)
				if m1.Attempts != 0 || !m1.next.Equal(st.clock) || m1.lastErr == "" {
					t.Errorf("m1: attempts %d next %v error %q, want 0 %v and the error", m1.Attempts, m1.next, m1.lastErr, st.clock)
				}
				if !st.s.downUntil.After(st.clock) {
					t.Error("the sender did not back off")
				}
			}
		})
	}
}

func TestSenderGivesUpAfterSchedule(t *testing.T) {
	st := newSenderTest(t)
	st.srv.setRcptErr("alice@example.com", tempFail)
	st.q.add("m1", "alice@example.com")
	st.q.mails[0].Attempts = len(RetrySchedule) - 1
	st.round(t, "attempt 1", "connect", "dead 1")
	if !strings.Contains(st.q.dead[1], "gave up") || !strings.Contains(st.q.dead[1], "451") {
		t.Errorf("dead reason %q", st.q.dead[1])
	}
	// A mail whose last attempt was cut short (a crash) is not tried again.
	st.q.add("m2", "bob@example.com")
	st.q.mails[0].Attempts = len(RetrySchedule)
	st.round(t, "dead 2")
}

func TestSenderServerDownLosesNothing(t *testing.T) {
	st := newSenderTest(t)
	st.stop()
	st.q.add("m1", "alice@example.com")
	st.q.add("m2", "bob@example.com")
	// The dial fails: the attempts are taken back, the error kept.
	st.round(t, "attempt 1", "attempt 2", "relay 1", "relay 2")
	for _, id := range []uint64{1, 2} {
		if m := st.q.get(id); m.Attempts != 0 || !strings.Contains(m.lastErr, "dial") {
			t.Errorf("m%d: attempts %d error %q, want 0 and the dial error", id, m.Attempts, m.lastErr)
		}
	}
	// Within the connection backoff nothing is tried, whatever the wakes.
	st.round(t)

	addr, _ := startSMTPRecorder(t, st.srv, st.addr, nil, false)
	if addr != st.addr {
		t.Fatalf("restarted on %s, want %s", addr, st.addr)
	}
	st.clock = st.clock.Add(time.Minute)
	st.round(t, "attempt 1", "attempt 2", "connect", "data m1 to alice@example.com",
		"data m2 to bob@example.com", "sent 1", "sent 2")
}

// TestSenderRelayOutage is a relay outage on a fake clock: the relay is
// down for six hours while the robot goes on queueing mail (and one mail
// was refused for now just before); once the relay is back, the whole outbox
// is accepted within 60 s, each recipient's mail in order, no mail having
// spent its retries on the outage, and the sender never dialled in a tight
// loop meanwhile.
func TestSenderRelayOutage(t *testing.T) {
	st := newSenderTest(t)
	st.srv.setRcptErr("dave@example.com", tempFail)
	st.q.add("d1", "dave@example.com")
	st.round(t, "attempt 1", "connect", "deferred 1")
	st.srv.setRcptErr("dave@example.com", nil)
	st.stop()

	const outage = 6 * time.Hour
	start := st.clock
	players := []string{"alice@example.com", "bob@example.com", "carol@example.com"}
	nextMail, n := start, 0
	rounds := 0
	for st.clock.Before(start.Add(outage)) {
		for !nextMail.After(st.clock) { // a mail every 7 minutes, as the robot would queue them
			n++
			st.q.add(fmt.Sprint("g", n), players[n%len(players)])
			nextMail = nextMail.Add(7 * time.Minute)
		}
		next := st.s.round(context.Background())
		rounds++
		if !next.After(st.clock) {
			t.Fatalf("round at %v asks for the next at %v: a tight loop", st.clock.Sub(start), next.Sub(start))
		}
		st.clock = earliest(next, nextMail, start.Add(outage))
	}
	st.log.take()
	// At most one dial per 22.5 s (30 s jittered) once the backoff is at
	// its top; the first steps are shorter.
	if most := int(outage/(RelaySchedule[len(RelaySchedule)-1]*3/4)) + 2*n; rounds > most {
		t.Errorf("%d rounds during the outage, want at most %d", rounds, most)
	}
	// No mail spent a retry on the outage (d1 keeps the one of its 451),
	// and the first mail of each recipient shows the relay's error.
	head := map[string]bool{}
	for _, m := range st.q.mails {
		want := 0
		if m.ID == 1 {
			want = 1
		}
		if m.Attempts != want {
			t.Errorf("mail %d after the outage: %d attempts, want %d", m.ID, m.Attempts, want)
		}
		if !head[m.To[0]] && !strings.Contains(m.lastErr, "dial") {
			t.Errorf("mail %d, first to %s: error %q, want the relay's", m.ID, m.To[0], m.lastErr)
		}
		head[m.To[0]] = true
	}

	if _, stop := startSMTPRecorder(t, st.srv, st.addr, nil, false); stop == nil {
		t.Fatal("relay not restarted")
	}
	back := st.clock
	for st.q.len() > 0 && st.clock.Sub(back) <= time.Minute {
		if next := st.s.round(context.Background()); next.After(st.clock) {
			st.clock = next
		}
	}
	if left := st.q.len(); left > 0 {
		t.Fatalf("%d of %d mails still queued %v after the relay came back", left, n+1, st.clock.Sub(back))
	}
	t.Logf("%d mails queued over %v accepted %v after the relay came back", n+1, outage, st.clock.Sub(back))
	// Each recipient got its mails in the order they were queued.
	last := map[string]int{}
	for _, ev := range st.log.take() {
		var k int
		var to string
		if _, err := fmt.Sscanf(ev, "data g%d to %s", &k, &to); err == nil {
			if k < last[to] {
				t.Errorf("%s got g%d after g%d", to, k, last[to])
			}
			last[to] = k
		}
	}
}

func TestSenderAuthAndTLS(t *testing.T) {
	cert := netTestCert(t)
	tests := []struct {
		mode     string
		password string
		want     []string
	}{
		{TLSNone, "secret", []string{"attempt 1", "connect", "data m1 to a@example.com", "sent 1"}},
		// go-smtp starts a new session after STARTTLS.
		{TLSStartTLS, "secret", []string{"attempt 1", "connect", "connect", "data m1 to a@example.com", "sent 1"}},
		{TLSImplicit, "secret", []string{"attempt 1", "connect", "data m1 to a@example.com", "sent 1"}},
		// A refused login is the relay's failure (our configuration), not
		// the mail's.
		{TLSNone, "wrong", []string{"attempt 1", "connect", "relay 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.mode+"/"+tt.password, func(t *testing.T) {
			log := &eventLog{}
			q := newFakeQueue(log)
			srv := &smtpRecorder{log: log, rcptErr: map[string]*smtp.SMTPError{}, user: "robot", password: "secret"}
			var tlsCfg *tls.Config
			if tt.mode != TLSNone {
				tlsCfg = cert
			}
			addr, _ := startSMTPRecorder(t, srv, "127.0.0.1:0", tlsCfg, tt.mode == TLSImplicit)
			s := NewSender(SMTPConfig{Addr: addr, TLS: tt.mode, Username: "robot", Password: tt.password, InsecureSkipVerify: true}, q, nil)
			q.add("m1", "a@example.com")
			s.round(context.Background())
			if got := log.take(); !slices.Equal(got, tt.want) {
				t.Errorf("events %q, want %q", got, tt.want)
			}
			if len(q.dead) != 0 {
				t.Errorf("dead: %v", q.dead)
			}
		})
	}
}

// TestSenderRunWakes: with the sender's own poll an hour away, only Wake
// can make it send a mail queued while it sleeps (the test queues each mail
// once the sender has found the queue empty).
func TestSenderRunWakes(t *testing.T) {
	log := &eventLog{}
	q := newFakeQueue(log)
	srv := &smtpRecorder{log: log, rcptErr: map[string]*smtp.SMTPError{}}
	addr, _ := startSMTPRecorder(t, srv, "127.0.0.1:0", nil, false)
	s := NewSender(SMTPConfig{Addr: addr, TLS: TLSNone}, q, nil)
	s.poll = time.Hour
	slept := make(chan struct{}, 1)
	q.empty = slept
	sent := make(chan uint64, 10)
	s.OnSent = func(m QueuedMail, _ time.Time) { sent <- m.ID }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	for id := range uint64(3) {
		select { // the sender has found the queue empty: it goes to sleep
		case <-slept:
		case <-time.After(mailtest.Deadline):
			t.Fatal("the sender never went to sleep")
		}
		q.add(fmt.Sprint("m", id+1), "a@example.com")
		s.Wake()
		select {
		case got := <-sent:
			if got != id+1 {
				t.Fatalf("sent %d, want %d", got, id+1)
			}
		case <-time.After(mailtest.Deadline):
			t.Fatalf("mail %d not sent after Wake", id+1)
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run = %v after cancel, want nil", err)
		}
	case <-time.After(mailtest.Deadline):
		t.Fatal("Run did not return after cancel")
	}
}

func TestSMTPConfigValidate(t *testing.T) {
	tests := []struct {
		cfg  SMTPConfig
		want error
	}{
		{SMTPConfig{Addr: "127.0.0.1:25", TLS: TLSNone}, nil},
		{SMTPConfig{Addr: "smtp.example.com:587", TLS: TLSStartTLS}, nil},
		{SMTPConfig{Addr: "smtp.example.com:465"}, nil},
		{SMTPConfig{Addr: "smtp.example.com:25", TLS: TLSNone}, ErrNotLoopback},
		{SMTPConfig{Addr: "smtp.example.com:25", TLS: "tls"}, ErrBadConfig},
		{SMTPConfig{Addr: ":25", TLS: TLSNone}, ErrBadConfig},
	}
	for _, tt := range tests {
		err := tt.cfg.Validate()
		if !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
			t.Errorf("Validate(%+v) = %v, want %v", tt.cfg, err, tt.want)
		}
		if tt.want != nil {
			if err := NewSender(tt.cfg, newFakeQueue(&eventLog{}), nil).Run(context.Background()); !errors.Is(err, tt.want) {
				t.Errorf("Run(%+v) = %v, want %v", tt.cfg, err, tt.want)
			}
		}
	}
}

func earliest(ts ...time.Time) time.Time {
	return slices.MinFunc(ts, func(a, b time.Time) int { return a.Compare(b) })
}
