package web

import (
	"bytes"
	"encoding/json"
	"net/http"
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

// boardPNG is /game/N/board.png[?after=K]: the very picture of the mails.
func (h *Handler) boardPNG(w http.ResponseWriter, r *http.Request) {
	ref, ok := h.readGame(w, r, r.PathValue("n"))
	if !ok {
		return
	}
	pic := ref.game.Picture
	if pic == nil {
		h.fail(w, r, http.StatusNotFound, "This game has no picture.")
		return
	}
	data, err := pic.PNG(ref.pos, ref.d.Players, ref.legend())
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.send(w, r, "image/png", data)
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
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(j); err != nil {
		h.serverError(w, r, err)
		return
	}
	h.send(w, r, "application/json", b.Bytes())
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
