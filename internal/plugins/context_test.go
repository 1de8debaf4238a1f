package plugins

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// contextCase is one plugin written the way public plugins are (a
// plugin.yaml and an __init__.py with register(ctx)), and what loading and
// firing it must give: the agent's own behaviour (issue 17).
type contextCase struct {
	name     string
	manifest string // plugin.yaml; "" for a name-only one
	src      string // __init__.py
	files    map[string]string
	// err is part of the load error, "" when the plugin must load.
	err string
	// answer is what its pre_llm_call hook returns ("" when it registers none).
	answer string
	// warning is part of a warning it must give.
	warning string
}

// runContextCases installs every case as a plugin of one home (with
// config.yaml), starts them all at once, and checks each one.
func runContextCases(t *testing.T, config string, cases []contextCase) {
	t.Helper()
	needPython(t)
	home := t.TempDir()
	if config != "" {
		if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dirs := make([]string, len(cases))
	for i, c := range cases {
		dirs[i] = fmt.Sprintf("p%02d", i)
		files := map[string]string{"__init__.py": c.src}
		for k, v := range c.files {
			files[k] = v
		}
		if c.manifest != "" {
			files["plugin.yaml"] = c.manifest
		} else {
			files["plugin.yaml"] = "name: " + dirs[i] + "\nversion: 1.0.0\n"
		}
		writePlugin(t, home, dirs[i], files)
	}
	// Generous bounds: every case starts its own Python at once.
	m, rec := newManager(t, home, Options{ConfigPath: filepath.Join(home, "config.yaml"), StartTimeout: 2 * time.Minute, CallbackTimeout: time.Minute})
	infos := map[string]Info{}
	for _, in := range m.List() {
		infos[filepath.Base(in.Dir)] = in
	}
	answers := map[string]string{}
	for _, r := range fire(t, m, "pre_llm_call", `{"session_id":"s1","user_message":"hi"}`) {
		plugin, _, _ := strings.Cut(r.Name, ":")
		for _, w := range r.Warnings {
			t.Logf("%s: %s", r.Name, w)
		}
		answers[plugin] = r.Answer.Text
	}
	warnings := rec.all()
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := infos[dirs[i]]
			name := in.Name
			switch {
			case c.err == "" && in.Status != StatusOK:
				t.Fatalf("it did not load: %s", in.Error)
			case c.err != "" && (in.Status != StatusError || !strings.Contains(in.Error, c.err)):
				t.Fatalf("status %s, error %q; want an error with %q", in.Status, in.Error, c.err)
			}
			if got := answers[name]; got != c.answer {
				t.Errorf("its hook answered %q, want %q", got, c.answer)
			}
			if c.warning != "" && !strings.Contains(warnings, fmt.Sprintf("plugin %q: %s", name, c.warning)) {
				t.Errorf("warnings lack %q:\n%s", c.warning, warnings)
			}
		})
	}
}

const hookOK = "\n    ctx.register_hook('pre_llm_call', lambda **kw: 'loaded')\n"

