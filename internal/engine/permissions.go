package engine

import (
	"github.com/noora-hooks/noora-hooks/internal/config"
)

// checkHomePermissions refuses a home, config or allowlist that anyone can
// write (they decide what runs with the user's credentials), and warns about
// group-writable ones (SPEC §1). With ReportUnsafe (doctor) the refusals are
// warnings too, so that every one is reported. A refusal is a
// *config.PermissionProblem.
func checkHomePermissions(paths config.Paths, opts Options) error {
	for _, p := range []*config.PermissionProblem{
		config.CheckWritable("home", paths.Home),
		config.CheckWritable("config", paths.Config),
		config.CheckWritable("allowlist", paths.Allowlist()),
	} {
		switch {
		case p == nil:
		case p.Refused && !opts.ReportUnsafe:
			return p
		default:
			opts.Warn(p.Error())
		}
	}
	return nil
}
