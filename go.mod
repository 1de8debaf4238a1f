module github.com/noora-hooks/noora-hooks

go 1.26.8

require (
	github.com/BurntSushi/toml v1.5.0
	github.com/alecthomas/kong v1.17.0
	github.com/creack/pty v1.1.24
	github.com/google/shlex v0.0.0-20191202100458-e7afc7fbc510
	github.com/posener/complete v1.2.3
	github.com/rogpeppe/go-internal v1.16.0
	github.com/tidwall/gjson v1.20.3
	github.com/willabides/kongplete v0.4.0
	golang.org/x/sys v0.26.0
	golang.org/x/term v0.25.0
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/hashicorp/errwrap v1.1.0 // indirect
	github.com/hashicorp/go-multierror v1.1.1 // indirect
	github.com/riywo/loginshell v0.0.0-20200815045211-7d26008be1ab // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.3.0 // indirect
	golang.org/x/tools v0.26.0 // indirect
)