func TestThePluginContextHasTheAgentsSignatures(t *testing.T) {
	runContextCases(t, "plugins:\n  entries:\n    p03:\n      allow_tool_override: true\n", []contextCase{
		{
			name: "A tool registered with the agent's signature is accepted and reported once",
			src: "SCHEMA = {'name': 'weather', 'parameters': {'type': 'object'}}\n" +
				"def weather(args, **kw):\n    return 'sunny'\n" +
				"def register(ctx):\n    ctx.register_tool('weather', 'utility', SCHEMA, weather, description='Weather')\n" +
				"    ctx.register_tool('forecast', 'utility', SCHEMA, weather)" + hookOK,
			answer: "loaded", warning: "ctx.register_tool is not supported by noora-hooks",
		},
		{
			name: "A tool registered with keywords the agent does not take fails the load, so its guard never runs",
			src: "def guard(**kw):\n    return {'action': 'block', 'message': 'no'}\n" +
				"def register(ctx):\n    ctx.register_tool(name='env_guard', func=guard, description='Blocks .env reads')\n" +
				"    ctx.register_hook('pre_llm_call', lambda **kw: 'guard is on')\n",
			err: "register() failed: TypeError: PluginContext.register_tool() got an unexpected keyword argument 'func'",
		},
		{
			name: "A tool that overrides a built-in without the operator's opt-in fails the load",
			src:  "def register(ctx):\n    ctx.register_tool('terminal', 'core', {}, print, override=True)" + hookOK,
			err:  "PluginToolOverrideError: Plugin 'p02' cannot override built-in tool 'terminal'. Set plugins.entries.p02.allow_tool_override: true",
		},
		{
			name:   "A tool override the operator allowed in config.yaml is accepted",
			src:    "def register(ctx):\n    ctx.register_tool('terminal', 'core', {}, print, override=True)" + hookOK,
			answer: "loaded",
		},
		{
			name:   "A CLI command and a slash command with the agent's signatures are accepted",
			src:    "def setup(parser):\n    pass\ndef register(ctx):\n    ctx.register_cli_command('audit', 'Show the audit log', setup)\n    ctx.register_command('audit', lambda raw: 'ok', description='Audit')" + hookOK,
			answer: "loaded", warning: "ctx.register_cli_command is not supported",
		},
		{
			name: "A CLI command without its setup function fails the load",
			src:  "def register(ctx):\n    ctx.register_cli_command('audit', 'Show the audit log')" + hookOK,
			err:  "TypeError: PluginContext.register_cli_command() missing 1 required positional argument: 'setup_fn'",
		},
		{
			name:   "A skill whose SKILL.md exists is accepted",
			src:    "from pathlib import Path\ndef register(ctx):\n    ctx.register_skill('review', Path(__file__).parent / 'SKILL.md')" + hookOK,
			files:  map[string]string{"SKILL.md": "# Review\n"},
			answer: "loaded", warning: "ctx.register_skill is not supported",
		},
		{
			name: "A skill with a colon in its name fails the load",
			src:  "from pathlib import Path\ndef register(ctx):\n    ctx.register_skill('team:review', Path(__file__))" + hookOK,
			err:  "ValueError: Skill name 'team:review' must not contain ':'",
		},
		{
			name: "A skill whose SKILL.md is missing fails the load",
			src:  "from pathlib import Path\ndef register(ctx):\n    ctx.register_skill('review', Path('/nonexistent/SKILL.md'))" + hookOK,
			err:  "FileNotFoundError: SKILL.md not found at /nonexistent/SKILL.md",
		},
		{
			name: "A method the agent's context does not have fails the load",
			src:  "def register(ctx):\n    ctx.register_widget('w')" + hookOK,
			err:  "AttributeError: 'PluginContext' object has no attribute 'register_widget'",
		},
		{
			name: "A hook registered with keywords the agent does not take fails the load",
			src:  "def register(ctx):\n    ctx.register_hook(event='pre_llm_call', fn=lambda **kw: 'x')",
			err:  "TypeError: PluginContext.register_hook() got an unexpected keyword argument 'event'",
		},
		{
			name:   "Platform actions answer without raising, as in the agent",
			src:    "def register(ctx):\n    r = ctx.platform_actions.add_reaction('chat', 'msg', 'ok')\n    ctx.register_hook('pre_llm_call', lambda **kw: str(r['ok']))\n",
			answer: "False", warning: "ctx.platform_actions.add_reaction is not supported",
		},
		{
			name: "An on_unload callback that is not callable fails the load",
			src:  "def register(ctx):\n    ctx.on_unload('cleanup')" + hookOK,
			err:  "TypeError: on_unload callback must be callable",
		},
		{
			name: "Emitting a namespaced event fails the load",
			src:  "def register(ctx):\n    ctx.emit('hermes:ready')" + hookOK,
			err:  "ValueError: Plugin 'p13' may not emit 'hermes:ready'",
		},
		{
			name: "ctx.state keeps JSON values in the agent's file under the home",
			src: "import os\ndef register(ctx):\n    ctx.state.set('starts', ctx.state.get('starts', 0) + 1)\n" +
				"    inside = str(ctx.state.path).startswith(os.path.join(os.environ['NOORA_HOME'], 'plugin-data', 'agent-plugin-p14-'))\n" +
				"    ctx.register_hook('pre_llm_call', lambda **kw: '%s %s' % (ctx.state.get('starts'), inside))\n",
			answer: "1 True",
		},
		{
			name: "ctx.state refuses a key the agent refuses",
			src:  "def register(ctx):\n    ctx.state.set('../escape', 1)" + hookOK,
			err:  "ValueError: Plugin state keys must be 1-128 characters",
		},
		{
			name:   "Middleware, providers and subscriptions are accepted and reported",
			src:    "def register(ctx):\n    ctx.register_middleware('tool_request', print)\n    ctx.register_tts_provider(object())\n    ctx.subscribe('other:event', print)" + hookOK,
			answer: "loaded", warning: "ctx.register_tts_provider is not supported",
		},
	})
}

