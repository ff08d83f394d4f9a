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

// fakeQueue is an in-memory Queue that logs every call.
type fakeQueue struct {
	log    *eventLog
	mu     sync.Mutex
	mails  []*fakeQueued // ID order
	dead   map[uint64]string
	lastID uint64
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
	for _, m := range q.mails {
		if !m.next.After(now) && len(due) < max {
			due = append(due, m.QueuedMail)
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

func (q *fakeQueue) RecordAttempts(as []Attempt) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, a := range as {
		_, m := q.find(a.ID)
		m.Attempts++
		m.next, m.lastErr = a.Next, a.Err
		q.log.add("attempt %d", a.ID)
	}
	return nil
}

func (q *fakeQueue) Sent(ids []uint64) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, id := range ids {
		i, _ := q.find(id)
		q.mails = slices.Delete(q.mails, i, i+1)
		q.log.add("sent %d", id)
	}
	return nil
}

func (q *fakeQueue) Dead(id uint64, errText string) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	i, _ := q.find(id)
	q.mails = slices.Delete(q.mails, i, i+1)
	q.dead[id] = errText
	q.log.add("dead %d", id)
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
)

func TestSenderInOrderOnOneConnection(t *testing.T) {
	st := newSenderTest(t)
	st.q.add("m1", "a@example.com")
	st.q.add("m2", "b@example.com", "c@example.com")
	st.q.add("m3", "a@example.com")
	var sent []uint64
	st.s.OnSent = func(m QueuedMail, _ time.Time) { sent = append(sent, m.ID) }
	// The attempt is recorded before the connection is made.
	// The rest of the round is recorded in one write once connected, and
	// the accepted mails in one write at the end. m3 goes to a recipient of
	// m1, so it waits for the next round.
	st.round(t, "attempt 1", "connect", "attempt 2", "data m1 to a@example.com",
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
	st.round(t, "attempt 1", "connect", "attempt 2", "data m2 to bob@example.com", "sent 2")
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

func TestSenderRetryRecordsLastError(t *testing.T) {
	st := newSenderTest(t)
	st.srv.setRcptErr("alice@example.com", tempFail)
	st.q.add("m1", "alice@example.com")
	st.round(t, "attempt 1", "connect")
	st.clock = st.clock.Add(RetrySchedule[0])
	st.round(t, "attempt 1", "connect")
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
	// The round's outcomes are written once its submissions are done.
	st.round(t, "attempt 1", "connect", "attempt 2", "data m2 to bob@example.com", "dead 1", "sent 2")
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
	if got[0] != "attempt 1" || got[1] != "connect" || !slices.IsSorted([]int{
		slices.Index(got, "attempt 40"), slices.Index(got, "data m1 to p01@example.com")}) {
		t.Errorf("events out of order: %q", got)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("events:\n got %q\nwant %q", got, want)
	}
	// m7 waits for its retry, its 451 kept for the next attempt's record.
	if m7 := st.q.get(7); st.q.len() != 1 || m7.Attempts != 1 || !strings.Contains(st.s.lastErr[7], "451") {
		t.Errorf("queue holds %d mails, m7 = %d attempts, error %q; want only m7, 1 attempt, the 451",
			st.q.len(), m7.Attempts, st.s.lastErr[7])
	}
}

// When the connection breaks in the middle of a round, the mails it did not
// reach keep their attempt and wait for their retry, and so does later mail
// to their recipients.
func TestSenderBrokenConnectionKeepsOrder(t *testing.T) {
	st := newSenderTest(t)
	st.srv.setDropAt("b@example.com")
	st.q.add("m1", "a@example.com")
	st.q.add("m2", "b@example.com")
	st.q.add("m3", "c@example.com")
	st.round(t, "attempt 1", "connect", "attempt 2", "attempt 3", "data m1 to a@example.com", "sent 1")
	st.q.add("m4", "c@example.com")
	st.round(t) // m4 waits behind m3
	st.srv.setDropAt("")
	st.clock = st.clock.Add(RetrySchedule[0])
	st.round(t, "attempt 2", "connect", "attempt 3", "data m2 to b@example.com",
		"data m3 to c@example.com", "sent 2", "sent 3")
	st.round(t, "attempt 4", "connect", "data m4 to c@example.com", "sent 4")
}

func TestSenderFailureKinds(t *testing.T) {
	tests := []struct {
		name  string
		setup func(*smtpRecorder)
		dead  bool
	}{
		{"550 to RCPT", func(b *smtpRecorder) { b.rcptErr["a@example.com"] = permFail }, true},
		{"451 to RCPT", func(b *smtpRecorder) { b.rcptErr["a@example.com"] = tempFail }, false},
		{"554 to the data", func(b *smtpRecorder) {
			b.dataErr = &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 6, 0}, Message: "content rejected"}
		}, true},
		{"451 to the data", func(b *smtpRecorder) { b.dataErr = tempFail }, false},
		// Our own address refused: every mail would die of it; keep them.
		{"550 to MAIL FROM", func(b *smtpRecorder) { b.mailErr = permFail }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newSenderTest(t)
			tt.setup(st.srv)
			st.q.add("m1", "a@example.com")
			want := []string{"attempt 1", "connect"}
			if tt.dead {
				want = append(want, "dead 1")
			}
			st.round(t, want...)
			if !tt.dead {
				m1 := st.q.get(1)
				if want := st.clock.Add(RetrySchedule[0]); m1.Attempts != 1 || !m1.next.Equal(want) {
					t.Errorf("m1: attempts %d next %v, want 1 %v", m1.Attempts, m1.next, want)
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
	st.round(t, "attempt 1") // dial fails: only the mail being tried is charged
	if st.q.len() != 2 {
		t.Fatalf("queue has %d mails, want 2", st.q.len())
	}
	// Within the connection backoff nothing is tried, whatever the wakes.
	st.round(t)

	addr, _ := startSMTPRecorder(t, st.srv, st.addr, nil, false)
	if addr != st.addr {
		t.Fatalf("restarted on %s, want %s", addr, st.addr)
	}
	st.clock = st.clock.Add(time.Minute)
	st.round(t, "attempt 1", "connect", "attempt 2", "data m1 to alice@example.com",
		"data m2 to bob@example.com", "sent 1", "sent 2")
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
		// A refused login is the configuration's fault, not the mail's.
		{TLSNone, "wrong", []string{"attempt 1", "connect"}},
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

func TestSenderRunWakes(t *testing.T) {
	log := &eventLog{}
	q := newFakeQueue(log)
	srv := &smtpRecorder{log: log, rcptErr: map[string]*smtp.SMTPError{}}
	addr, _ := startSMTPRecorder(t, srv, "127.0.0.1:0", nil, false)
	s := NewSender(SMTPConfig{Addr: addr, TLS: TLSNone}, q, nil)
	sent := make(chan uint64, 10)
	s.OnSent = func(m QueuedMail, _ time.Time) { sent <- m.ID }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	for id := range uint64(3) {
		q.add(fmt.Sprint("m", id+1), "a@example.com")
		s.Wake()
		select {
		case got := <-sent:
			if got != id+1 {
				t.Fatalf("sent %d, want %d", got, id+1)
			}
		case <-time.After(testDeadline):
			t.Fatalf("mail %d not sent after Wake", id+1)
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run = %v after cancel, want nil", err)
		}
	case <-time.After(testDeadline):
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
