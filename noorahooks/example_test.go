package noorahooks_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/noora-hooks/noora-hooks/noorahooks"
)

// A guard configured in a home blocks a dangerous command: the embedding
// program fires pre_tool_call and obeys the answer.
func Example() {
	home, _ := os.MkdirTemp("", "noora-home")
	defer os.RemoveAll(home)
	config := `hooks_auto_accept: true
hooks:
  pre_tool_call:
    - matcher: terminal
      command: sh -c 'grep -q "rm -rf" && echo "{\"action\":\"block\",\"message\":\"no rm -rf\"}"; exit 0'
`
	_ = os.WriteFile(filepath.Join(home, "config.yaml"), []byte(config), 0o600)

	hooks, err := noorahooks.Load(noorahooks.Options{Home: home, Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer hooks.Close()

	res, err := hooks.Fire(context.Background(), "pre_tool_call",
		[]byte(`{"tool_name":"terminal","args":{"command":"rm -rf /"}}`), home)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s", res.JSON())
	// Output: {"event":"pre_tool_call","action":"block","message":"no rm -rf"}
}
