package main

import (
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/mailer"
	"lyngk.example/lyngk/store"
)

// metrics are the daemon's Prometheus metrics, served with /healthz on the
// optional metrics_addr listener. A nil *metrics records nothing, so the
// code that counts never needs to ask whether metrics are on.
type metrics struct {
	reg            *prometheus.Registry
	mails          *prometheus.CounterVec
	mailSeconds    prometheus.Histogram
	imapReconnects prometheus.Counter
	replySeconds   prometheus.Histogram
	inboxSeconds   prometheus.Histogram
	webRequests    *prometheus.CounterVec
	webSeconds     *prometheus.HistogramVec
	strangerDrop   prometheus.Counter
	writeSeconds   *prometheus.HistogramVec
}

func newMetrics(db *store.DB) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		mails: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "lyngk_mails_processed_total",
			Help: "Incoming mails by outcome (applied, duplicate, ignored, rejected, failed, bounce).",
		}, []string{"outcome"}),
		mailSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "lyngk_mail_processing_seconds",
			Help:    "Time from a fetched mail to its committed transaction.",
			Buckets: []float64{.0005, .001, .002, .005, .01, .02, .05, .1, .25, 1},
		}),
		replySeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "lyngk_reply_seconds",
			Help:    "The server's own share of a mail sent: from its cause in hand (incoming mail or timer) to its acceptance by the SMTP server.",
			Buckets: []float64{.001, .002, .005, .01, .02, .05, .1, .25, .5, 1, 5},
		}),
		inboxSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "lyngk_inbox_seconds",
			Help:    "Time from the IMAP server's news of a mail (or the poll that found it) to the mail moved out of the inbox, applied.",
			Buckets: []float64{.01, .02, .05, .1, .25, .5, 1, 2, 5, 10, 30},
		}),
		imapReconnects: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "lyngk_imap_reconnects_total",
			Help: "IMAP connections made after the first.",
		}),
		webRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "lyngk_http_requests_total",
			Help: "Requests to the web part by path (the route: /play/{token}, never a token) and status code.",
		}, []string{"path", "status"}),
		webSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "lyngk_http_request_seconds",
			Help:    "Time to answer a request to the web part, by path (the route); an event stream counts when it closes.",
			Buckets: []float64{.001, .002, .005, .01, .02, .05, .1, .25, 1, 10, 60},
		}, []string{"path"}),
		writeSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "lyngk_write_lock_seconds",
			Help:    "Time a unit of work held the store's write lock (its transaction, fsync included), by work: mail, web move, robot move, timers, admin.",
			Buckets: []float64{.001, .002, .005, .01, .02, .05, .1, .25, 1},
		}, []string{"work"}),
		strangerDrop: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "lyngk_stranger_mails_dropped_total",
			Help: "Mails to strangers (no confirmed address) dropped past their share of mails_per_day (stranger_share), since the daemon started.",
		}),
	}
	for _, o := range []outcome{outcomeApplied, outcomeDuplicate, outcomeIgnored, outcomeRejected, outcomeFailed, outcomeBounce} {
		m.mails.WithLabelValues(string(o))
	}
	m.reg.MustRegister(m.mails, m.mailSeconds, m.replySeconds, m.inboxSeconds, m.imapReconnects,
		m.webRequests, m.webSeconds, m.strangerDrop, m.writeSeconds,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		&storeCollector{db: db})
	return m
}

// passwordChecks counts the bcrypt checks run before the write
// transaction (in the pool) and inside it (a forecast missed).
func (m *metrics) passwordChecks(pool *checkPool, eng *engine.Engine) {
	if m == nil {
		return
	}
	opts := func(where string) prometheus.CounterOpts {
		return prometheus.CounterOpts{Name: "lyngk_password_checks_total",
			Help:        "Password checks with bcrypt, by where they ran: the pool before the write transaction, or inside it.",
			ConstLabels: prometheus.Labels{"where": where}}
	}
	m.reg.MustRegister(
		prometheus.NewCounterFunc(opts("pool"), func() float64 { return float64(pool.done.Load()) }),
		prometheus.NewCounterFunc(opts("transaction"), func() float64 { return float64(eng.InlineChecks()) }))
}

