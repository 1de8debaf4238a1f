"""noora-hooks plugin host.

Runs one Noora plugin (a package with register(ctx)) or one gateway hook
handler (handler.py with handle(event_type, context)) in this process and
serves the noora-hooks plugin protocol, version 1, on stdin/stdout
(docs/plugin-protocol.md). noora-hooks embeds this file and runs it as
    python3 -c <this file> plugin <plugin dir> <plugin name>
    python3 -c <this file> gateway <hook dir> <hook name>
and sends it an init line first (the home, the config as the agent reads it,
the manifest). The ctx mirrors the agent's PluginContext, and the agent's
modules that plugins import for paths and config are stood in for. The
plugin's own prints go to stderr, the plugin's log: the real stdout is kept
for the protocol alone.
"""

import sys

# `python3 -c` puts the working directory first on sys.path; the host moves
# into the caller's directory for each call, and a json.py lying there must
# not shadow the standard library.
sys.path[:] = [p for p in sys.path if p not in ("", ".")]

import importlib.util  # noqa: E402
import inspect
import json
import os
import traceback
import types

PROTOCOL = 1
MAX_MESSAGE = 1 << 20  # bytes of one line we send, newline excluded
MAX_REQUEST = (64 << 20) + (64 << 10)  # bytes of one line we accept
MAX_TEXT = 4096  # bytes of an error message we send
_OWN_DIR = ""  # the plugin's (or gateway hook's) directory


def _take_stdio():
    """Keep fd 0 and 1 for the protocol; give the plugin /dev/null and stderr."""
    proto_in = os.fdopen(os.dup(0), "rb")
    proto_out = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)  # C extensions and subprocesses writing to fd 1 hit stderr
    sys.stdin = open(os.devnull, "r")
    sys.stdout = sys.stderr
    return proto_in, proto_out


def _warn(msg):
    print("noora-hooks plugin host: warning: " + msg, file=sys.stderr, flush=True)


def _where(exc):
    """The innermost frame of exc's traceback outside this host: "file:line
    in function", or "" when the error arose in the host itself (a callback
    called with arguments it does not take, say)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename != "<string>"]
    # Prefer the plugin's own code to the library it called.
    own = [f for f in frames if _OWN_DIR and f.filename.startswith(_OWN_DIR + os.sep)]
    for f in reversed(own or frames):
        return "%s:%d in %s" % (os.path.relpath(f.filename, _OWN_DIR) if own else os.path.basename(f.filename), f.lineno, f.name)
    return ""


def _describe(exc):
    text = str(exc)
    name = type(exc).__name__
    return name + ": " + text if text else name


def _jsonable(value):
    """JSON text for value; values JSON cannot hold are sent as their str()."""
    try:
        return json.dumps(value, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError, OverflowError):
        return json.dumps(str(value))


def _clip(text, limit=MAX_TEXT):
    return text if len(text) <= limit else text[:limit] + "..."


class _LoadError(Exception):
    """A plugin or handler that loaded but lacks its entry point."""


def _unsupported_msg(name):
    return ("ctx.%s is not supported by noora-hooks (it runs plugin hooks and "
            "system prompt sections only); the call was ignored" % name)


# What the agent's plugin API accepts, mirrored so that a plugin the agent
# refuses to load fails here too (docs/plugin-protocol.md, "The plugin context").
SECTION_POSITIONS = frozenset({"after_memory"})
DEFAULT_SECTION_MAX_CHARS = 4000
MAX_SECTION_CHARS = 4000
_SECTION_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789._-")
_SETTING_RESERVED_ROOTS = frozenset({"model", "plugins", "security", "settings"})
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
_MISSING = object()


def _valid_section_id(value):
    return (isinstance(value, str) and 1 <= len(value) <= 128 and value[0] not in "._-"
            and all(c in _SECTION_ID_CHARS for c in value))


def _setting_segments(key):
    """A plugin-relative settings key split on dots, refused as the agent refuses it."""
    if not isinstance(key, str):
        raise ValueError("Expected a plugin-relative config key string")
    segments = tuple(key.split("."))
    ok = (key and "/" not in key and "\\" not in key and segments[0].lower() not in _SETTING_RESERVED_ROOTS
          and all(1 <= len(s) <= 128 and s[0].isascii() and s[0].isalnum() and all(c in _NAME_CHARS for c in s)
                  for s in segments))
    if not ok:
        raise ValueError("Expected a plugin-relative config key such as 'endpoint' or "
                         "'retry.policy'; global, cross-plugin, and traversal paths are forbidden")
    return segments


def _nested(root, segments, default):
    current = root
    for segment in segments:
        if not isinstance(current, dict) or segment not in current:
            return default
        current = current[segment]
    return current


class _Setup:
    """What noora-hooks tells the host before it loads anything (the init line)."""

    home = ""
    config_path = ""
    config = None  # config.yaml as the agent reads it, or None when there is none
    config_error = ""
    manifest = {}
    plugins = ()  # names of the other plugins in the home
    drain_timeout = 30.0

    def load_config(self):
        if self.config_error:
            raise RuntimeError(self.config_error)
        return json.loads(json.dumps(self.config)) if isinstance(self.config, dict) else {}

    def plugin_entry(self, plugin_id):
        entry = _nested(self.config, ("plugins", "entries", plugin_id), None)
        return entry if isinstance(entry, dict) else None


SETUP = _Setup()


class PluginToolOverrideError(PermissionError):
    """A plugin overrode a tool without the operator's opt-in, as the agent refuses it."""


