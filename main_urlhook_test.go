package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdPolicyServer starts a policy service for URL hooks:
//
//	policyserver NAME
//
// It sets NAME_URL (upper case) to its address. Each POST is answered with
// the status in $WORK/NAME.status (default 200), after the delay in
// $WORK/NAME.delay (a Go duration, default none), with the body of
// $WORK/NAME.answer (default empty). It records the request body in
// $WORK/NAME.request and its headers, one "Name: value" a line, sorted, in
// $WORK/NAME.headers. The files are read at each request, so a script can
// change the answer between calls.
func cmdPolicyServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: policyserver NAME")
	}
	name := args[0]
	dir := ts.MkAbs(".")
	read := func(suffix string) string {
		b, _ := os.ReadFile(filepath.Join(dir, name+suffix))
		return strings.TrimSpace(string(b))
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
		var headers []string
		for k, vs := range r.Header {
			for _, v := range vs {
				headers = append(headers, k+": "+v)
			}
		}
		sort.Strings(headers)
		_ = os.WriteFile(filepath.Join(dir, name+".request"), body, 0o644)
		_ = os.WriteFile(filepath.Join(dir, name+".headers"), []byte(strings.Join(headers, "\n")+"\n"), 0o644)
		if d, err := time.ParseDuration(read(".delay")); err == nil {
			select {
			case <-time.After(d):
			case <-r.Context().Done():
				return
			}
		}
		status := 200
		if s := read(".status"); s != "" {
			fmt.Sscan(s, &status)
		}
		w.WriteHeader(status)
		b, _ := os.ReadFile(filepath.Join(dir, name+".answer"))
		_, _ = w.Write(b)
	}))
	ts.Defer(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	ts.Setenv(strings.ToUpper(name)+"_URL", srv.URL)
}
