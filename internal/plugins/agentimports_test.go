package plugins

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestScanAgentImportsFindsTheAgentsModulesOnly(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string // "line:module" entries, space-separated
	}{
		{"A handler that patches the gateway's runner is found", "import logging\nfrom gateway.run import GatewayRunner\n", "2:gateway.run"},
		{"An import of the agent's class is found", "from run_agent import AIAgent\n", "1:run_agent"},
		{"Several modules on one import line are each checked", "import os, gateway.platforms.telegram as tg, json\n", "1:gateway.platforms.telegram"},
		{"An indented import inside a function counts", "def handle(e, c):\n    from agent.display import KawaiiSpinner\n", "2:agent.display"},
		{"The stand-in modules are fine", "from hermes_constants import get_hermes_home\nfrom hermes_cli.config import load_config\nfrom hermes_cli import config\nimport hermes_cli.config\n", ""},
		{"Another name from hermes_cli is found", "from hermes_cli import config, plugins\n", "1:hermes_cli.plugins"},
		{"A submodule of hermes_cli other than config is found", "from hermes_cli.plugins import VALID_HOOKS\n", "1:hermes_cli.plugins"},
		{"Relative imports are the plugin's own", "from .tools import helper\nfrom . import gateway\n", ""},
		{"Comments are not imports", "# from gateway.run import GatewayRunner\nx = 1  # import run_agent\n", ""},
		{"Modules whose names only start like the agent's are not found", "import gateways\nfrom agentic import x\nimport toolsy\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, imp := range ScanAgentImports(strings.NewReader(tt.src)) {
				got = append(got, strconv.Itoa(imp.Line)+":"+imp.Module)
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("got %q, want %q", strings.Join(got, " "), tt.want)
			}
		})
	}
}

func TestFindAgentImportsNamesTheFileAndLine(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "lib"), 0o755))
	must(os.MkdirAll(filepath.Join(dir, "__pycache__"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "handler.py"), []byte("import asyncio\nfrom gateway.run import GatewayRunner\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "lib", "patch.py"), []byte("\n\nimport run_agent\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "__pycache__", "x.py"), []byte("import run_agent\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("import run_agent\n"), 0o644))
	var got []string
	for _, imp := range FindAgentImports(dir) {
		got = append(got, imp.String())
	}
	want := []string{
		"handler.py:2 imports gateway.run: this hook needs the agent's process",
		"lib/patch.py:3 imports run_agent: this hook needs the agent's process",
	}
	if len(got) != len(want) {
		t.Fatalf("got %q", got)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("got %q, want it to start with %q", got[i], want[i])
		}
	}
}

func FuzzScanAgentImports(f *testing.F) {
	for _, s := range []string{
		"from gateway.run import GatewayRunner\n", "import os, run_agent as r\n", "from hermes_cli import (config, plugins)\n",
		"from . import x\n", "import\n", "from \n", "from x import\n", "\x00import gateway",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, imp := range ScanAgentImports(strings.NewReader(string(data))) {
			if imp.Line < 1 || !isAgentModule(imp.Module) {
				t.Fatalf("bad import %+v", imp)
			}
		}
	})
}
