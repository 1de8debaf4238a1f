"""noora-hooks plugin host.

Runs one Noora plugin (a package with register(ctx)) or one gateway hook
handler (handler.py with handle(event_type, context)) in this process and
serves the noora-hooks plugin protocol, version 1, on stdin/stdout
(docs/plugin-protocol.md). noora-hooks embeds this file and runs it as
    python3 -c <this file> plugin <plugin dir> <plugin name>
    python3 -c <this file> gateway <hook dir> <hook name>
The plugin's own prints go to stderr, the plugin's log: the real stdout is
kept for the protocol alone.
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


class _Unsupported:
    """Stands in for a ctx method that has no meaning out of process."""

    def __init__(self, ctx, name):
        self._ctx = ctx
        self._name = name

    def __call__(self, *args, **kwargs):
        self._ctx._warn_once(
            "ctx.%s is not supported by noora-hooks (it runs plugin hooks and "
            "system prompt sections only); the call was ignored" % self._name)
        return None

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Unsupported(self._ctx, self._name + "." + attr)


class PluginContext:
    """The ctx given to register(ctx), as in the Noora plugin guide."""

    def __init__(self, name, plugin_dir):
        self.name = name
        self.plugin_dir = plugin_dir
        self._hooks = []  # (event, callback, accepted kwarg names or None)
        self._sections = []  # (id, content, position, max_chars)
        self._warnings = []
        self._warned = set()
        self._registering = True

    def register_hook(self, hook_name, callback):
        if not callable(callback):
            self._warn_once("register_hook(%r, ...): the callback is not callable; ignored" % (hook_name,))
            return
        self._hooks.append((str(hook_name), callback, _accepted(callback)))

    def register_system_prompt_section(self, section_id, content, position="after_memory", max_chars=4000):
        self._sections.append((section_id, content, position, max_chars))

    def _warn_once(self, msg):
        if msg in self._warned:
            return
        self._warned.add(msg)
        if self._registering:
            self._warnings.append(msg)
        else:
            _warn(msg)

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Unsupported(self, attr)


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
        if self.loop is None:
            import asyncio  # only plugins with async callbacks pay for it (~30 ms)
            self.loop = asyncio.new_event_loop()
            asyncio.set_event_loop(self.loop)
        return self.loop.run_until_complete(value)

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
        self.ctx = PluginContext(name, plugin_dir)
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
                return self.run(self.handle(kwargs.get("event_type"), kwargs.get("context")))
            hook, index = req.get("hook"), req.get("callback", 0)
            callbacks = [(cb, names) for ev, cb, names in self.ctx._hooks if ev == hook]
            if not isinstance(index, int) or not 0 <= index < len(callbacks):
                raise LookupError("no callback %r registered for %r" % (index, hook))
            cb, names = callbacks[index]
            if names is not None:
                kwargs = {k: v for k, v in kwargs.items() if k in names}
            return self.run(cb(**kwargs))
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
                return 0  # stdin closed: a clean shutdown
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
