"""Small valid PNG images for sample sessions, the same bytes whatever zlib build is installed (`png_base64`), and the
size of one (`png_size`: the builder's automatic usage counts an image by its pixels)."""

from __future__ import annotations

import base64
import struct
import zlib
from collections.abc import Sequence

__all__ = ["png_base64", "png_size"]


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def _stored_zlib(raw: bytes) -> bytes:
    """A zlib stream of stored (uncompressed) deflate blocks: identical bytes whatever zlib build is installed."""
    out = bytearray(b"\x78\x01")
    for start in range(0, max(len(raw), 1), 65535):
        block = raw[start : start + 65535]
        final = 1 if start + 65535 >= len(raw) else 0
        out += bytes([final]) + struct.pack("<HH", len(block), len(block) ^ 0xFFFF) + block
    out += struct.pack(">I", zlib.adler32(raw) & 0xFFFFFFFF)
    return bytes(out)


def png_base64(width: int, height: int, pixels: Sequence[Sequence[int]], palette: Sequence[tuple[int, int, int]]) -> str:
    """Base64 of a valid 4-bit palette PNG. `pixels[y][x]` are palette indexes (0-15)."""
    if not 1 <= len(palette) <= 16:
        raise ValueError("palette must have 1..16 colours")
    rows = bytearray()
    for y in range(height):
        rows.append(0)  # filter: none
        row = pixels[y]
        for x in range(0, width, 2):
            hi = row[x] & 0xF
            lo = row[x + 1] & 0xF if x + 1 < width else 0
            rows.append((hi << 4) | lo)
    png = b"\x89PNG\r\n\x1a\n"
    png += _png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 4, 3, 0, 0, 0))
    png += _png_chunk(b"PLTE", b"".join(bytes(c) for c in palette))
    png += _png_chunk(b"IDAT", _stored_zlib(bytes(rows)))
    png += _png_chunk(b"IEND", b"")
    return base64.b64encode(png).decode("ascii")


def png_size(data_b64: str) -> tuple[int, int] | None:
    try:
        head = base64.b64decode(data_b64[:48])
    except ValueError:
        return None
    if head[:8] != b"\x89PNG\r\n\x1a\n" or len(head) < 24:
        return None
    return struct.unpack(">II", head[16:24])
