package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/noora-hooks/noora-hooks/internal/runner"
)

// CheckProgram runs hook tests. It is a program of its own: testscript, whose
// engine it uses, links go/build and friends, whose package initialisation
// would cost every exec about a millisecond (docs/hook-tests.md).
const CheckProgram = "noora-hooks-check"

// CheckCmd is `noora-hooks check`: hook tests that teams keep in their
// repositories, written as testscript scenarios (docs/hook-tests.md). It
// hands over to noora-hooks-check.
type CheckCmd struct {
	Paths   []string `arg:"" optional:"" help:"Scenario files (.txtar) or directories of them (default: <home>/hook-tests and ./.noora/hook-tests)."`
	Filter  string   `name:"run" help:"Run only the scenarios whose name matches REGEXP (go test's -run)." placeholder:"REGEXP"`
	Verbose bool     `short:"v" help:"Print the log of every scenario, passed or not."`
	JSON    bool     `help:"Print the results as JSON (shape: docs/hook-tests.md)." name:"json"`
}

// Help is the long help of `check`.
func (CheckCmd) Help() string {
	return `A scenario is a txtar archive: a script of testscript commands (exists, cmp, env, stdout, !, ...) and files. If it holds a config.yaml, that is the config and the scenario's directory is the home; otherwise your config and home are used. Either way its shell hooks count as approved, and no approval is recorded. Commands of noora-hooks: "fire EVENT [PAYLOAD_FILE]" (or "fire --dialect claude PAYLOAD_FILE") runs the hooks for real, prints the answer as exec would and keeps it; "answer FIELD [VALUE]" checks a field of it (dotted for nested fields); "ran SUBSTRING" and "skipped SUBSTRING [REASON]" check which hooks ran. $SCENARIO_DIR is the directory of the scenario file. Exit 1 when a scenario fails. The scenarios run in noora-hooks-check, installed beside noora-hooks.`
}

// Args are the arguments noora-hooks-check takes for this command.
func (c *CheckCmd) Args(g *Globals) []string {
	var args []string
	if g.Home != "" {
		args = append(args, "--home", g.Home)
	}
	if g.Config != "" {
		args = append(args, "--config", g.Config)
	}
	if c.Filter != "" {
		args = append(args, "--run", c.Filter)
	}
	if c.Verbose {
		args = append(args, "-v")
	}
	if c.JSON {
		args = append(args, "--json")
	}
	args = append(args, "--")
	for _, p := range c.Paths {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		args = append(args, p)
	}
	return args
}

// Run replaces this process with noora-hooks-check, found beside this
// program or on PATH. No child is started: the exec replaces the image.
func (c *CheckCmd) Run(g *Globals, env *Env) error {
	prog, err := findCheckProgram(env.Environ())
	if err != nil {
		return err
	}
	argv := append([]string{CheckProgram}, c.Args(g)...)
	return fmt.Errorf("run %s: %w", prog, syscall.Exec(prog, argv, env.Environ()))
}

func findCheckProgram(environ []string) (string, error) {
	if self, err := os.Executable(); err == nil {
		beside := filepath.Join(filepath.Dir(self), CheckProgram)
		if st, err := os.Stat(beside); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return beside, nil
		}
	}
	path, err := runner.LookPath(CheckProgram, environ)
	if err == nil {
		return path, nil
	}
	if errors.Is(err, runner.ErrNotFound) {
		return "", fmt.Errorf("check needs %s beside noora-hooks or on PATH: install it with \"go install github.com/noora-hooks/noora-hooks/cmd/%s@latest\" (or make build)", CheckProgram, CheckProgram)
	}
	return "", fmt.Errorf("find %s: %w", CheckProgram, err)
}
