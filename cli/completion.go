package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/posener/complete"
	"github.com/willabides/kongplete"

	"github.com/noora-hooks/noora-hooks/protocol"
)

// CompletionCmd is `noora-hooks completion bash|zsh|fish`.
type CompletionCmd struct {
	Shell string `arg:"" enum:"bash,zsh,fish" help:"The shell: bash, zsh or fish."`
}

// Help tells how to turn completion on.
func (CompletionCmd) Help() string {
	return `Prints the script that makes the shell complete noora-hooks' commands, flags and event names. Load it from your shell's start-up file:

  bash (~/.bashrc):                  source <(noora-hooks completion bash)
  zsh (~/.zshrc):                    source <(noora-hooks completion zsh)
  fish (~/.config/fish/config.fish): noora-hooks completion fish | source

The script calls this binary back (by its absolute path) to compute each completion.`
}

// completionScripts are the shells' hooks into `complete -C`-style
// completion: the shell runs the binary with COMP_LINE set, and the binary
// prints the candidates (see completeIfAsked). They are kongplete's
// install fragments; we print them rather than let kongplete find the login
// shell, which it does by spawning getent outside the runner.
var completionScripts = map[string]string{
	"bash": "complete -o default -C {bin} {cmd}\n",
	"zsh":  "autoload -U +X bashcompinit && bashcompinit\ncomplete -o default -C {bin} {cmd}\n",
	"fish": `function __complete_{cmd}
    set -lx COMP_LINE (commandline -cp)
    test -z (commandline -ct)
    and set COMP_LINE "$COMP_LINE "
    {bin}
end
complete -f -c {cmd} -a "(__complete_{cmd})"
`,
}

// Run prints the completion script of the shell.
func (c *CompletionCmd) Run(ctx *kong.Context, env *Env) error {
	bin, err := os.Executable()
	if err == nil {
		bin, err = filepath.Abs(bin)
	}
	if err != nil {
		return fmt.Errorf("find this program's path for the completion script: %w", err)
	}
	script := strings.NewReplacer("{bin}", shellQuote(bin), "{cmd}", ctx.Model.Name).Replace(completionScripts[c.Shell])
	_, err = fmt.Fprint(env.Stdout, script)
	return err
}

// shellQuote quotes s for bash, zsh and fish alike: single quotes, with a
// single quote inside written as '\”.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// completeIfAsked answers a shell's completion request (COMP_LINE is set) and
// exits through kong; otherwise it does nothing. Positional arguments tagged
// `predictor:"event"` complete to the event catalogue.
func completeIfAsked(parser *kong.Kong, env *Env) {
	if env.Getenv("COMP_LINE") == "" {
		return
	}
	kongplete.Complete(parser,
		kongplete.WithPredictor("event", complete.PredictSet(protocol.EventNames()...)),
	)
}
