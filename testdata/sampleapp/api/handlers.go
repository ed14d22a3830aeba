// Package api exposes the user service over HTTP.
package api

import (
	"encoding/json"
	"net/http"

	"example.com/sampleapp/users"
)

// Handler serves the users API.
type Handler struct {
	svc *users.Service
}

// NewHandler returns a handler for svc.
func NewHandler(svc *users.Service) *Handler {
	return &Handler{svc: svc}
}

// ServeUser answers GET /users/{id}.
func (h *Handler) ServeUser(w http.ResponseWriter, r *http.Request) {
	u, err := h.svc.GetUser(r.Context(), r.PathValue("id"))
	if err != nil {
		writeError(w, http.StatusNotFound, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(u)
}

func writeError(w http.ResponseWriter, status int, err error) {
	http.Error(w, err.Error(), status)
}