// pictures counts the board pictures drawn before the write transaction,
// inside it (a forecast missed) and for the web.
func (m *metrics) pictures(eng *engine.Engine) {
	if m == nil {
		return
	}
	opts := func(where string) prometheus.CounterOpts {
		return prometheus.CounterOpts{Name: "lyngk_pictures_drawn_total",
			Help:        "Board pictures (PNG) drawn, by where: before the write transaction, inside it, or for the web; a picture kept in memory is not drawn again.",
			ConstLabels: prometheus.Labels{"where": where}}
	}
	count := func(i int) func() float64 {
		return func() float64 {
			b, t, w := eng.PicturesDrawn()
			return float64([3]int64{b, t, w}[i])
		}
	}
	m.reg.MustRegister(
		prometheus.NewCounterFunc(opts("before"), count(0)),
		prometheus.NewCounterFunc(opts("transaction"), count(1)),
		prometheus.NewCounterFunc(opts("web"), count(2)))
}

func (m *metrics) mail(o outcome, d time.Duration) {
	if m == nil {
		return
	}
	m.mails.WithLabelValues(string(o)).Inc()
	m.mailSeconds.Observe(d.Seconds())
}

// held records how long a unit of work held the write lock
// (daemon.Config.Held).
func (m *metrics) held(work string, d time.Duration) {
	if m != nil {
		m.writeSeconds.WithLabelValues(work).Observe(d.Seconds())
	}
}

// strangerDrops counts n strangers' mails dropped past their share.
func (m *metrics) strangerDrops(n int) {
	if m != nil {
		m.strangerDrop.Add(float64(n))
	}
}

func (m *metrics) reply(d time.Duration) {
	if m == nil {
		return
	}
	m.replySeconds.Observe(d.Seconds())
}

// web records one request to the web part.
func (m *metrics) web(route string, status int, d time.Duration) {
	if m == nil {
		return
	}
	m.webRequests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	m.webSeconds.WithLabelValues(route).Observe(d.Seconds())
}

// inbox records one mail's time in the poller's hands.
func (m *metrics) inbox(t mailer.MailTiming) {
	if m == nil {
		return
	}
	m.inboxSeconds.Observe(t.Marked.Sub(t.Notified).Seconds())
}

// serve starts the HTTP listener with /metrics and /healthz; it returns
// the address it bound (addr may ask for port 0).
func (m *metrics) serve(addr string, log *slog.Logger) (*http.Server, net.Addr, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	// Profiles for an operator chasing a slow server; the listener is meant
	// for loopback or an internal network, like the metrics themselves.
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("ok\n"))
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics listener stopped", "error", err)
		}
	}()
	return srv, ln.Addr(), nil
}

// storeCollector reads gauges from the store at scrape time: outbox depth
// and age, dead letters, games started, finished and cancelled, reviews
// owed.
type storeCollector struct{ db *store.DB }

