package web

import (
	"errors"
	"fmt"
	"net/http"

	"lyngk.example/lyngk/engine"
)

// The game records (package record): /game/N.txt, the plain text record,
// and /game/N.sgf, boardspace's SGF, each of the whole game whatever the
// position shown (no after=K); /player/NAME/games.sgf, the player's newest
// finished games as one SGF collection (engine.MaxCollection of them,
// read without replaying: a page's cost). Each is a download named after
// the game ("lyngk-101.sgf").

// gameRecord answers /game/N.txt and /game/N.sgf; ext is "txt" or "sgf".
func (h *Handler) gameRecord(w http.ResponseWriter, r *http.Request, n, ext string) {
	if _, set := r.URL.Query()["after"]; set {
		h.fail(w, r, http.StatusBadRequest, "A record holds the whole game: no after=K.")
		return
	}
	ref, ok := h.readGame(w, r, n)
	if !ok {
		return
	}
	d := ref.d
	data, ctype := d.TextRecord(), "text/plain; charset=utf-8"
	if ext == "sgf" {
		var err error
		data, err = d.SGF()
		if errors.Is(err, engine.ErrNoSGF) {
			h.fail(w, r, http.StatusNotFound, fmt.Sprintf("There is no SGF record of %s games.", d.Title))
			return
		}
		if err != nil {
			h.serverError(w, r, err)
			return
		}
		ctype = "application/x-go-sgf; charset=utf-8"
	}
	w.Header().Set("Content-Disposition", fmt.Sprintf(`inline; filename="%s-%d.%s"`, d.Game, d.Board, ext))
	h.send(w, r, ctype, data)
}

// playerSGF answers /player/NAME/games.sgf.
func (h *Handler) playerSGF(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var data []byte
	err := h.cfg.Store.View(func(tx engine.Tx) error {
		var err error
		data, err = h.cfg.Engine.Collection(tx, id)
		return err
	})
	if h.playerFailed(w, r, id, err) {
		return
	}
	w.Header().Set("Content-Disposition", `inline; filename="games.sgf"`)
	h.send(w, r, "application/x-go-sgf; charset=utf-8", data)
}
