package cli

import (
	"github.com/noora-hooks/noora-hooks/client"
	"github.com/noora-hooks/noora-hooks/config"
)

// checkHomePermissions refuses a home, config or allowlist that anyone can
// write (they decide what runs with the user's credentials), and warns about
// group-writable ones (SPEC §1). doctor (env.reportUnsafe) reports the
// refusals instead of stopping at the first.
func checkHomePermissions(paths config.Paths, env *Env) error {
	for _, p := range []*config.PermissionProblem{
		config.CheckWritable("home", paths.Home),
		config.CheckWritable("config", paths.Config),
		config.CheckWritable("allowlist", paths.Allowlist()),
	} {
		switch {
		case p == nil:
		case p.Refused && !env.reportUnsafe:
			return &exitError{code: 1, err: p}
		default:
			env.Warnf("%s", p)
		}
	}
	return nil
}

// checkTokenFile is the token check of doctor: the file NOORA_HOOKS_TOKEN_FILE
// names, when set, must suit TCP serve.
func checkTokenFile(env *Env) {
	file := env.Getenv("NOORA_HOOKS_TOKEN_FILE")
	if file == "" {
		return
	}
	token, err := client.ReadToken(file)
	if err != nil {
		env.Warnf("%v", err)
		return
	}
	if p := config.CheckToken(file, token); p != nil {
		env.Warnf("%s", p)
	}
}
