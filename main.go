// Command noora-hooks runs the Noora agent's hooks out of process. See README.md.
package main

import (
	"os"

	"github.com/noora-hooks/noora-hooks/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.OSEnv()))
}
