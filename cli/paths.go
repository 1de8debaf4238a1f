package cli

import (
	"fmt"
	"path/filepath"
	"reflect"

	"github.com/alecthomas/kong"
	"github.com/noora-hooks/noora-hooks/internal/paths"
)

// pathMapper decodes the `type:"path"` flags (--home, --config, the payload
// and token files): a leading ~ is $HOME, as in NOORA_HOME=~/x, and the path
// is made absolute. kong's own mapper takes ~ from the account database, which
// is not $HOME under sudo, in containers and in tests (SPEC §1).
func pathMapper(getenv func(string) string) kong.MapperFunc {
	return func(ctx *kong.DecodeContext, target reflect.Value) error {
		if target.Kind() != reflect.String {
			return fmt.Errorf("\"path\" type must be applied to a string, not %s", target.Type())
		}
		var p string
		if err := ctx.Scan.PopValueInto("file", &p); err != nil {
			return err
		}
		target.SetString(expandPath(p, getenv))
		return nil
	}
}

// expandPath expands a leading ~ or ~/ with $HOME and makes p absolute.
func expandPath(p string, getenv func(string) string) string {
	p = paths.ExpandTildeIn(p, getenv("HOME"))
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}
