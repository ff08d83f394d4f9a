package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/web"
	"lyngk.example/lyngk/store"
)

// The web listener's limits. A request (headers and body) must arrive
// within webReadTimeout and its answer leave within webWriteTimeout; the
// event stream of a game page pushes its write deadline on before each
// event. Bodies (the /play/ form) are cut at webMaxBody.
const (
	webReadHeaderTimeout = 5 * time.Second
	webReadTimeout       = 10 * time.Second
	webWriteTimeout      = 30 * time.Second
	webIdleTimeout       = 2 * time.Minute
	webMaxHeader         = 16 << 10
	webMaxBody           = 16 << 10
)

// listenWeb opens the web listener. In local mode it must be loopback,
// like the local mail service.
func listenWeb(addr string, local bool) (net.Listener, error) {
	if local {
		host, _, err := net.SplitHostPort(addr)
		ip := net.ParseIP(host)
		if err != nil || (host != "localhost" && (ip == nil || !ip.IsLoopback())) {
			return nil, fmt.Errorf("-local-web %q: the local mode listens on loopback only (127.0.0.1:PORT)", addr)
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("web listener: %w", err)
	}
	return ln, nil
}

// serveWeb serves the web part on ln until ctx is done: every request's
// context ends with ctx too, so the open event streams close and Shutdown
// returns at once.
func serveWeb(ctx context.Context, ln net.Listener, db *store.DB, eng *engine.Engine, cfg config, m *metrics, mover web.Mover, log *slog.Logger) (*web.Handler, func(), error) {
	h, err := web.New(web.Config{DB: db, Engine: eng, Public: cfg.WebPublic, Log: log, Observe: m.web, Mover: mover,
		PostsPerGameHour: cfg.WebPostsPerGameHour, StreamsPerClient: cfg.WebStreamsPerClient, Base: cfg.webBase(),
		Review: true})
	if err != nil {
		return nil, nil, err
	}
	srv := &http.Server{
		Handler:           http.MaxBytesHandler(h, webMaxBody),
		ReadHeaderTimeout: webReadHeaderTimeout,
		ReadTimeout:       webReadTimeout,
		WriteTimeout:      webWriteTimeout,
		IdleTimeout:       webIdleTimeout,
		MaxHeaderBytes:    webMaxHeader,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("web listener stopped", "error", err)
		}
	}()
	stop := func() {
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			srv.Close()
		}
		<-done
	}
	return h, stop, nil
}