class PluginManifest:
    """ctx.manifest: plugin.yaml's fields as plain values, as the agent gives them."""

    def __init__(self, data, plugin_dir):
        def text(key):
            v = data.get(key)
            return "" if v is None else str(v)

        def strings(key):
            v = data.get(key)
            return [str(x) for x in v] if isinstance(v, list) else []

        key = os.path.basename(os.path.normpath(plugin_dir))
        self.name = text("name") or key
        self.version = text("version")
        self.description = text("description")
        author = data.get("author")
        if isinstance(author, dict):
            author = ", ".join(str(author[f]) for f in ("name", "email", "url") if author.get(f))
        self.author = "" if author is None else str(author)
        self.requires_env = list(data.get("requires_env") or []) if isinstance(data.get("requires_env"), list) else []
        self.provides_tools = strings("provides_tools")
        self.provides_hooks = strings("provides_hooks")
        self.source = "user"
        self.path = plugin_dir
        self.kind = text("kind") or "standalone"
        self.key = key
        self.requires_hermes = text("requires_hermes")
        self.portable = False
        self.skill_namespace = ""
        self.capabilities = strings("capabilities")
        try:
            self.manifest_version = int(data.get("manifest_version", 1))
        except (TypeError, ValueError):
            self.manifest_version = 1
        self.api_version = data.get("api_version") if isinstance(data.get("api_version"), int) else None
        self.requires_plugins = list(data.get("requires_plugins") or []) if isinstance(data.get("requires_plugins"), list) else []
        self.python_dependencies = strings("python_dependencies")
        self.config_schema = dict(data["config_schema"]) if isinstance(data.get("config_schema"), dict) else {}
        self.license = text("license")
        self.homepage = text("homepage")
        self.tags = strings("tags")

    def __repr__(self):
        return "PluginManifest(name=%r, version=%r, key=%r)" % (self.name, self.version, self.key)


class PluginState:
    """ctx.state: the plugin's durable JSON key/value store, in the same file
    as the agent's (<home>/plugin-data/<namespace>/state.json), so that state
    carries over between the agent and noora-hooks."""

    QUOTA = 10 * 1024 * 1024  # bytes of the whole file

    def __init__(self, plugin_id):
        import hashlib
        slug = "".join(c if c.isascii() and (c.isalnum() or c in "_-") else "-" for c in plugin_id.lower()).strip("-_") or "plugin"
        self._namespace = "agent-plugin-%s-%s" % (slug, hashlib.sha256(plugin_id.encode("utf-8")).hexdigest()[:8])

    @property
    def data_dir(self):
        return sys.modules["hermes_constants"].get_hermes_home() / "plugin-data" / self._namespace

    @property
    def path(self):
        return self.data_dir / "state.json"

    @property
    def quota_bytes(self):
        return self.QUOTA

    @staticmethod
    def _check_key(key):
        ok = (isinstance(key, str) and 1 <= len(key) <= 128 and ".." not in key and key[0].isascii() and key[0].isalnum()
              and all(c.isascii() and (c.isalnum() or c in "_.:-") for c in key))
        if not ok:
            raise ValueError("Plugin state keys must be 1-128 characters using letters, numbers, '_', '-', '.', or ':' (without '..')")

    def _locked(self):
        import contextlib
        import fcntl

        @contextlib.contextmanager
        def lock():
            self.data_dir.mkdir(parents=True, exist_ok=True)
            with open(self.data_dir / ".state.json.lock", "a+b") as handle:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
                try:
                    yield
                finally:
                    fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        return lock()

    def _read(self):
        try:
            with open(self.path, encoding="utf-8-sig") as handle:
                data = json.load(handle)
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            raise RuntimeError("Cannot parse plugin state %s: %s" % (self.path, exc)) from exc
        if not isinstance(data, dict):
            raise RuntimeError("Cannot parse plugin state %s: root must be an object" % self.path)
        return data

    def get(self, key, default=None):
        self._check_key(key)
        with self._locked():
            return self._read().get(key, default)

    def set(self, key, value):
        self._check_key(key)
        with self._locked():
            data = self._read()
            data[key] = value
            try:
                encoded = json.dumps(data, ensure_ascii=False, indent=2).encode("utf-8")
            except (TypeError, ValueError) as exc:
                raise ValueError("Plugin state value for %r is not JSON-serializable" % key) from exc
            if len(encoded) > self.QUOTA:
                raise ValueError("Plugin state quota exceeded: %d bytes is greater than the %d-byte per-plugin quota"
                                 % (len(encoded), self.QUOTA))
            tmp = self.path.with_name(".state.json.%d.tmp" % os.getpid())
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as handle:
                handle.write(encoded)
            os.replace(tmp, self.path)


