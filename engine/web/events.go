package web

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"lyngk.example/lyngk/engine"
)

// The event stream's timing: a comment line every streamPing keeps proxies
// and the browser from taking the stream for dead (and looks at the game
// again, whatever woke it); each write must leave within streamWrite.
const (
	streamPing  = 25 * time.Second
	streamWrite = 10 * time.Second
	streamRetry = 2000 // ms: how soon the browser reconnects
)

// events is /game/N/events, Server-Sent Events: at once an event "version"
// with the game's version (engine.GameVersion, as in the page's
// data-version), then one each time the game changes. The page compares
// it with its own and fetches itself again when they differ, so a change
// made between the page's reading and the stream's start is not lost.
func (h *Handler) events(w http.ResponseWriter, r *http.Request) {
	board, ok := number(r.PathValue("n"))
	if !ok {
		h.fail(w, r, http.StatusBadRequest, "A board number is a whole number, like /game/12/events.")
		return
	}
	version := func() (v uint64, err error) {
		err = h.cfg.Store.View(func(tx engine.Tx) error {
			v, err = engine.GameVersion(tx, board)
			return err
		})
		return v, err
	}
	// The channel is taken before the version is read: a change committed
	// after the reading closes it.
	changed := h.cfg.Store.Changed()
	v, err := version()
	switch {
	case errors.Is(err, engine.ErrNoGame):
		h.fail(w, r, http.StatusNotFound, fmt.Sprintf("There is no board %d.", board))
		return
	case err != nil:
		h.serverError(w, r, err)
		return
	}
	client := clientOf(r)
	if !h.openStream(client) {
		w.Header().Set("Retry-After", "60")
		h.fail(w, r, http.StatusServiceUnavailable, "Too many pages of this server are open from your address: close some, or reload this one later.")
		return
	}
	defer h.closeStream(client)
	select {
	case h.streams <- struct{}{}:
		defer func() { <-h.streams }()
	default:
		w.Header().Set("Retry-After", "60")
		h.fail(w, r, http.StatusServiceUnavailable, "Too many pages are open: reload this one later.")
		return
	}
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	// nginx buffers a proxied answer unless told not to.
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	send := func(format string, args ...any) bool {
		rc.SetWriteDeadline(time.Now().Add(streamWrite))
		if _, err := fmt.Fprintf(w, format, args...); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if !send("retry: %d\nevent: version\ndata: %d\n\n", streamRetry, v) {
		return
	}
	ping := time.NewTicker(streamPing)
	defer ping.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-changed:
		case <-ping.C:
			if !send(": ping\n\n") {
				return
			}
		}
		changed = h.cfg.Store.Changed()
		now, err := version()
		if err != nil {
			h.log.Error("web: event stream", "route", routeOf(r), "error", err)
			return
		}
		if now != v {
			v = now
			if !send("event: version\ndata: %d\n\n", v) {
				return
			}
		}
	}
}

// clientOf is the address a request comes from: the peer's, or, when the
// peer is a reverse proxy on loopback, the last address of its
// X-Forwarded-For (the one the proxy appended). Anybody else's
// X-Forwarded-For is not believed.
func clientOf(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		if xff := r.Header.Values("X-Forwarded-For"); len(xff) > 0 {
			parts := strings.Split(xff[len(xff)-1], ",")
			if last := strings.TrimSpace(parts[len(parts)-1]); last != "" {
				return last
			}
		}
	}
	return host
}

// openStream counts an event stream of client, or says no when client has
// Config.StreamsPerClient open: one client cannot hold every stream.
func (h *Handler) openStream(client string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if n := h.cfg.StreamsPerClient; n > 0 && h.clients[client] >= n {
		return false
	}
	h.clients[client]++
	return true
}

// closeStream forgets an event stream of client.
func (h *Handler) closeStream(client string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.clients[client]--; h.clients[client] <= 0 {
		delete(h.clients, client)
	}
}
