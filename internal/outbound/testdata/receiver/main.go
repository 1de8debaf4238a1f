// Command receiver is the webhook receiver of the exec benchmark. It runs in
// a process of its own so that its work does not disturb how the benchmark
// process starts and waits for exec. It prints its url, answers 204 to
// every POST, and GET /count says how many it got.
package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync/atomic"
)

func main() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("http://%s\n", l.Addr())
	var n atomic.Int64
	http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			fmt.Fprintln(w, n.Load())
			return
		}
		io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
		n.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
}
