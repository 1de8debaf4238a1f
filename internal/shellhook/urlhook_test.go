package shellhook

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/protocol"
)

func TestURLHook(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/block", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"action":"block","message":"` + r.Header.Get("X-Token") + `"}`))
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/block", http.StatusFound)
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"action":"block","message":"` + strings.Repeat("x", URLResponseLimit) + `"}`))
	})
	mux.HandleFunc("/down", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"action":"block"}`, http.StatusServiceUnavailable)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	tests := []struct {
		name       string
		path       string
		failClosed bool
		status     dispatch.Status
		kind       protocol.Kind
		message    string
	}{
		{"a 2xx body is the answer, with the allowed variable expanded", "/block", false, dispatch.StatusOK, protocol.Block, "tok"},
		{"a redirect is not followed: the approved URL must answer", "/moved", false, dispatch.StatusError, protocol.None, ""},
		{"an error status is a failed hook, whatever its body says", "/down", false, dispatch.StatusError, protocol.None, ""},
		{"an error status under fail_closed blocks", "/down", true, dispatch.StatusError, protocol.Block, "hook " + srv.URL + "/down failed closed: HTTP 503 Service Unavailable: {\"action\":\"block\"}"},
		{"a body over the bound is cut and not read", "/huge", false, dispatch.StatusOK, protocol.None, ""},
		{"a body over the bound under fail_closed blocks", "/huge", true, dispatch.StatusError, protocol.Block, "hook " + srv.URL + "/huge failed closed: unparseable stdout (expected a JSON object)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &URLHook{Config: config.ShellHook{
				Event: protocol.PreToolCall, URL: srv.URL + tt.path, Command: srv.URL + tt.path, Timeout: 30 * time.Second, FailClosed: tt.failClosed,
				Headers: []config.Header{{Name: "X-Token", Value: "$TOKEN$SECRET"}}, AllowedEnvVars: []string{"TOKEN"},
			}}
			call := dispatch.Call{Event: mustEvent(t, protocol.PreToolCall), Kwargs: mustKwargs(t, `{"tool_name":"terminal"}`), Env: []string{"TOKEN=tok", "SECRET=nope"}}
			res := h.Run(context.Background(), call)
			if res.Status != tt.status || res.Answer.Kind != tt.kind || res.Answer.Message != tt.message {
				t.Errorf("got %s %v %q (warnings %q), want %s %v %q", res.Status, res.Answer.Kind, res.Answer.Message, res.Warnings, tt.status, tt.kind, tt.message)
			}
		})
	}
}