class _PlatformActions:
    """ctx.platform_actions: its verbs never raise in the agent; here they do nothing."""

    def __init__(self, ctx):
        self._ctx = ctx

    def add_reaction(self, *args, **kwargs):
        self._ctx._warn_once(_unsupported_msg("platform_actions.add_reaction"))
        return {"ok": False, "error": "noora-hooks runs plugins out of process, without the gateway's platforms"}

    def set_thread_title(self, *args, **kwargs):
        self._ctx._warn_once(_unsupported_msg("platform_actions.set_thread_title"))
        return {"ok": False, "error": "noora-hooks runs plugins out of process, without the gateway's platforms"}


class _Ignored:
    """A facade of the agent's (ctx.llm, ctx.state, ...) that means nothing out of
    process: any use of it is reported once and gives None."""

    def __init__(self, ctx, name):
        self._ctx = ctx
        self._name = name

    def __call__(self, *args, **kwargs):
        self._ctx._warn_once(_unsupported_msg(self._name))
        return None

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Ignored(self._ctx, self._name + "." + attr)


class PluginContext:
    """The ctx given to register(ctx), with the agent's methods and signatures
    (hermes_cli/plugins.py): a call the agent refuses raises the same error
    here, and a method it does not have is an AttributeError. Registrations
    noora-hooks has no use for are accepted, checked as the agent checks them,
    and reported once."""

    def __init__(self, manifest):
        self.manifest = manifest
        self._hooks = []  # (event, callback, accepted kwarg names or None)
        self._sections = []  # (id, content, position, max_chars)
        self._section_ids = set()
        self._unload = []
        self._state = None
        self._warnings = []
        self._warned = set()
        self._registering = True

    def _warn_once(self, msg):
        if msg in self._warned:
            return
        self._warned.add(msg)
        if self._registering:
            self._warnings.append(msg)
        else:
            _warn(msg)

    def _ignore(self, name):
        self._warn_once(_unsupported_msg(name))

    def _refuse(self, what):
        return ValueError("Plugin '%s' tried to register %s." % (self.manifest.name, what))

    # -- identity and settings ---------------------------------------------
    @property
    def plugin_id(self):
        return self.manifest.key or self.manifest.name

    @property
    def profile_name(self):
        return "default"

    def has_plugin(self, plugin_id):
        return plugin_id in SETUP.plugins

    def has_capability(self, capability):
        return False  # nothing is granted out of process

    def get_config(self, key, default=None):
        segments = _setting_segments(key)
        entry = SETUP.plugin_entry(self.plugin_id)
        if entry is None:
            return default
        value = _nested(entry.get("settings"), segments, _MISSING)
        if value is not _MISSING:
            return value
        return _nested(entry.get("config"), segments, default)

    def set_config(self, key, value):
        _setting_segments(key)
        self._ignore("set_config")

    @property
    def state(self):
        if self._state is None:
            self._state = PluginState(self.plugin_id)
        return self._state

    @property
    def llm(self):
        return _Ignored(self, "llm")

    @property
    def subagent_lifecycle(self):
        return _Ignored(self, "subagent_lifecycle")

    @property
    def platform_actions(self):
        return _PlatformActions(self)

    # -- what noora-hooks runs ---------------------------------------------
    def register_hook(self, hook_name, callback):
        if not callable(callback):
            self._warn_once("register_hook(%r, ...): the callback is not callable; ignored" % (hook_name,))
            return
        self._hooks.append((str(hook_name), callback, _accepted(callback)))

    def register_system_prompt_section(self, id, content, *, position="after_memory", max_chars=DEFAULT_SECTION_MAX_CHARS):
        if not _valid_section_id(id):
            raise ValueError("system prompt section id must be 1-128 lowercase characters "
                             "using letters, numbers, '.', '_', or '-'")
        if not isinstance(content, str) and not callable(content):
            raise TypeError("system prompt section content must be a string or callable")
        if position not in SECTION_POSITIONS:
            raise ValueError("system prompt section position must be one of: " + ", ".join(sorted(SECTION_POSITIONS)))
        if isinstance(max_chars, bool) or not isinstance(max_chars, int) or not 0 < max_chars <= MAX_SECTION_CHARS:
            raise ValueError("system prompt section max_chars must be between 1 and %d" % MAX_SECTION_CHARS)
        if id in self._section_ids:
            raise ValueError("system prompt section %r is already registered by plugin %r" % (id, self.plugin_id))
        self._section_ids.add(id)
        self._sections.append((id, content, position, max_chars))

    def on_unload(self, callback):
        if not callable(callback):
            raise TypeError("on_unload callback must be callable")
        self._unload.append(callback)

    def spawn_task(self, coro, *, name=None):
        import asyncio
        if not asyncio.iscoroutine(coro):
            raise TypeError("spawn_task expects a coroutine")
        return asyncio.get_running_loop().create_task(coro, name=name or "plugin:%s:task" % self.plugin_id)

    # -- accepted, checked as the agent checks them, and reported ------------
    def register_tool(self, name, toolset, schema, handler, check_fn=None, requires_env=None, is_async=False,
                      description="", emoji="", override=False):
        if override and not self._tool_override_allowed():
            raise PluginToolOverrideError(
                "Plugin %r cannot override built-in tool %r. Set plugins.entries.%s.allow_tool_override: true "
                "in config.yaml to allow this plugin to replace built-in tools." % (self.manifest.name, name, self.plugin_id))
        self._ignore("register_tool")

    def _tool_override_allowed(self):
        entry = SETUP.plugin_entry(self.plugin_id) or {}
        granted = entry.get("granted_capabilities")
        return entry.get("allow_tool_override") is True or (isinstance(granted, list) and "tools.override" in granted)

    def register_middleware(self, kind, callback):
        self._ignore("register_middleware")

    def register_cli_command(self, name, help, setup_fn, handler_fn=None, description=""):
        self._ignore("register_cli_command")

    def register_command(self, name, handler, description="", args_hint="", argument_mode=None):
        self._ignore("register_command")

    def register_skill(self, name, path, description="", frontmatter=None):
        if ":" in name:
            raise ValueError("Skill name '%s' must not contain ':' (the namespace is derived from the "
                             "plugin name '%s' automatically)." % (name, self.manifest.name))
        if not name or not all(c in _NAME_CHARS for c in name):
            raise ValueError("Invalid skill name '%s'. Must match [a-zA-Z0-9_-]+." % name)
        if not path.exists():
            raise FileNotFoundError("SKILL.md not found at %s" % path)
        self._ignore("register_skill")

    def register_approval_transport(self, name, present_fn):
        clean = str(name).strip().lower()
        if clean == "builtin":
            raise ValueError("approval transport name 'builtin' is reserved")
        if not (1 <= len(clean) <= 64 and clean[0] in "abcdefghijklmnopqrstuvwxyz0123456789"
                and all(c in "abcdefghijklmnopqrstuvwxyz0123456789_-" for c in clean)):
            raise ValueError("approval transport name must match [a-z0-9][a-z0-9_-]{0,63}")
        if not callable(present_fn):
            raise TypeError("approval transport present_fn must be callable")
        self._ignore("register_approval_transport")

    def register_slack_action_handler(self, action_id, callback):
        if not callable(callback):
            raise self._refuse("a Slack action handler with a non-callable callback")
        if action_id is None or (isinstance(action_id, str) and not action_id.strip()):
            raise self._refuse("a Slack action handler with an empty action_id")
        self._ignore("register_slack_action_handler")

    def register_platform_handler(self, platform, factory):
        if not callable(factory):
            raise self._refuse("a platform handler factory with a non-callable factory")
        if not (platform or "").strip():
            raise self._refuse("a platform handler factory with an empty platform name")
        self._ignore("register_platform_handler")

    def register_telegram_handler(self, factory):
        self.register_platform_handler("telegram", factory)

    def register_auxiliary_task(self, key, *, display_name, description, defaults=None):
        me = self.manifest.name
        if not key or not isinstance(key, str):
            raise ValueError("Plugin '%s' tried to register auxiliary task with invalid key %r" % (me, key))
        if not all(c.isalnum() or c == "_" for c in key):
            raise ValueError("Plugin '%s' auxiliary task key %r must contain only alphanumeric "
                             "characters and underscores" % (me, key))
        self._ignore("register_auxiliary_task")

    def register_redaction_patterns(self, patterns):
        self._ignore("register_redaction_patterns")
        return 0

    def register_platform(self, name, label, adapter_factory, check_fn, validate_config=None, required_env=None,
                          install_hint="", **entry_kwargs):
        self._ignore("register_platform")

    def register_context_engine(self, engine):
        self._ignore("register_context_engine")

    def register_context_reference(self, provider):
        self._ignore("register_context_reference")

    def register_memory_provider(self, provider):
        self._ignore("register_memory_provider")

    def register_dashboard_auth_provider(self, provider):
        self._ignore("register_dashboard_auth_provider")

    def emit(self, event, payload=None):
        plugin_key = self.plugin_id
        if not event or not isinstance(event, str):
            raise ValueError("Plugin '%s' emit() requires a non-empty event name" % plugin_key)
        if ":" in event:
            raise ValueError("Plugin '%s' may not emit '%s': emit only the bare event name; the namespace is "
                             "forced to '%s:' and the 'hermes:' prefix is reserved for core" % (plugin_key, event, plugin_key))
        if payload is not None and not isinstance(payload, dict):
            raise TypeError("Plugin '%s' emit() payload must be a dict or None" % plugin_key)
        self._ignore("emit")
        return 0

    def subscribe(self, event, callback):
        if not event or not isinstance(event, str):
            raise ValueError("Plugin '%s' subscribe() requires a non-empty event name" % self.manifest.name)
        self._ignore("subscribe")

    def inject_message(self, content, role="user", *, session_key=None):
        self._ignore("inject_message")
        return False

    def dispatch_tool(self, tool_name, args, **kwargs):
        self._ignore("dispatch_tool")
        return json.dumps({"error": "noora-hooks runs plugins out of process, without the agent's tools"})

    def call_mcp(self, server, tool, arguments=None, timeout=30):
        allow = (SETUP.plugin_entry(self.plugin_id) or {}).get("mcp_allowlist")
        if server not in ([str(s) for s in allow] if isinstance(allow, list) else []):
            raise PermissionError(
                "Plugin %r is not allowed to call MCP server %r. Add it to plugins.entries.%s.mcp_allowlist "
                "in config.yaml to grant access (default is no MCP access)." % (self.manifest.name, server, self.plugin_id))
        self._ignore("call_mcp")
        return {"ok": False, "error": "noora-hooks runs plugins out of process, without the agent's MCP servers"}


