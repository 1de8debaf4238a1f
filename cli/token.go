package cli

import (
	"github.com/noora-hooks/noora-hooks/client"
	"github.com/noora-hooks/noora-hooks/internal/config"
)

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
