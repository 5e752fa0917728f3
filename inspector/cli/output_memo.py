"""The memo of a headless command's final `--json` output, replayed while nothing it depends on changed.

`stats`, `context` and `timeline` print JSON that depends only on the command line (every option: leaf,
encoding, `--no-tiktoken`, `--context-window`, `--top`, ...), the working directory (a relative path), the
session file's bytes, the resolved OpenClaw config and the code. The memo is filed under a hash of the code
version, the working directory and the exact argument list, and holds the file's exact key and a fingerprint
of the config's resolved values (the config is read again on every run: its path alone proves nothing). A run
whose config has an error, or whose file changed while it was read, records nothing.

`replay(argv)` is the fast path `inspector.cli.main` tries before importing any command: it imports only this
module, `store`, `filekey` and `version`, so a warm run costs little more than the interpreter's start. The
memo also holds a witness of what the config's resolution depended on (`config_witness`: the environment
variables it reads, whether each path it probes exists, the identity of the file it read); while that holds,
the config resolves as it did and `inspector.host.openclaw_config` (JSON5, platformdirs: a third of the fast path's imports)
is not even imported. Otherwise the config is resolved again and its fingerprint compared. `begin` / `bind` /
`record` record a memo on the normal path.
"""

from __future__ import annotations

import os

from inspector.storage.cache._hash import blake2b
from inspector.storage.cache.cache_dir import CacheUnavailable, checked_dir, entry_name, read_entry, touch, write_entry
from inspector.storage.cache.code_version import code_version
from inspector.storage.cache.filekey import UNCHANGED, FileKey, compare

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: the replay path imports as little as it can
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

KIND = "memo"
MEMO_COMMANDS = frozenset({"stats", "context", "timeline"})
BUNDLED_ENCODING = "cl100k_base"
"""The one tiktoken encoding shipped with the package: whether another loads depends on tiktoken's own cache
dir, which can fill later, so a command line naming another encoding is not memoized."""


def _encodings(args: list[str]) -> list[str]:
    found = []
    for i, arg in enumerate(args):
        if arg == "--encoding":
            found.append(args[i + 1] if i + 1 < len(args) else "")
        elif arg.startswith("--encoding="):
            found.append(arg.partition("=")[2])
    return found


def eligible(argv: list[str]) -> bool:
    """Whether a command line may be memoized: a memo command, with `--json`, without `--no-cache` or help, and
    counting with the bundled encoding (or not at all)."""
    if not argv or argv[0] not in MEMO_COMMANDS:
        return False
    rest = set(argv[1:])
    if "--json" not in rest or "--no-cache" in rest or rest & {"-h", "--help"}:
        return False
    return "--no-tiktoken" in rest or all(e == BUNDLED_ENCODING for e in _encodings(argv[1:]))


def _name(argv: list[str], cwd: str) -> str:
    material = repr((code_version(), cwd, argv)).encode("utf-8", "surrogateescape")
    return entry_name(KIND, blake2b(material, digest_size=16).hexdigest())