def _provider_registrar(method):
    def register(self, provider):
        self._ignore(method)
    register.__name__, register.__qualname__ = method, "PluginContext." + method
    return register


for _method in ("register_image_gen_provider", "register_video_gen_provider", "register_web_search_provider",
                "register_browser_provider", "register_terminal_environment_provider", "register_tts_provider",
                "register_transcription_provider"):
    setattr(PluginContext, _method, _provider_registrar(_method))


def _register_secret_source(self, source):
    self._ignore("register_secret_source")


_register_secret_source.__name__, _register_secret_source.__qualname__ = "register_secret_source", "PluginContext.register_secret_source"
PluginContext.register_secret_source = _register_secret_source


# -- the agent's modules that plugins import for paths and config ------------
# Each answers from the noora-hooks home and config; anything else of the
# agent's is not there (docs/plugin-protocol.md, "The agent's modules").

def _standin_constants():
    m = types.ModuleType("hermes_constants")
    m.__doc__ = "noora-hooks stand-in for the agent's hermes_constants: paths answer from the noora-hooks home."

    def get_hermes_home():
        import pathlib
        return pathlib.Path(SETUP.home or os.environ.get("HERMES_HOME", "") or os.path.expanduser("~/.hermes"))

    def display_hermes_home():
        home = str(get_hermes_home())
        user = os.path.expanduser("~")
        return "~" + home[len(user):] if user not in ("", "/") and (home == user or home.startswith(user + os.sep)) else home

    def get_hermes_dir(new_subpath, old_name, *, home=None):
        home = home or get_hermes_home()
        old = home / old_name
        try:
            if old.is_dir() and any(old.iterdir()):
                return old
        except OSError:
            pass
        return home / new_subpath

    def get_default_hermes_root(*, home=None):
        import pathlib
        return pathlib.Path(home) if home is not None else get_hermes_home()

    def hermes_home_key(path=None):
        import pathlib
        p = pathlib.Path(path) if path is not None else get_hermes_home()
        return os.path.normcase(str(p.expanduser().resolve(strict=False)))

    m.get_hermes_home = get_hermes_home
    m.get_process_hermes_home = get_hermes_home
    m.display_hermes_home = display_hermes_home
    m.get_hermes_dir = get_hermes_dir
    m.get_default_hermes_root = get_default_hermes_root
    m.hermes_home_key = hermes_home_key
    return m


