package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

var codexFailed = regexp.MustCompile(`hook: \w+ Failed`)

// agent is one coding agent's CLI: how to install its pinned version and
// how to run it headless with noora-hooks as its one hook.
type agent struct {
	name, title, version string
	// packages are the npm arguments that install it; bin is its
	// executable under node_modules/.bin.
	packages []string
	bin      string
	setup    func(s setup) (argv, env []string, err error)
	// healthy, when set, checks the run for hooks the agent failed.
	healthy func(r *run) error
}

// setup is what a session needs: its throw-away home and project, the hook
// command to register, the fake model's URL, where to save each hook
// payload too ("": nowhere), and the tools the model will call besides the
// shell.
type setup struct {
	home, project, hook, url, record string
	tools                            []string
}

const prompt = "run the command"

var agents = map[string]*agent{
	"claude": {name: "claude", title: "Claude Code", version: "2.1.332",
		packages: []string{"@anthropic-ai/claude-code@2.1.332"}, bin: "claude",
		setup: func(s setup) ([]string, []string, error) {
			events := []string{"PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop"}
			settings := claudeHooks(events, s.hook, s.record)
			// The fetch would first ask claude.ai whether the domain is
			// safe; offline, it would never fetch.
			settings["skipWebFetchPreflight"] = true
			if err := writeJSONFile(filepath.Join(s.project, ".claude", "settings.json"), settings); err != nil {
				return nil, nil, err
			}
			env := []string{"ANTHROPIC_BASE_URL=" + s.url, "ANTHROPIC_API_KEY=sk-e2e",
				"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1",
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
				"IS_SANDBOX=1"} // lets bypassPermissions run as root
			argv := []string{"-p", prompt, "--output-format", "json", "--permission-mode", "bypassPermissions"}
			if len(s.tools) > 0 {
				// The native build leaves Glob and Grep out (Bash's find
				// and grep stand in) unless they are asked for by name.
				argv = append(argv, "--allowedTools", strings.Join(s.tools, ","))
				// WebFetch's page is the fake's, with its own certificate.
				env = append(env, "NODE_TLS_REJECT_UNAUTHORIZED=0")
			}
			return argv, env, nil
		}},
	"gemini": {name: "gemini", title: "Gemini CLI", version: "0.61.0",
		packages: []string{"@google/gemini-cli@0.61.0"}, bin: "gemini",
		setup: func(s setup) ([]string, []string, error) {
			user := map[string]any{
				// Without it, a base URL selects the "gateway" auth, which
				// headless mode refuses.
				"security":  map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
				"privacy":   map[string]any{"usageStatisticsEnabled": false},
				"telemetry": map[string]any{"enabled": false},
				"general":   map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
			}
			if err := writeJSONFile(filepath.Join(s.home, ".gemini", "settings.json"), user); err != nil {
				return nil, nil, err
			}
			events := []string{"BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent"}
			if err := writeJSONFile(filepath.Join(s.project, ".gemini", "settings.json"), claudeHooks(events, s.hook, s.record)); err != nil {
				return nil, nil, err
			}
			env := []string{"GEMINI_API_KEY=e2e", "GOOGLE_GEMINI_BASE_URL=" + s.url, "GEMINI_CLI_NO_RELAUNCH=true",
				// --skip-trust comes too late for the project's hooks.
				"GEMINI_CLI_TRUST_WORKSPACE=true"}
			// yolo: the only mode in which headless Gemini offers its shell
			// tool; -m skips the model router's extra call.
			return []string{"-p", prompt, "--output-format", "json", "--approval-mode", "yolo", "-m", "gemini-2.5-flash"}, env, nil
		}},
	"codex": {name: "codex", title: "Codex CLI", version: "0.169.0",
		// The launcher and its native binary, named explicitly so that an
		// npm that skips optional dependencies still installs it.
		packages: []string{"@openai/codex@0.169.0", "@openai/codex-linux-x64@npm:@openai/codex@0.169.0-linux-x64"}, bin: "codex",
		setup: func(s setup) ([]string, []string, error) {
			codexHome := filepath.Join(s.home, ".codex")
			if err := os.MkdirAll(codexHome, 0o755); err != nil {
				return nil, nil, err
			}
			config := fmt.Sprintf(`model = "gpt-5.5"
model_provider = "e2e"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.e2e]
name = "e2e"
base_url = "%s/v1"
wire_api = "responses"
env_key = "E2E_OPENAI_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[features]
hooks = true

[analytics]
enabled = false

[projects.%q]
trust_level = "trusted"
`, s.url, s.project)
			if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o644); err != nil {
				return nil, nil, err
			}
			events := []string{"PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop"}
			if err := writeJSONFile(filepath.Join(s.project, ".codex", "hooks.json"), claudeHooks(events, s.hook, s.record)); err != nil {
				return nil, nil, err
			}
			env := []string{"CODEX_HOME=" + codexHome, "E2E_OPENAI_API_KEY=e2e"}
			// Hooks need a trusted hash per hook, which only the TUI's
			// review writes; the bypass flag stands in for it.
			// The human output says how each hook ended ("hook: PreToolUse
			// Failed"); --json does not.
			return []string{"exec", "--skip-git-repo-check", "--color", "never",
				"--dangerously-bypass-approvals-and-sandbox", "--dangerously-bypass-hook-trust", "--", prompt}, env, nil
		},
		// Codex lets the call through when it rejects a hook's answer: the
		// bridge must never give it one.
		healthy: func(r *run) error {
			if m := codexFailed.FindString(r.stdout + r.stderr); m != "" {
				return fmt.Errorf("Codex failed a hook: %q", m)
			}
			if !strings.Contains(r.stdout+r.stderr, "hook: ") {
				return fmt.Errorf("Codex reported no hook run")
			}
			return nil
		}},
}

// claudeHooks is the hooks object all three agents read: one group per
// event, with the one command, and with record set, a second one that saves
// the payload as record/<event>-*.json.
func claudeHooks(events []string, command, record string) map[string]any {
	hooks := map[string]any{}
	for _, ev := range events {
		group := []any{map[string]any{"type": "command", "command": command}}
		if record != "" {
			save := fmt.Sprintf(`cat > "$(mktemp %s)"`, shQuote(filepath.Join(record, ev+"-XXXXXX.json")))
			group = append(group, map[string]any{"type": "command", "command": save})
		}
		hooks[ev] = []any{map[string]any{"hooks": group}}
	}
	return map[string]any{"hooks": hooks}
}

// install puts the pinned version under cache/<name>-<version> once, with
// npm, and returns its executable.
func (a *agent) install(cache string) (string, error) {
	dir := filepath.Join(cache, a.name+"-"+a.version)
	exe := filepath.Join(dir, "node_modules", ".bin", a.bin)
	if out, err := exec.Command(exe, "--version").Output(); err == nil && strings.Contains(string(out), a.version) {
		return exe, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"private":true}`+"\n"), 0o644); err != nil {
		return "", err
	}
	fmt.Printf("installing %s %s into %s\n", a.title, a.version, dir)
	args := append([]string{"install", "--no-audit", "--no-fund", "--no-save", "--include=optional"}, a.packages...)
	cmd := exec.Command("npm", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm %s: %v\n%s", strings.Join(args, " "), err, tail(string(out), 2000))
	}
	out, err := exec.Command(exe, "--version").Output()
	if err != nil || !strings.Contains(string(out), a.version) {
		return "", fmt.Errorf("%s --version: %q, %v; want %s", exe, strings.TrimSpace(string(out)), err, a.version)
	}
	return exe, nil
}
