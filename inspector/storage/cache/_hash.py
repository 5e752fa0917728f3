"""BLAKE2b without `hashlib`'s OpenSSL start-up (a few ms of the memo's fast path); the same function."""

from __future__ import annotations

try:
    from _blake2 import blake2b
except ImportError:  # pragma: no cover (a Python built without it)
    from hashlib import blake2b

__all__ = ["blake2b"]