def _standin_config(constants):
    m = types.ModuleType("hermes_cli.config")
    m.__doc__ = ("noora-hooks stand-in for the agent's hermes_cli.config: load_config() is the "
                 "noora-hooks config.yaml as written (the agent's defaults are not merged in).")

    def get_config_path():
        import pathlib
        return pathlib.Path(SETUP.config_path) if SETUP.config_path else constants.get_hermes_home() / "config.yaml"

    def get_env_path():
        return constants.get_hermes_home() / ".env"

    m.load_config = SETUP.load_config
    m.load_config_readonly = SETUP.load_config
    m.read_raw_config = SETUP.load_config
    m.get_config_path = get_config_path
    m.get_env_path = get_env_path
    m.get_hermes_home = constants.get_hermes_home
    m.is_managed = lambda: False
    return m


# Top-level modules of the agent's source tree: importing one that the host
# does not stand in for fails with a message that says why.
_AGENT_MODULES = frozenset({
    "hermes_cli", "hermes_constants", "hermes_state", "hermes_logging", "hermes_time", "hermes_yaml",
    "run_agent", "model_tools", "toolsets", "toolset_distributions", "batch_runner", "cli",
    "agent", "gateway", "tools", "cron", "acp_adapter", "utils", "registration_lifecycle",
})


