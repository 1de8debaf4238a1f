package client_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/noora-hooks/noora-hooks/client"
)

// Fire an event through a running `noora-hooks serve`; when none answers,
// the error is ErrUnavailable and the caller fires in-process instead.
func ExampleClient_Fire() {
	dir, _ := os.MkdirTemp("", "noora")
	defer os.RemoveAll(dir)
	addr, err := client.ParseAddr("unix:" + filepath.Join(dir, "noora-hooks.sock"))
	if err != nil {
		fmt.Println(err)
		return
	}
	c := client.New(addr, "")
	defer c.Close()
	_, err = c.Fire(context.Background(), "pre_tool_call", []byte(`{"tool_name":"terminal"}`), client.FireOptions{})
	fmt.Println(errors.Is(err, client.ErrUnavailable))
	// Output: true
}
