"""Test support: a small GIF decoder, to check what `pacman.view.gif` writes.

Written from the GIF89a specification, independently of the writer: an LZW
decoder and a reader that composites frames (global and local colour tables,
sub-images, interlacing, transparency, disposal methods 0..3). The product only
writes GIFs, so the reading half lives here with the tests.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

import numpy as np

__all__ = ["lzw_decode", "read_gif_frames"]

_MAX_CODES = 4096  # GIF LZW codes are at most 12 bits


def lzw_decode(stream: bytes, min_code_size: int, expected: int | None = None) -> bytes:
    """Decode a GIF LZW code stream (sub-blocks already joined)."""
    clear = 1 << min_code_size
    end = clear + 1
    table: list[bytes] = [bytes([i]) for i in range(clear)] + [b"", b""]
    size = min_code_size + 1
    out = bytearray()
    previous: bytes | None = None
    bits = int.from_bytes(stream, "little")
    total = len(stream) * 8
    position = 0
    while position + size <= total:
        code = (bits >> position) & ((1 << size) - 1)
        position += size
        if code == clear:
            del table[clear + 2:]
            size = min_code_size + 1
            previous = None
            continue
        if code == end:
            break
        if previous is None:
            if code >= clear:
                raise ValueError(f"GIF LZW: code {code} right after a clear code")
            entry = table[code]
        else:
            if code < len(table):
                entry = table[code]
                new = previous + entry[:1]
            elif code == len(table):
                entry = new = previous + previous[:1]
            else:
                raise ValueError(f"GIF LZW: code {code} beyond the table ({len(table)} entries)")
            if len(table) < _MAX_CODES:
                table.append(new)
                if len(table) == 1 << size and size < 12:
                    size += 1
        out += entry
        previous = entry
        if expected is not None and len(out) >= expected:
            break
    return bytes(out)


def _read_sub_blocks(data: bytes, position: int) -> tuple[bytes, int]:
    parts = []
    while True:
        if position >= len(data):
            raise ValueError("GIF truncated inside data sub-blocks")
        size = data[position]
        position += 1
        if size == 0:
            return b"".join(parts), position
        parts.append(data[position:position + size])
        position += size


def read_gif_frames(path: str | os.PathLike[str]) -> list[np.ndarray]:
    """Decode a GIF into its composited frames: a list of (height, width, 3) uint8 arrays.

    A small decoder for checking round trips: global and local colour tables,
    sub-images, interlacing, transparency and the disposal methods 0..3.
    """
    data = Path(path).read_bytes()
    if data[:6] not in (b"GIF87a", b"GIF89a"):
        raise ValueError(f"{path}: not a GIF file")
    width, height, flags, background, _aspect = struct.unpack_from("<HHBBB", data, 6)
    position = 13
    global_table = None
    if flags & 0x80:
        n = 2 << (flags & 7)
        global_table = np.frombuffer(data, np.uint8, n * 3, position).reshape(n, 3)
        position += n * 3
    background_colour = global_table[background] if global_table is not None and background < len(global_table) \
        else np.zeros(3, np.uint8)
    canvas = np.zeros((height, width, 3), dtype=np.uint8)
    canvas[:] = background_colour
    frames: list[np.ndarray] = []
    disposal = 0
    transparent: int | None = None
    while position < len(data):
        kind = data[position]
        position += 1
        if kind == 0x3B:  # trailer
            break
        if kind == 0x21:  # extension
            label = data[position]
            body, position = _read_sub_blocks(data, position + 1)
            if label == 0xF9 and len(body) >= 4:
                packed = body[0]
                disposal = (packed >> 2) & 7
                transparent = body[3] if packed & 1 else None
            continue
        if kind != 0x2C:
            raise ValueError(f"{path}: unknown block 0x{kind:02x} at byte {position - 1}")
        left, top, w, h, packed = struct.unpack_from("<HHHHB", data, position)
        position += 9
        table = global_table
        if packed & 0x80:
            n = 2 << (packed & 7)
            table = np.frombuffer(data, np.uint8, n * 3, position).reshape(n, 3)
            position += n * 3
        if table is None:
            raise ValueError(f"{path}: image without a colour table")
        min_code_size = data[position]
        stream, position = _read_sub_blocks(data, position + 1)
        pixels = lzw_decode(stream, min_code_size, w * h)
        if len(pixels) < w * h:
            raise ValueError(f"{path}: image {len(frames)} has {len(pixels)} of {w * h} pixels")
        index = np.frombuffer(pixels, np.uint8, w * h).reshape(h, w)
        if packed & 0x40:  # interlaced: rows stored in passes 0::8, 4::8, 2::4, 1::2
            order = np.concatenate([np.arange(0, h, 8), np.arange(4, h, 8), np.arange(2, h, 4), np.arange(1, h, 2)])
            unlaced = np.empty_like(index)
            unlaced[order] = index
            index = unlaced
        saved = canvas.copy() if disposal == 3 else None
        region = canvas[top:top + h, left:left + w]
        sub = index[:region.shape[0], :region.shape[1]]
        colours = table[np.minimum(sub, len(table) - 1)]
        if transparent is None:
            region[:] = colours
        else:
            keep = sub != transparent
            region[keep] = colours[keep]
        frames.append(canvas.copy())
        if disposal == 2:
            region[:] = background_colour
        elif disposal == 3 and saved is not None:
            canvas = saved
        disposal = 0
        transparent = None
    return frames
