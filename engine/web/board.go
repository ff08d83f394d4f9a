package web

import (
	"net/http"
	"strings"
)

// boardSVG is /game/N/board.svg[?after=K]: the picture of the mails, as
// SVG.
func (h *Handler) boardSVG(w http.ResponseWriter, r *http.Request) {
	ref, ok := h.readGame(w, r, r.PathValue("n"))
	if !ok {
		return
	}
	pic := ref.game.Picture
	if pic == nil {
		h.fail(w, r, http.StatusNotFound, "This game has no picture.")
		return
	}
	data, err := pic.SVG(ref.pos, ref.d.Players, ref.legend())
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.send(w, r, "image/svg+xml", data)
}

// boardPNG is /game/N/board.png[?after=K]: the very picture of the mails,
// from the engine's memory when a mail or a request drew it before (one
// picture per position). Its ETag names the position (the moves that led
// to it, the players, how the game ended): a request that sends it back
// (If-None-Match) is answered 304. How long a browser may keep it without
// asking (Cache-Control):
//   - a finished game's positions never change: a year, immutable;
//   - a past position of a running game (?after=K before the last move)
//     changes only if take-backs go back beyond move K, which they can
//     one move at a time: an hour, so that such a rare change is seen
//     within the hour, not never;
//   - the current position of a running game changes with the next move:
//     no-cache (asked again each time; the ETag makes that cheap).
func (h *Handler) boardPNG(w http.ResponseWriter, r *http.Request) {
	ref, ok := h.readGame(w, r, r.PathValue("n"))
	if !ok {
		return
	}
	if ref.game.Picture == nil {
		h.fail(w, r, http.StatusNotFound, "This game has no picture.")
		return
	}
	data, etag, err := h.cfg.Engine.PNG(ref.game, ref.d.Board, ref.pos, ref.d.Players, ref.legend())
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	cache := "no-cache"
	switch {
	case ref.d.Over():
		cache = "public, max-age=31536000, immutable"
	case ref.k < len(ref.d.MoveList):
		cache = "public, max-age=3600"
	}
	w.Header().Set("ETag", etag)
	w.Header().Set("Cache-Control", cache)
	if etagMatch(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(data)
	}
}

// etagMatch says whether the If-None-Match header h names etag (or is
// "*").
func etagMatch(h, etag string) bool {
	for t := range strings.SplitSeq(h, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == etag {
			return true
		}
	}
	return false
}

// legend is what the picture of ref says beyond its position: how the game
// ended for each player, by their names (engine.GameSummary.Marks), when it
// is the last position of an ended game, which the position alone cannot
// tell after a resignation, forfeit, agreed draw or cancellation.
func (ref *gameRef) legend() *[2]string {
	if ref.k != len(ref.d.MoveList) || !ref.d.Over() {
		return nil
	}
	marks := ref.d.Marks()
	return &marks
}

// gameJSON is /game/N.json: engine.GameJSON, the fields of `lyngk analyze
// -json` and the game's. It has no ?after=K: positions holds them all.
func (h *Handler) gameJSON(w http.ResponseWriter, r *http.Request, n string) {
	if _, set := r.URL.Query()["after"]; set {
		h.fail(w, r, http.StatusBadRequest, "The JSON has every position in positions: no after=K.")
		return
	}
	ref, ok := h.readGame(w, r, n)
	if !ok {
		return
	}
	j, err := ref.d.JSON()
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.sendJSON(w, r, j)
}

// send writes data as the whole answer. Nothing is cached for long: a
// take-back changes what "after move K" is.
func (h *Handler) send(w http.ResponseWriter, r *http.Request, contentType string, data []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(data)
	}
}
