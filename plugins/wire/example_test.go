package wire_test

import (
	"fmt"

	"github.com/noora-hooks/noora-hooks/plugins/wire"
)

// A plugin process says hello with what it registered; the host parses each
// line it reads with Parse.
func ExampleParse() {
	line := wire.Hello([]wire.HookDecl{{Event: "pre_tool_call", Callback: "guard"}}, nil, nil)
	m, err := wire.Parse(line)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Type, m.Protocol == wire.Version, m.Hooks[0].Event, m.Hooks[0].Callback)
	// Output: hello true pre_tool_call guard
}
