"""The hashes the tool uses (`blake2b`, `sha256`), taken from CPython's built-in modules rather than `hashlib`.

Importing `hashlib` loads OpenSSL's libcrypto: ~3.4 MB resident in every command that reads a session, a tenth of
what a cold `stats` may use on a 256 MiB file. The built-in modules compute the same digests (`hashlib` itself hands
out `_blake2.blake2b`).
"""

from __future__ import annotations

try:
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python built without it
    from hashlib import blake2b

try:
    from _sha256 import sha256  # Python 3.11
except ImportError:  # pragma: no cover - Python 3.12 merged the SHA-2 modules
    from _sha2 import sha256  # type: ignore[import-not-found,no-redef]

__all__ = ["blake2b", "sha256"]
