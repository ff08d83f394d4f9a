package web

import "net/http"

// The /play/TOKEN pages, moving by click, are helper play's (issue 14,
// item 3): until they land, every token is unknown.

func (h *Handler) playPage(w http.ResponseWriter, r *http.Request) {
	h.fail(w, r, http.StatusNotFound, "This link is not (or no longer) valid.")
}

func (h *Handler) playMove(w http.ResponseWriter, r *http.Request) {
	h.fail(w, r, http.StatusNotFound, "This link is not (or no longer) valid.")
}