var (
	descOutbox    = prometheus.NewDesc("lyngk_outbox_depth", "Mails waiting in the outbox.", nil, nil)
	descOldest    = prometheus.NewDesc("lyngk_outbox_oldest_age_seconds", "Age of the oldest queued mail (0 when empty).", nil, nil)
	descDead      = prometheus.NewDesc("lyngk_outbox_dead_letters", "Mails given up after a permanent failure.", nil, nil)
	descGames     = prometheus.NewDesc("lyngk_games_started_total", "Games started since the store was created.", nil, nil)
	descFinished  = prometheus.NewDesc("lyngk_games_finished_total", "Games played to an end (won, tie, agreed draw, resigned, forfeit) since the store was created.", nil, nil)
	descCancelled = prometheus.NewDesc("lyngk_games_cancelled_total", "Games cancelled (declined, resigned or drawn before both moved, timed out unplayed) since the store was created.", nil, nil)
	descBouncing  = prometheus.NewDesc("lyngk_bouncing_addresses", "Confirmed addresses marked bouncing: no mail goes to them but confirmations.", nil, nil)
	descSent24h   = prometheus.NewDesc("lyngk_mails_sent_24h", "Recipients sent to in the last 24 hours, all mails together (what mails_per_day caps).", nil, nil)
	descDayCap    = prometheus.NewDesc("lyngk_mails_per_day_cap", "The mails_per_day setting (0: no cap).", nil, nil)
	descDayHeld   = prometheus.NewDesc("lyngk_outbox_held_by_daily_cap", "1 while mails_per_day holds all outgoing mail in the outbox, else 0.", nil, nil)
	descStrangers = prometheus.NewDesc("lyngk_stranger_mails_sent_24h", "Recipients sent to in the last 24 hours that were strangers (no confirmed address), of lyngk_mails_sent_24h.", nil, nil)
	descStrCap    = prometheus.NewDesc("lyngk_stranger_mails_per_day_cap", "The strangers' share of mails_per_day in recipients (stranger_share; 0: no cap).", nil, nil)
	descDropped   = prometheus.NewDesc("lyngk_stranger_mails_dropped_24h", "Stranger recipients whose mail was dropped past their share in the last 24 hours.", nil, nil)
	descReviews   = prometheus.NewDesc("lyngk_reviews_owed", "Games ended whose game-over mails are held for the robot's review (the review worker's backlog; each goes within a minute).", nil, nil)
	storeDescList = []*prometheus.Desc{descOutbox, descOldest, descDead, descGames, descFinished, descCancelled, descBouncing,
		descSent24h, descDayCap, descDayHeld, descStrangers, descStrCap, descDropped, descReviews}
)

func (c *storeCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range storeDescList {
		ch <- d
	}
}

func (c *storeCollector) Collect(ch chan<- prometheus.Metric) {
	_ = c.db.View(func(tx *store.Tx) error {
		queued, dead, oldest, err := tx.OutboxStats()
		if err != nil {
			return err
		}
		age := 0.0
		if queued > 0 {
			age = time.Since(oldest).Seconds()
		}
		started, finished, cancelled, err := countGames(tx)
		if err != nil {
			return err
		}
		ch <- prometheus.MustNewConstMetric(descOutbox, prometheus.GaugeValue, float64(queued))
		ch <- prometheus.MustNewConstMetric(descOldest, prometheus.GaugeValue, age)
		ch <- prometheus.MustNewConstMetric(descDead, prometheus.GaugeValue, float64(dead))
		ch <- prometheus.MustNewConstMetric(descGames, prometheus.CounterValue, float64(started))
		ch <- prometheus.MustNewConstMetric(descFinished, prometheus.CounterValue, float64(finished))
		ch <- prometheus.MustNewConstMetric(descCancelled, prometheus.CounterValue, float64(cancelled))
		bounces, err := engine.Bounces(tx)
		if err != nil {
			return err
		}
		n := 0
		for _, b := range bounces {
			if !b.Bouncing.IsZero() {
				n++
			}
		}
		ch <- prometheus.MustNewConstMetric(descBouncing, prometheus.GaugeValue, float64(n))
		d, err := tx.DailySent(time.Now())
		if err != nil {
			return err
		}
		held := 0.0
		if d.Held() {
			held = 1
		}
		ch <- prometheus.MustNewConstMetric(descSent24h, prometheus.GaugeValue, float64(d.Recipients))
		ch <- prometheus.MustNewConstMetric(descDayCap, prometheus.GaugeValue, float64(d.Cap))
		ch <- prometheus.MustNewConstMetric(descDayHeld, prometheus.GaugeValue, held)
		ch <- prometheus.MustNewConstMetric(descStrangers, prometheus.GaugeValue, float64(d.Strangers))
		ch <- prometheus.MustNewConstMetric(descStrCap, prometheus.GaugeValue, float64(d.StrangerCap))
		ch <- prometheus.MustNewConstMetric(descDropped, prometheus.GaugeValue, float64(d.Dropped))
		owed, err := engine.ReviewsOwed(tx)
		if err != nil {
			return err
		}
		ch <- prometheus.MustNewConstMetric(descReviews, prometheus.GaugeValue, float64(owed))
		return nil
	})
}