class _AgentModuleFinder:
    """Last on sys.meta_path: only an import that found nothing reaches it."""

    @staticmethod
    def find_spec(fullname, path=None, target=None):
        if fullname.split(".")[0] not in _AGENT_MODULES:
            return None
        raise ModuleNotFoundError(
            "No module named %r: it is part of the Noora agent, and noora-hooks runs plugins and gateway "
            "hooks out of process, without the agent (only hermes_constants and hermes_cli.config are "
            "provided; see docs/plugin-protocol.md)" % fullname, name=fullname)


def _install_standins():
    constants = _standin_constants()
    package = types.ModuleType("hermes_cli")
    package.__doc__ = "noora-hooks stand-in for the agent's hermes_cli package: only hermes_cli.config."
    package.__path__ = []
    config = _standin_config(constants)
    package.config = config
    sys.modules["hermes_constants"] = constants
    sys.modules["hermes_cli"] = package
    sys.modules["hermes_cli.config"] = config
    sys.meta_path.append(_AgentModuleFinder)
    if SETUP.home:
        os.environ["HERMES_HOME"] = SETUP.home


def _accepted(fn):
    """The keyword arguments fn declares, or None when it takes **kwargs (or
    its signature cannot be read): a narrow callback gets only what it names."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind == p.VAR_KEYWORD for p in params):
        return None
    return frozenset(p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))


class Host:
    def __init__(self, proto_in, proto_out):
        self.proto_in = proto_in
        self.proto_out = proto_out
        self.loop = None
        self.ctx = None
        self.handle = None  # gateway mode
        self.stage = "loading failed"  # what a failure while loading means

    def send(self, text):
        data = text.encode("utf-8", "surrogatepass")
        self.proto_out.write(data + b"\n")
        self.proto_out.flush()

    def send_obj(self, obj):
        self.send(json.dumps(obj, separators=(",", ":")))

    def run(self, value):
        """Runs value to completion when it is awaitable (async callbacks)."""
        if not inspect.isawaitable(value):
            return value
        return self.event_loop().run_until_complete(value)

    def event_loop(self):
        if self.loop is None:
            import asyncio  # only plugins with async callbacks pay for it (~30 ms)
            self.loop = asyncio.new_event_loop()
            asyncio.set_event_loop(self.loop)
        return self.loop

    def call_handle(self, event_type, context):
        """handle() runs inside the event loop, sync or async, as in the agent's
        gateway: a sync handler may start asyncio tasks too."""
        async def call():
            result = self.handle(event_type, context)
            if inspect.isawaitable(result):
                result = await result
            return result
        return self.event_loop().run_until_complete(call())

    def pending(self):
        """The background work a gateway handler left running: asyncio tasks
        not done, and threads that are neither daemons nor the main thread."""
        import threading
        tasks = []
        if self.loop is not None:
            import asyncio
            tasks = [t for t in asyncio.all_tasks(self.loop) if not t.done()]
        # The loop's own executor (asyncio.to_thread, run_in_executor(None,
        # ...)) keeps idle workers alive; the work they do for a task is
        # counted with the task.
        threads = [t for t in threading.enumerate()
                   if t is not threading.main_thread() and not t.daemon and t.is_alive()
                   and not t.name.startswith("asyncio_")]
        return tasks, threads

    def drain(self, timeout):
        """Waits for the pending background work, at most timeout seconds, as
        the agent's long-lived gateway lets it finish; returns what is left."""
        import time
        deadline = time.monotonic() + timeout
        while True:
            tasks, threads = self.pending()
            left = deadline - time.monotonic()
            if not (tasks or threads) or left <= 0:
                return len(tasks) + len(threads)
            if tasks:
                import asyncio
                self.loop.run_until_complete(asyncio.wait(tasks, timeout=min(left, 0.5)))
            else:
                threads[0].join(min(left, 0.5))

    def release(self, req):
        """A gateway handler has answered: say how much background work it
        left. When noora-hooks will not wait for it, the log moves to a file,
        since nobody will read stderr any more."""
        tasks, threads = self.pending()
        n = len(tasks) + len(threads)
        log = req.get("log")
        if n and not req.get("wait") and isinstance(log, str) and log:
            try:
                os.makedirs(os.path.dirname(log), exist_ok=True)
                fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
                os.dup2(fd, 2)
                os.dup2(fd, 1)
                os.close(fd)
            except OSError as exc:
                _warn("cannot open the log %s: %s" % (log, exc))
        return {"pending": n}

    def load_plugin(self, plugin_dir, name):
        ident = "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "plugin"
        if ident[0].isdigit():
            ident = "_" + ident
        if "noora_plugins" not in sys.modules:
            parent = types.ModuleType("noora_plugins")
            parent.__path__ = []
            sys.modules["noora_plugins"] = parent
        modname = "noora_plugins." + ident
        spec = importlib.util.spec_from_file_location(
            modname, os.path.join(plugin_dir, "__init__.py"), submodule_search_locations=[plugin_dir])
        module = importlib.util.module_from_spec(spec)
        sys.modules[modname] = module
        self.stage = "importing the plugin failed"
        spec.loader.exec_module(module)
        register = getattr(module, "register", None)
        if not callable(register):
            raise _LoadError("__init__.py defines no register(ctx) function")
        self.ctx = PluginContext(PluginManifest(SETUP.manifest if isinstance(SETUP.manifest, dict) else {}, plugin_dir))
        self.stage = "register() failed"
        self.run(register(self.ctx))
        self.ctx._registering = False
        hooks = [{"event": ev, "callback": getattr(cb, "__name__", type(cb).__name__)} for ev, cb, _ in self.ctx._hooks]
        sections = [{"id": json.loads(_jsonable(sid)), "position": json.loads(_jsonable(pos)),
                     "max_chars": json.loads(_jsonable(mc))} for sid, _, pos, mc in self.ctx._sections]
        return hooks, sections, self.ctx._warnings

    def load_gateway(self, hook_dir, name):
        path = os.path.join(hook_dir, "handler.py")
        ident = "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "hook"
        spec = importlib.util.spec_from_file_location("noora_gateway_hooks_" + ident, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        self.stage = "importing handler.py failed"
        spec.loader.exec_module(module)
        handle = getattr(module, "handle", None)
        if not callable(handle):
            raise _LoadError("handler.py defines no handle(event_type, context) function")
        self.handle = handle
        return [{"event": "handle", "callback": "handle"}], [], []

    def call(self, req):
        kind = req.get("type")
        if kind == "invoke":
            cwd = req.get("cwd")
            if isinstance(cwd, str) and cwd:
                try:
                    os.chdir(cwd)
                except OSError as exc:
                    _warn("cannot enter the caller's directory %s: %s" % (cwd, exc))
            kwargs = req.get("kwargs") or {}
            if not isinstance(kwargs, dict):
                raise ValueError("kwargs must be an object")
            if self.handle is not None:
                return self.call_handle(kwargs.get("event_type"), kwargs.get("context"))
            hook, index = req.get("hook"), req.get("callback", 0)
            callbacks = [(cb, names) for ev, cb, names in self.ctx._hooks if ev == hook]
            if not isinstance(index, int) or not 0 <= index < len(callbacks):
                raise LookupError("no callback %r registered for %r" % (index, hook))
            cb, names = callbacks[index]
            if names is not None:
                kwargs = {k: v for k, v in kwargs.items() if k in names}
            return self.run(cb(**kwargs))
        if kind == "release" and self.handle is not None:
            return self.release(req)
        if kind == "section":
            wanted = req.get("section")
            registered = self.ctx._sections if self.ctx is not None else []
            for sid, content, _, _ in registered:
                if sid == wanted:
                    if callable(content):
                        info = req.get("session_info")
                        content = self.run(content(types.MappingProxyType(info if isinstance(info, dict) else {})))
                    if not isinstance(content, str):
                        raise TypeError("the section is %s, not a string" % type(content).__name__)
                    return content
            raise LookupError("no section %r registered" % (wanted,))
        raise ValueError("unknown request type %r" % (kind,))

    def serve(self):
        while True:
            line = self.proto_in.readline(MAX_REQUEST + 1)
            if not line:
                return self.shutdown()  # stdin closed: a clean shutdown
            if len(line) > MAX_REQUEST:
                self.send_obj({"type": "fatal", "error": "a request is over %d bytes" % MAX_REQUEST})
                return 2
            try:
                req = json.loads(line)
                if not isinstance(req, dict):
                    raise ValueError("not an object")
            except ValueError as exc:
                _warn("ignoring a request that is not a JSON object: %s" % exc)
                continue
            rid = req.get("id")
            if not isinstance(rid, int):
                _warn("ignoring a request without an id")
                continue
            try:
                text = '{"type":"result","id":%d,"value":%s}' % (rid, _jsonable(self.call(req)))
            except BaseException as exc:  # noqa: a plugin may raise anything, even SystemExit
                if isinstance(exc, KeyboardInterrupt):
                    raise
                self.send_obj({"type": "error", "id": rid, "error": _clip(_describe(exc)), "where": _where(exc)})
                continue
            if len(text) > MAX_MESSAGE:
                self.send_obj({"type": "error", "id": rid,
                               "error": "the result is %d bytes, over the %d-byte limit of one message" % (len(text), MAX_MESSAGE)})
                continue
            self.send(text)


    def shutdown(self):
        if self.ctx is not None:
            for callback in reversed(self.ctx._unload):
                try:
                    self.run(callback())
                except Exception as exc:
                    _warn("an on_unload callback raised %s" % _describe(exc))
        if self.handle is None:
            return 0
        timeout = max(0.0, float(SETUP.drain_timeout))
        tasks, threads = self.pending()
        if not (tasks or threads):
            return 0
        # A task that blocks the loop, or a thread that never ends, must not
        # keep the process past the bound: the watchdog ends it.
        import threading
        import time

        def watchdog():
            time.sleep(timeout + 1)
            _warn("background work still running %gs after handle() returned; stopped" % timeout)
            os._exit(0)
        threading.Thread(target=watchdog, daemon=True).start()
        left = self.drain(timeout)
        if left:
            _warn("%d background task(s) or thread(s) still running %gs after handle() returned; stopped" % (left, timeout))
            sys.stderr.flush()
            os._exit(0)
        return 0


def read_setup(proto_in):
    """The init line noora-hooks sends first: the home, the config as the
    agent would read it, the plugin's manifest and the gateway drain bound."""
    line = proto_in.readline(MAX_REQUEST + 1)
    try:
        init = json.loads(line) if line else None
    except ValueError:
        init = None
    if not isinstance(init, dict) or init.get("type") != "init":
        raise _LoadError("noora-hooks sent no init line first (protocol %d)" % PROTOCOL)
    for key in ("home", "config_path", "config_error"):
        if isinstance(init.get(key), str):
            setattr(SETUP, key, init[key])
    SETUP.config = init.get("config") if isinstance(init.get("config"), dict) else None
    SETUP.manifest = init.get("manifest") if isinstance(init.get("manifest"), dict) else {}
    if isinstance(init.get("plugins"), list):
        SETUP.plugins = tuple(p for p in init["plugins"] if isinstance(p, str))
    if isinstance(init.get("drain_timeout"), (int, float)) and not isinstance(init.get("drain_timeout"), bool):
        SETUP.drain_timeout = init["drain_timeout"]


def main(argv):
    if len(argv) != 4 or argv[1] not in ("plugin", "gateway"):
        print("usage: host (plugin|gateway) DIR NAME", file=sys.stderr)
        return 2
    mode, directory, name = argv[1], argv[2], argv[3]
    global _OWN_DIR
    _OWN_DIR = os.path.abspath(directory)
    proto_in, proto_out = _take_stdio()
    sys.argv = [directory]
    host = Host(proto_in, proto_out)
    try:
        read_setup(proto_in)
        _install_standins()
        if mode == "plugin":
            hooks, sections, warnings = host.load_plugin(directory, name)
        else:
            hooks, sections, warnings = host.load_gateway(directory, name)
    except BaseException as exc:  # noqa: register() may raise anything
        if isinstance(exc, KeyboardInterrupt):
            raise
        if isinstance(exc, _LoadError):
            host.send_obj({"type": "fatal", "error": str(exc)})
            return 1
        host.send_obj({"type": "fatal", "error": _clip(host.stage + ": " + _describe(exc)), "where": _where(exc)})
        return 1
    host.send_obj({"type": "hello", "protocol": PROTOCOL, "hooks": hooks, "sections": sections, "warnings": warnings})
    return host.serve()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