def config_fingerprint(data: Any) -> str:
    """A hash of the resolved config values (key order ignored where JSON allows it)."""
    import orjson

    try:
        raw = orjson.dumps(data, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        raw = repr(data).encode("utf-8", "surrogateescape")
    return blake2b(raw, digest_size=16).hexdigest()


def _current_config(config_arg: str | None) -> str | None:
    """The fingerprint of the config as it resolves now; None when it has an error (never memoized)."""
    from pathlib import Path

    from inspector.host.openclaw_config import load_openclaw_config

    loaded = load_openclaw_config(Path(config_arg) if config_arg is not None else None)
    if loaded.error is not None:
        return None
    return config_fingerprint(loaded.data)


CONFIG_ENV = ("OPENCLAW_CONFIG_PATH", "OPENCLAW_STATE_DIR", "OPENCLAW_HOME", "HOME", "USERPROFILE")
"""The environment variables `inspector.host.openclaw_config` resolves the config file with."""
RACY_MS = 2000
"""A config file changed less than this long ago (milliseconds) gives no witness: a rewrite within the same timestamp tick
could keep its stat (the config is then resolved again on replay)."""


def _exists(path: str) -> bool:
    """`Path.exists` as `inspector.host.openclaw_config` probes it (any error: treated as absent there and here)."""
    try:
        os.stat(path)
    except (OSError, ValueError):
        return False
    return True


def _identity(path: str) -> list[int] | None:
    """Device, inode, size, mtime, ctime and mode of the file at `path` (links followed); None when absent."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_mode]


def config_witness(config_arg: str | os.PathLike[str] | None) -> dict[str, Any] | None:
    """What resolving the config (`inspector.host.openclaw_config.load_openclaw_config(config_arg)`) depends on: the environment
    variables it reads, whether each path it may probe exists, and the identity of the file it reads. None
    when that cannot be told (the file changed within `RACY_MS`, a home that cannot be resolved)."""
    from inspector.base.clock import SystemClock, now_ms
    from inspector.host.openclaw_config import (
        default_config_candidates,
        legacy_state_dirs,
        new_state_dir,
        openclaw_config_path,
    )

    try:
        if config_arg is not None:
            target, probes = str(config_arg), []
        else:
            target = str(openclaw_config_path())
            probes = [str(p) for p in (*default_config_candidates(), new_state_dir(), *legacy_state_dirs())]
    except (OSError, RuntimeError, KeyError, ValueError):
        return None
    identity = _identity(target)
    if identity is not None and now_ms(SystemClock()) - max(identity[3], identity[4]) // 1_000_000 < RACY_MS:
        return None
    return {
        "env": {name: os.environ.get(name) for name in CONFIG_ENV},
        "target": target,
        "identity": identity,
        "probes": [[p, _exists(p)] for p in probes],
    }


def _witness_holds(witness: Any) -> bool:
    """Whether the environment and the files are still as `witness` (from `config_witness`) saw them."""
    if not isinstance(witness, dict):
        return False
    if witness.get("env") != {name: os.environ.get(name) for name in CONFIG_ENV}:
        return False
    if witness.get("identity") != _identity(witness["target"]):
        return False
    return all(_exists(path) == found for path, found in witness["probes"])


def replay(argv: list[str]) -> memoryview | None:
    """The memoized output of this command line, when the file, the config and the code are as they were."""
    if not eligible(argv):
        return None
    try:
        directory = checked_dir(create=False)
        cwd = os.getcwd()
        name = _name(argv, cwd)
        got = read_entry(directory, name)
        if got is None:
            return None
        header, payload = got
        if (header.get("kind"), header.get("code"), header.get("argv"), header.get("cwd")) != (KIND, code_version(), argv, cwd):
            return None
        if header.get("output") != _digest(payload):
            return None  # cut short or damaged (a memo is written without waiting for the disk: `record`)
        key = FileKey.from_json(header["file"])
        if key.exact is None or compare(key, header["path_arg"]) != UNCHANGED:
            return None
        gateway = header.get("gateway_witness")
        if gateway is not None and gateway != gateway_witness(gateway["dirs"]):
            return None  # OpenClaw's Gateway log changed (or appeared): the output may have a gateway section
        rules_witness = header.get("rules_witness")
        if rules_witness is not None and rules_witness != installed_agents_witness():
            return None  # another openclaw or pi on PATH, or pi's settings changed: the rules chosen may differ
        if _witness_holds(header.get("config_witness")):
            touch(directory, name)
            return payload
        config_arg = header["config_arg"]
        before = config_witness(config_arg)
        if _current_config(config_arg) != header["config"]:
            return None
        if before is not None and before == config_witness(config_arg):
            # The config is as it was but the witness is new (the file was touched, or was too fresh to witness
            # when the memo was made): rewritten with it, the next replay skips resolving the config again.
            write_entry(directory, name, dict(header, config_witness=before), payload, durable=False)
        else:
            touch(directory, name)
        return payload
    except (CacheUnavailable, OSError, KeyError, TypeError, ValueError):
        return None


class _Recording:
    """The command line being recorded, and (once bound) the header its memo will have."""

    __slots__ = ("argv", "cwd", "gateway_witness", "header", "rules_witness")

    def __init__(self, argv: list[str], cwd: str) -> None:
        self.argv, self.cwd = argv, cwd
        self.header: dict[str, Any] | None = None
        self.rules_witness: Any = None
        self.gateway_witness: Any = None
        """The Gateway log directories the output read and their log files (`note_gateway_dirs`)."""
        """What the rule choice depended on (`note_rules`), kept until the header is bound."""


_recording: _Recording | None = None


def begin(argv: list[str]) -> None:
    """Start recording this command line's output (when it is eligible); forgets any earlier recording."""
    global _recording
    _recording = _Recording(list(argv), os.getcwd()) if eligible(list(argv)) else None


def end() -> None:
    """Stop recording (the command is over): a later command in the same process never records under this one."""
    global _recording
    _recording = None


def recording() -> bool:
    """Whether this command line's output is being recorded (`begin` found it eligible, nothing ended it)."""
    return _recording is not None


def bind(
    key: FileKey | None,
    path_arg: Path,
    config_arg: Path | None,
    config: Any,
    config_error: str | None,
    witness: dict[str, Any] | None = None,
) -> None:
    """What the output about to be printed was computed from: the file as read, the config as resolved (and
    `witness`, `config_witness` taken before and found the same after it was resolved, or None)."""
    global _recording
    if _recording is None:
        return
    if key is None or key.exact is None or config_error is not None:
        _recording = None  # the file changed while it was read, or the config is broken: nothing to memoize
        return
    _recording.header = {
        "kind": KIND,
        "code": code_version(),
        "argv": _recording.argv,
        "cwd": _recording.cwd,
        "path_arg": str(path_arg),
        "file": key.to_json(),
        "config_arg": None if config_arg is None else str(config_arg),
        "config": config_fingerprint(config),
        "config_witness": witness,
        "rules_witness": _recording.rules_witness,
        "gateway_witness": _recording.gateway_witness,
    }


def installed_agents_witness() -> list[Any]:
    """What the rule choice may ask when neither `--rules`, the session nor the config decide
    (`inspector.host.rules_choice`): which `openclaw` and which `pi` are first on PATH, with their identities
    (`_identity`), and the identity of pi's `settings.json` (its `lastChangelogVersion` names the pi of a session in
    pi's folder). A plain PATH walk, no `shutil`."""
    from inspector.host.pi_home import PI_SETTINGS, pi_agent_path

    found: list[Any] = []
    for program in ("openclaw", "pi"):
        hit: list[Any] = [None, None]
        for folder in os.environ.get("PATH", "").split(os.pathsep):
            candidate = os.path.join(folder or ".", program)
            identity = _identity(candidate)
            if identity is not None and os.access(candidate, os.X_OK) and not os.path.isdir(candidate):
                hit = [candidate, identity]
                break
        found.extend(hit)
    settings = os.path.join(pi_agent_path(), PI_SETTINGS)
    return [*found, settings, _identity(settings)]


def note_rules(choice: Any) -> None:
    """The rule choice the output carries: unless `--rules` named it, a choice may have asked the installed
    `openclaw` or `pi` (or found none), so the memo keeps what it found and holds only while it finds the same."""
    if _recording is None:
        return
    asked = choice.source != "flag"
    _recording.rules_witness = installed_agents_witness() if asked else None
    if _recording.header is not None:
        _recording.header["rules_witness"] = _recording.rules_witness


def gateway_witness(dirs: list[list[str]]) -> dict[str, Any]:
    """The identity of every file of each `[directory, name prefix]` of `dirs` (OpenClaw's Gateway log files and
    their rotations: `inspector.host.gateway_log.gateway_log_dirs`)."""
    listing: list[Any] = []
    for folder, prefix in dirs:
        try:
            names = sorted(n for n in os.listdir(folder) if n.startswith(prefix))
        except (OSError, ValueError):
            listing.append([folder, None])
            continue
        listing.append([folder, [[n, _identity(os.path.join(folder, n))] for n in names]])
    return {"dirs": list(dirs), "listing": listing}


def note_gateway_dirs(dirs: list[list[str]]) -> None:
    """The output read OpenClaw's Gateway log in `dirs`: its memo holds while their log files are as they are now."""
    if _recording is None:
        return
    _recording.gateway_witness = gateway_witness(dirs)
    if _recording.header is not None:
        _recording.header["gateway_witness"] = _recording.gateway_witness


def record(output: bytes) -> bool:
    """Store `output` (exactly what was printed) for the bound command line; True when written."""
    global _recording
    rec, _recording = _recording, None
    if rec is None or rec.header is None:
        return False
    try:
        directory = checked_dir(create=True)
    except CacheUnavailable:
        return False
    # Not fsynced: a memo is worth only a faster rerun, and the digest in its header turns one a crash left short or
    # damaged into a miss (the fsync cost ~1.5 ms of every command, and at times tens of ms behind other writes).
    header = dict(rec.header, output=_digest(output))
    return write_entry(directory, _name(rec.argv, rec.cwd), header, output, durable=False)


def _digest(output: bytes | memoryview) -> str:
    """What a memo's header says of its output: its length and hash."""
    return f"{len(output)}:{blake2b(output, digest_size=16).hexdigest()}"
