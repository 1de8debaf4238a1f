package plugins

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Some plugins and gateway hooks only work inside the agent's own process: a
// gateway:startup handler that patches the gateway's classes, a plugin that
// reaches into the running AIAgent. Out of process they import nothing of
// the agent's but the stand-ins of the host (hermes_constants,
// hermes_cli.config), so their import fails, or they patch a copy nobody
// uses. FindAgentImports finds the common cases by reading the Python
// files, without running them, so that `plugins list`, `gateway list` and
// `doctor` can say so.

// Bounds of the scan: plugins are small, and a directory that is not must
// not make a listing slow.
const (
	maxScanFiles = 200     // .py files read per directory
	maxScanBytes = 1 << 20 // bytes read per file
	maxScanDepth = 3       // subdirectory levels
)

// agentPackages are the agent's modules whose import means the code needs
// the agent's process: its gateway, its agent loop and classes, its tools
// and CLI internals.
var agentPackages = map[string]bool{
	"gateway": true, "run_agent": true, "agent": true, "tools": true, "model_tools": true,
	"toolsets": true, "cli": true, "hermes_state": true, "cron": true, "acp_adapter": true,
	"batch_runner": true, "hermes_cli": true,
}

// standIns are the agent modules the host provides: importing them is fine.
var standIns = map[string]bool{"hermes_constants": true, "hermes_cli": true, "hermes_cli.config": true}

// AgentImport is one import of the agent's code in a plugin or gateway hook.
type AgentImport struct {
	File   string // relative to the scanned directory
	Line   int
	Module string
}

func (a AgentImport) String() string {
	return fmt.Sprintf("%s:%d imports %s: this hook needs the agent's process (noora-hooks runs it out of process, where the agent's modules are not there; only hermes_constants and hermes_cli.config are stood in for)", a.File, a.Line, a.Module)
}

// FindAgentImports lists the imports of the agent's modules in the Python
// files under dir, in file and line order.
func FindAgentImports(dir string) []AgentImport {
	var out []AgentImport
	files := 0
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			name := d.Name()
			if path != dir && (strings.HasPrefix(name, ".") || name == "__pycache__" || strings.Count(rel, string(filepath.Separator)) >= maxScanDepth) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(d.Name(), ".py") || !d.Type().IsRegular() {
			return nil
		}
		if files++; files > maxScanFiles {
			return filepath.SkipAll
		}
		f, err := os.Open(path)
		if err != nil {
			return nil
		}
		defer f.Close()
		for _, imp := range ScanAgentImports(io.LimitReader(f, maxScanBytes)) {
			imp.File = rel
			out = append(out, imp)
		}
		return nil
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].File < out[j].File })
	return out
}

// ScanAgentImports reads Python source and returns its imports of the
// agent's modules (File left empty). It reads statements line by line:
// `import a.b, c as d` and `from a.b import x`, at any indentation;
// relative imports are the plugin's own.
func ScanAgentImports(r io.Reader) []AgentImport {
	var out []AgentImport
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxScanBytes)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if i := bytes.IndexByte(line, '#'); i >= 0 {
			line = bytes.TrimSpace(line[:i])
		}
		var modules []string
		switch {
		case bytes.HasPrefix(line, []byte("from ")):
			rest := strings.TrimSpace(string(line[5:]))
			mod, _, ok := strings.Cut(rest, " import")
			if !ok {
				mod, _, ok = strings.Cut(rest, "\timport")
			}
			mod = strings.TrimSpace(mod)
			if !ok {
				break
			}
			if mod != "hermes_cli" {
				modules = []string{mod}
				break
			}
			// `from hermes_cli import config` is the stand-in; any other
			// name is a module of the agent's.
			_, names, _ := strings.Cut(rest, "import")
			for _, name := range strings.Split(strings.Trim(strings.TrimSpace(names), "()"), ",") {
				if fields := strings.Fields(name); len(fields) > 0 && fields[0] != "config" {
					modules = append(modules, "hermes_cli."+fields[0])
				}
			}
		case bytes.HasPrefix(line, []byte("import ")):
			for _, part := range strings.Split(string(line[7:]), ",") {
				fields := strings.Fields(part)
				if len(fields) > 0 {
					modules = append(modules, fields[0])
				}
			}
		}
		for _, mod := range modules {
			if isAgentModule(mod) {
				out = append(out, AgentImport{Line: n, Module: mod})
			}
		}
	}
	return out
}

func isAgentModule(mod string) bool {
	if mod == "" || strings.HasPrefix(mod, ".") || standIns[mod] {
		return false
	}
	top, _, _ := strings.Cut(mod, ".")
	return agentPackages[top]
}
