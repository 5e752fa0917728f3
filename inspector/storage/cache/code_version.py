"""Which code wrote a cache entry: an entry written by another version (or another edit) is ignored.

`code_version()` combines the cache's own format number, the Python version (pickle and object layout), the
package version when the package defines one, and a fingerprint of every file of the installed `inspector`
package (relative path, size, mtime): any other release, reinstall or local edit gives another version, so a
cached figure is never one computed by other code. Cheap (a stat per file, ~110 files): no `importlib.metadata`,
whose import alone costs more than the memo's whole fast path.
"""

from __future__ import annotations

import os
import sys

from inspector.storage.cache._hash import blake2b

FORMAT_VERSION = 3
"""The cache's own format; bump it when what an entry holds changes shape (3: a packed usage holds 11 doubles, the
`contextUsage` figure last)."""


def _package_dir() -> str:
    return os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


_computed: str | None = None


def code_version() -> str:
    """`f<format>-py<x.y>-<package version>-<fingerprint>`: equal only for the same code on the same Python.

    Computed once per process (no `functools.cache`, no pathlib: a replayed memo imports neither)."""
    global _computed
    if _computed is None:
        _computed = _fingerprint()
    return _computed


def _fingerprint() -> str:
    root = _package_dir()
    digest = blake2b(digest_size=12)
    stack = [""]
    while stack:
        rel = stack.pop()
        try:
            with os.scandir(os.path.join(root, rel)) as it:
                found = sorted(it, key=lambda d: d.name)
        except OSError:
            continue
        for item in found:
            name = f"{rel}/{item.name}" if rel else item.name
            try:
                if item.is_dir(follow_symlinks=False):
                    if item.name != "__pycache__":
                        stack.append(name)
                    continue
                st = item.stat()
            except OSError:
                continue
            if not item.name.endswith((".pyc", ".pyo")):
                digest.update(f"{name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode("utf-8", "surrogateescape"))
    package = sys.modules.get("inspector")
    release = str(getattr(package, "__version__", "")) or "dev"
    py = f"{sys.implementation.name}{sys.version_info.major}.{sys.version_info.minor}"
    return f"f{FORMAT_VERSION}-{py}-{release}-{digest.hexdigest()}"
