"""BLAKE2b without `hashlib`'s OpenSSL start-up (a few ms of the memo's fast path); the same function, from
`inspector.base.digests`."""

from __future__ import annotations

from inspector.base.digests import blake2b

__all__ = ["blake2b"]