func TestGetConfigAndTheManifestAnswerAsInTheAgent(t *testing.T) {
	config := `plugins:
  hook_callback_timeout: 20
  entries:
    p01:
      settings: {greeting: hello, retry: {policy: backoff}}
    p02:
      config: {greeting: legacy}
    p03:
      settings: {enabled: off}
    p04:
      settings: {enabled: yes, mode: 0755}
    guard-id:
      settings: {greeting: by directory}
`
	runContextCases(t, config, []contextCase{
		{
			name:   "get_config returns the default when the plugin has no settings, so a guarded hook registers",
			src:    "def register(ctx):\n    if ctx.get_config('enabled', True):\n        ctx.register_hook('pre_llm_call', lambda **kw: 'on by default')\n",
			answer: "on by default",
		},
		{
			name:   "get_config reads plugins.entries.<id>.settings, dotted keys included",
			src:    "def register(ctx):\n    v = ctx.get_config('greeting') + ' ' + ctx.get_config('retry.policy') + ' ' + str(ctx.get_config('missing', 7))\n    ctx.register_hook('pre_llm_call', lambda **kw: v)\n",
			answer: "hello backoff 7",
		},
		{
			name:   "get_config falls back to the legacy config subtree",
			src:    "def register(ctx):\n    v = ctx.get_config('greeting', 'none')\n    ctx.register_hook('pre_llm_call', lambda **kw: v)\n",
			answer: "legacy",
		},
		{
			name: "get_config reads off as false, as the agent's YAML reader does",
			src:  "def register(ctx):\n    if ctx.get_config('enabled', True):\n        ctx.register_hook('pre_llm_call', lambda **kw: 'wrongly on')\n",
		},
		{
			name:   "get_config reads yes as true and 0755 as an octal number",
			src:    "def register(ctx):\n    v = repr(ctx.get_config('enabled')) + ' ' + repr(ctx.get_config('mode'))\n    ctx.register_hook('pre_llm_call', lambda **kw: v)\n",
			answer: "True 493",
		},
		{
			name: "get_config refuses a key outside the plugin's settings",
			src:  "def register(ctx):\n    ctx.get_config('model.default')" + hookOK,
			err:  "ValueError: Expected a plugin-relative config key such as 'endpoint' or 'retry.policy'",
		},
		{
			name:     "The manifest's fields and the plugin id are plain strings, the id being the directory's name",
			manifest: "name: Env Guard\nversion: 2.1.0\ndescription: Blocks .env reads\nauthor: {name: Ada, email: ada@example.com}\n",
			src: "def register(ctx):\n    m = ctx.manifest\n" +
				"    v = '|'.join([m.name, m.version, m.description, m.author, ctx.plugin_id, type(m.name).__name__, type(ctx.plugin_id).__name__])\n" +
				"    ctx.register_hook('pre_llm_call', lambda **kw: v)\n",
			answer: "Env Guard|2.1.0|Blocks .env reads|Ada, ada@example.com|p06|str|str",
		},
	})
}

func TestPluginsFindTheAgentsHomeAndConfigModules(t *testing.T) {
	runContextCases(t, "plugins:\n  entries:\n    p02:\n      settings: {level: strict}\nmodel: {default: m1}\n", []contextCase{
		{
			name: "hermes_constants.get_hermes_home and HERMES_HOME are the noora-hooks home",
			src: "import os\nfrom hermes_constants import get_hermes_home\n" +
				"def register(ctx):\n    home = get_hermes_home()\n" +
				"    v = str(home == __import__('pathlib').Path(os.environ['NOORA_HOME'])) + ' ' + str(os.environ['HERMES_HOME'] == os.environ['NOORA_HOME'])\n" +
				"    ctx.register_hook('pre_llm_call', lambda **kw: v)\n",
			answer: "True True",
		},
		{
			name: "hermes_cli.config.load_config returns config.yaml, and get_hermes_home is there too, as gateway hooks import it",
			src: "from hermes_cli.config import load_config, get_hermes_home, get_config_path\n" +
				"def register(ctx):\n    cfg = load_config()\n" +
				"    v = cfg['model']['default'] + ' ' + str(get_config_path() == get_hermes_home() / 'config.yaml')\n" +
				"    ctx.register_hook('pre_llm_call', lambda **kw: v)\n",
			answer: "m1 True",
		},
		{
			name:   "A policy plugin reads its own entry from load_config",
			src:    "from hermes_cli import config\ndef register(ctx):\n    level = config.load_config()['plugins']['entries'][ctx.plugin_id]['settings']['level']\n    ctx.register_hook('pre_llm_call', lambda **kw: level)\n",
			answer: "strict",
		},
		{
			name: "Importing another of the agent's modules fails the load and names the module",
			src:  "from hermes_cli.plugins import VALID_HOOKS\ndef register(ctx):\n    pass\n",
			err:  "importing the plugin failed: ModuleNotFoundError: No module named 'hermes_cli.plugins': it is part of the Noora agent, and noora-hooks runs plugins and gateway hooks out of process",
		},
		{
			name: "Importing the agent's gateway fails the load and names the module",
			src:  "from gateway.run import GatewayRunner\ndef register(ctx):\n    pass\n",
			err:  "No module named 'gateway': it is part of the Noora agent",
		},
		{
			name:   "A plugin's own module named like one of the agent's still imports",
			src:    "from .utils import greet\ndef register(ctx):\n    ctx.register_hook('pre_llm_call', lambda **kw: greet())\n",
			files:  map[string]string{"utils.py": "def greet():\n    return 'own utils'\n"},
			answer: "own utils",
		},
	})
}
