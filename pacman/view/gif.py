"""A streaming animated-GIF writer.

Written from the GIF89a specification. Memory stays constant however many frames
are written: every frame is quantised, LZW-encoded and written to disk in
`GifWriter.add`, and only the previous frame (its RGB pixels and palette
indices) is kept, for frame differencing. The LZW coding of each frame is done
by Pillow's C encoder when Pillow is installed (about 10x faster), else by the
pure-Python `lzw_encode`; both give valid code streams of the same pixels.

File layout::

    "GIF89a", logical screen descriptor, global colour table (256 entries),
    NETSCAPE2.0 application extension (loop count),
    per frame: graphic control extension (delay, disposal 1 = "do not dispose")
               + image descriptor + LZW image data,
    trailer ";"

The first frame covers the whole screen; every later frame is only the bounding
box of the pixels whose colour changed (found on the RGB frames, so only that box
is quantised) (disposal "do not dispose" keeps
the rest on screen), and inside that box the unchanged pixels are written with
the transparent index (255), so they show the previous frame through and
compress to almost nothing. A frame with no change is written as a 1x1
transparent sub-image, so that it still takes its time.

Colours: one fixed global colour table, chosen for a dark-background arcade
game (see `Palette`):

* a 6x6x6 RGB cube (levels 0, 51, 102, 153, 204, 255; 216 entries), with pure
  black (0, 0, 0) at index 0 and pure white (255, 255, 255) exact;
* the colours of the game's own palette (`assets/palette.json`), exact;
* a ramp of greys (as fine as the remaining entries allow, plus the palette's
  greys), because anti-aliased text and lines on black are greys;
* index 255, reserved as the transparent index of differenced frames.

Quantisation is vectorised: a pixel that is exactly one of the extra colours
keeps it; a grey pixel (r == g == b) goes to the nearest grey of the ramp;
any other pixel goes to the nearest cube colour channel by channel. Worst-case
error per channel: 0 for the game's palette colours and black and white, at most
`Palette.grey_error` (5 with the shipped palette) for greys, at most 25 for any
other colour (`Palette.max_error`).
"""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from pacman.files import PendingFile

__all__ = ["GifWriter", "Palette", "default_palette", "quantize", "lzw_encode", "lzw_encode_pillow", "ENCODERS",
           "has_pillow"]

_CUBE_LEVELS = 6
_CUBE_STEP = 51  # 255 / (levels - 1)
_CUBE_SIZE = _CUBE_LEVELS ** 3  # 216
_MAX_CODES = 4096  # GIF LZW codes are at most 12 bits
TRANSPARENT = 255  # palette index of "unchanged" pixels in differenced frames; never a colour


class Palette:
    """A fixed 256-entry colour table and a vectorised nearest-colour mapping.

    `extra` colours (at most 19 that are neither grey nor in the cube) are kept
    exactly; greys among them join the grey ramp. The rest of the entries below
    255 is a ramp of evenly spaced greys; 255 is the transparent index.
    """

    def __init__(self, extra: Iterable[Iterable[int]] = ()) -> None:
        levels = np.arange(_CUBE_LEVELS) * _CUBE_STEP
        cube = np.stack(np.meshgrid(levels, levels, levels, indexing="ij"), axis=-1).reshape(-1, 3)
        in_cube = {tuple(int(v) for v in c) for c in cube}
        slots = TRANSPARENT - _CUBE_SIZE

        exact: list[tuple[int, int, int]] = []
        palette_greys: set[int] = set()
        for colour in extra:
            r, g, b = (int(v) for v in colour)
            if not all(0 <= v <= 255 for v in (r, g, b)):
                raise ValueError(f"colour {colour!r}: channels must be 0..255")
            if r == g == b:
                palette_greys.add(r)
            elif (r, g, b) not in in_cube and (r, g, b) not in exact:
                exact.append((r, g, b))
        exact = exact[: slots // 2]  # keep at least half of the spare slots for greys
        cube_greys = {int(v) for v in levels}

        # The finest even grey ramp that fits in the slots left.
        greys: list[int] = sorted(cube_greys)
        for steps in range(255, 4, -1):
            candidate = {round(i * 255 / steps) for i in range(steps + 1)} | palette_greys | cube_greys
            if len(candidate - cube_greys) <= slots - len(exact):
                greys = sorted(candidate)
                break
        new_greys = [v for v in greys if v not in cube_greys]

        colours = np.zeros((256, 3), dtype=np.uint8)
        colours[:_CUBE_SIZE] = cube
        n = _CUBE_SIZE
        for colour in exact:
            colours[n] = colour
            n += 1
        grey_index = {int(v): int(v) // _CUBE_STEP * (36 + 6 + 1) for v in cube_greys}
        for v in new_greys:
            colours[n] = (v, v, v)
            grey_index[v] = n
            n += 1
        # Unused entries (only with few extra colours), and the transparent index, are black.
        self.colours = colours
        self.used = n

        # Per-channel cube lookup tables, premultiplied so that r + g + b is the index.
        level = (np.arange(256) + _CUBE_STEP // 2) // _CUBE_STEP
        self._lut_r = (level * 36).astype(np.uint8)
        self._lut_g = (level * 6).astype(np.uint8)
        self._lut_b = level.astype(np.uint8)

        # Greys: nearest grey of the ramp for every level; only greys the cube gets
        # wrong (not a multiple of 51) need the correction.
        ramp = np.array(greys)
        nearest = ramp[np.abs(np.arange(256)[:, None] - ramp[None, :]).argmin(axis=1)]
        self._grey_lut = np.array([grey_index[int(v)] for v in nearest], dtype=np.uint8)
        self._grey_fix = self._grey_lut != level * 43
        self.grey_error = int(np.abs(nearest - np.arange(256)).max())

        # Exact extra colours: each channel value that occurs in one gets a small id
        # (0: occurs in none); the three ids, premultiplied per channel so that their
        # sum is a position, index a small table of palette index or 0 (not exact).
        self._exact_count = len(exact)
        distinct = [sorted({c[channel] for c in exact}) for channel in range(3)]
        sizes = [len(d) + 1 for d in distinct]
        strides = [sizes[1] * sizes[2], sizes[2], 1]
        self._exact_id = []
        for channel in range(3):
            lut = np.zeros(256, dtype=np.uint16)
            for i, v in enumerate(distinct[channel]):
                lut[v] = (i + 1) * strides[channel]
            self._exact_id.append(lut)
        self._exact_table = np.zeros(sizes[0] * sizes[1] * sizes[2], dtype=np.uint8)
        for i, colour in enumerate(exact):
            position = sum(int(self._exact_id[channel][colour[channel]]) for channel in range(3))
            self._exact_table[position] = _CUBE_SIZE + i

    @property
    def max_error(self) -> int:
        """Worst-case error per channel over all possible input colours."""
        return max(_CUBE_STEP // 2, self.grey_error)

    def indices(self, frame: np.ndarray) -> np.ndarray:
        """The (h, w) uint8 palette indices of an (h, w, 3) uint8 RGB frame."""
        r = frame[..., 0]
        g = frame[..., 1]
        b = frame[..., 2]
        index = self._lut_r.take(r)
        index += self._lut_g.take(g)
        index += self._lut_b.take(b)
        fix = r == g
        fix &= g == b
        fix &= self._grey_fix.take(r)
        if fix.any():
            np.copyto(index, self._grey_lut.take(r), where=fix)
        if self._exact_count:
            position = self._exact_id[0].take(r)
            position += self._exact_id[1].take(g)
            position += self._exact_id[2].take(b)
            exact = self._exact_table.take(position)
            np.copyto(index, exact, where=exact != 0)
        return index

    def quantize(self, frame: np.ndarray) -> np.ndarray:
        """`frame` with every pixel replaced by its palette colour: (h, w, 3) uint8."""
        return self.colours[self.indices(_check_frame(frame))]


_DEFAULT: Palette | None = None


def _game_colours() -> list[tuple[int, int, int]]:
    try:
        from pacman.resources import palette
    except ImportError:  # pragma: no cover - gif.py used on its own
        return []
    out: list[tuple[int, int, int]] = []
    try:
        items = palette().values()
    except (OSError, ValueError):  # pragma: no cover - assets missing
        return []
    for value in items:
        for colour in (value if value and isinstance(value[0], (list, tuple)) else [value]):  # type: ignore[index]
            out.append(tuple(int(v) for v in colour))  # type: ignore[arg-type]
    return out


def default_palette() -> Palette:
    """The colour table used by `GifWriter`: cube + the game's colours + greys."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Palette(_game_colours())
    return _DEFAULT


def quantize(frame: np.ndarray) -> np.ndarray:
    """`frame` as it will appear in the GIF: every pixel mapped to its palette colour."""
    return default_palette().quantize(frame)


def _check_frame(frame: Any) -> np.ndarray:
    frame = np.asarray(frame)
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise ValueError(f"a frame must be an (h, w, 3) uint8 RGB array, not {frame.dtype} {frame.shape}")
    if not (1 <= frame.shape[0] <= 65535 and 1 <= frame.shape[1] <= 65535):
        raise ValueError(f"frame size {frame.shape[1]}x{frame.shape[0]}: GIF sides are 1..65535 pixels")
    return frame


# --- LZW -----------------------------------------------------------------------------------------


def lzw_encode(data: bytes, min_code_size: int = 8) -> bytes:
    """GIF LZW: `data` (palette indices, one byte each) as a packed, LSB-first code stream.

    Codes start at min_code_size + 1 bits and grow to 12; a clear code is sent
    when the table fills. The result is the raw stream (not yet in sub-blocks).
    """
    clear = 1 << min_code_size
    end = clear + 1
    first = clear + 2
    if not data:
        codes = [clear, end]
    else:
        codes = [clear]
        append = codes.append
        table: dict[int, int] = {}
        get = table.get
        next_code = first
        it = iter(data)
        prefix = next(it)
        for byte in it:
            key = prefix << 8 | byte
            code = get(key)
            if code is not None:
                prefix = code
                continue
            append(prefix)
            if next_code < _MAX_CODES:
                table[key] = next_code
                next_code += 1
            else:
                append(clear)
                table.clear()
                next_code = first
            prefix = byte
        append(prefix)
        append(end)
    return _pack_codes(codes, min_code_size)


def lzw_encode_pillow(indices: np.ndarray) -> bytes:
    """An (h, w) uint8 array of palette indices as GIF image data: minimum code size 8, LZW sub-blocks, terminator.

    Pillow's C encoder ("gif", bits 8, not interlaced) codes one image on its own,
    so frames can be streamed: nothing is kept between calls.
    """
    from PIL import Image

    height, width = indices.shape
    image = Image.frombuffer("L", (width, height), np.ascontiguousarray(indices).tobytes(), "raw", "L", 0, 1)
    return b"\x08" + image.tobytes("gif", "L", 8, 0) + b"\x00"


def _lzw_encode_python(indices: np.ndarray) -> bytes:
    return b"\x08" + _sub_blocks(lzw_encode(np.ascontiguousarray(indices).tobytes(), 8))


def has_pillow() -> bool:
    """True when Pillow is installed, so that the "pillow" encoder (about 10x faster) can be used."""
    import importlib.util

    return importlib.util.find_spec("PIL") is not None


ENCODERS = {"pillow": lzw_encode_pillow, "python": _lzw_encode_python}
"""Image-data encoders by name: (h, w) uint8 indices -> min code size byte + sub-blocks + terminator."""


def _pack_codes(codes: list[int], min_code_size: int) -> bytes:
    """Pack codes LSB-first with the widths a GIF decoder expects at each position."""
    clear = 1 << min_code_size
    array = np.array(codes, dtype=np.int64)
    # Position of each code within its clear-to-clear segment: the clear code is 0,
    # the m-th code after it is m. The decoder, one table entry behind the encoder,
    # reads code m with max(min+1, bit_length(clear + m)) bits, at most 12.
    n = len(array)
    is_clear = array == clear
    seg_start = np.maximum.accumulate(np.where(is_clear, np.arange(n), 0))
    m = np.arange(n) - seg_start
    widths = np.minimum(12, np.maximum(min_code_size + 1, _bit_length(clear + m)))
    # The clear code that follows a full table is read with the full width (12).
    after_full = np.zeros(n, dtype=bool)
    after_full[1:] = is_clear[1:]
    widths[after_full] = 12
    widths[0] = min_code_size + 1
    ends = np.cumsum(widths)
    starts = ends - widths
    total_bytes = int(ends[-1] + 7) // 8
    shifted = array << (starts & 7)  # at most 12 + 7 = 19 bits: 3 bytes
    byte = starts >> 3
    out = np.zeros(total_bytes + 3, dtype=np.int64)
    for k in range(3):  # the pieces of different codes never share a bit: sums are ORs
        out += np.bincount(byte + k, weights=(shifted >> (8 * k)) & 0xFF, minlength=total_bytes + 3).astype(np.int64)
    return out[:total_bytes].astype(np.uint8).tobytes()


def _bit_length(values: np.ndarray) -> np.ndarray:
    out = np.zeros(values.shape, dtype=np.int64)
    v = values.copy()
    while (v > 0).any():
        out += v > 0
        v >>= 1
    return out


def _sub_blocks(data: bytes) -> bytes:
    parts = []
    for i in range(0, len(data), 255):
        chunk = data[i:i + 255]
        parts.append(bytes([len(chunk)]))
        parts.append(chunk)
    parts.append(b"\x00")
    return b"".join(parts)


# --- Writer --------------------------------------------------------------------------------------


class GifWriter:
    """Streams frames into an animated GIF at `path`.

    The file is written under a temporary name in the same folder (a
    `pacman.files.PendingFile`) and renamed to `path` by `close()`, so a
    half-written GIF never appears under its final name. `abort()` removes the
    temporary file and leaves `path` as it was; used as a context manager, an
    exception inside the block (Ctrl-C and stopping signals included) does so.

    `fps` sets each frame's delay: round(100 / fps) hundredths of a second
    (at least 2: browsers slow down shorter delays). `loop` is the NETSCAPE2.0
    loop count: 0 repeats forever, n plays n extra times; None plays once.
    """

    def __init__(self, path: str | os.PathLike[str], fps: float = 10.0, loop: int | None = 0,
                 palette: Palette | None = None, encoder: str = "auto") -> None:
        if encoder == "auto":
            encoder = "pillow" if has_pillow() else "python"
        if encoder not in ENCODERS:
            raise ValueError(f"encoder must be 'auto', 'pillow' or 'python', not {encoder!r}")
        self.encoder = encoder
        self._encode = ENCODERS[encoder]
        if not fps > 0:
            raise ValueError(f"fps must be positive, not {fps}")
        if loop is not None and not 0 <= loop <= 65535:
            raise ValueError(f"loop must be 0 (forever) .. 65535, not {loop}")
        self.path = Path(path)
        self.fps = fps
        self.loop = loop
        self.delay = min(65535, max(2, round(100 / fps)))
        self.palette = palette or default_palette()
        self.frames = 0
        self.shape: tuple[int, int, int] | None = None
        self._previous: np.ndarray | None = None
        self._previous_rgb: np.ndarray | None = None
        self._closed = False
        self._file = None
        if self.path.is_dir():
            raise IsADirectoryError(21, "is a folder, not a file name for a GIF", str(self.path))
        self._pending: PendingFile | None = None
        try:
            self._pending = PendingFile(self.path)
            self._file = open(self._pending.temporary, "wb")
        except OSError as error:
            self._remove_tmp()
            reason = error.strerror or str(error)
            if isinstance(error, FileNotFoundError):
                reason = f"folder {self.path.parent} does not exist"
            raise OSError(error.errno, f"cannot write a GIF there: {reason}", str(self.path)) from error

    @property
    def closed(self) -> bool:
        return self._closed

    def add(self, frame: np.ndarray) -> None:
        """Quantise `frame` ((h, w, 3) uint8 RGB), encode it and write it."""
        if self._closed:
            raise ValueError(f"{self.path}: add() after the GIF writer was closed")
        frame = _check_frame(frame)
        if self.shape is None:
            self.shape = frame.shape
        elif frame.shape != self.shape:
            raise ValueError(f"{self.path}: frame shape {frame.shape} differs from the first frame's {self.shape}")
        assert self._file is not None
        if self._previous is None:
            index = self.palette.indices(frame)
            height, width = index.shape
            self._file.write(self._header(width, height))
            self._file.write(self._image(0, 0, index, transparent=False))
            self._previous = index
            self._previous_rgb = frame.copy()
            self.frames += 1
            return
        assert self._previous_rgb is not None
        previous_rgb = self._previous_rgb
        # Three 2-D comparisons are several times faster than one over the colour axis.
        moved = frame[..., 0] != previous_rgb[..., 0]
        moved |= frame[..., 1] != previous_rgb[..., 1]
        moved |= frame[..., 2] != previous_rgb[..., 2]
        rows = np.flatnonzero(moved.any(axis=1))
        left = top = 0
        sub = None
        if len(rows):
            top, bottom = int(rows[0]), int(rows[-1]) + 1
            cols = np.flatnonzero(moved[top:bottom].any(axis=0))
            left, right = int(cols[0]), int(cols[-1]) + 1
            box = (slice(top, bottom), slice(left, right))
            # Only the pixels that changed colour are quantised.
            ys, xs = np.nonzero(moved[box])
            ys += top
            xs += left
            pixels = frame[ys, xs]
            index = self.palette.indices(pixels)
            changed = index != self._previous[ys, xs]
            if changed.any():
                # Inside the box, unchanged pixels are transparent: long runs of one
                # index, which LZW packs far better than the board they show through.
                sub = np.full((bottom - top, right - left), TRANSPARENT, dtype=np.uint8)
                sub[ys[changed] - top, xs[changed] - left] = index[changed]
            self._previous[ys, xs] = index
            previous_rgb[ys, xs] = pixels
        if sub is None:
            # Nothing changed: one transparent pixel, so the frame still takes its time.
            left, top, sub = 0, 0, np.full((1, 1), TRANSPARENT, dtype=np.uint8)
        self._file.write(self._image(left, top, sub, transparent=True))
        self.frames += 1

    def _header(self, width: int, height: int) -> bytes:
        parts = [
            b"GIF89a",
            # Logical screen: global colour table present, 8 bits colour resolution, 256 entries.
            struct.pack("<HHBBB", width, height, 0xF7, 0, 0),
            self.palette.colours.tobytes(),
        ]
        if self.loop is not None:
            parts.append(b"\x21\xff\x0bNETSCAPE2.0" + struct.pack("<BBHB", 3, 1, self.loop, 0))
        return b"".join(parts)

    def _image(self, left: int, top: int, sub: np.ndarray, transparent: bool) -> bytes:
        height, width = sub.shape
        # Graphic control extension: disposal 1 ("do not dispose"), and after the
        # first frame the transparent index (pixels that keep the previous frame's colour).
        control = b"\x21\xf9\x04" + struct.pack("<BHBB", 1 << 2 | transparent, self.delay,
                                                TRANSPARENT if transparent else 0, 0)
        descriptor = b"\x2c" + struct.pack("<HHHHB", left, top, width, height, 0)
        return control + descriptor + self._encode(sub)

    def close(self) -> None:
        """Write the trailer and move the file to `path`. Closing twice is harmless."""
        if self._closed:
            return
        if self.frames == 0:
            self.abort()
            raise ValueError(f"{self.path}: no frames were added; no GIF written")
        self._closed = True
        self._previous = self._previous_rgb = None
        assert self._file is not None
        assert self._pending is not None
        try:
            self._file.write(b";")
            self._file.close()
            self._pending.commit()
        except BaseException:
            self._remove_tmp()
            raise

    def abort(self) -> None:
        """Stop without writing: remove the temporary file, leave nothing at `path`."""
        if self._closed:
            return
        self._closed = True
        self._previous = self._previous_rgb = None
        self._remove_tmp()

    def _remove_tmp(self) -> None:
        if self._file is not None:
            try:
                self._file.close()
            except OSError:
                pass
        if self._pending is not None:
            self._pending.discard()

    def __enter__(self) -> GifWriter:
        return self

    def __exit__(self, kind: Any, value: Any, traceback: Any) -> None:
        if kind is None:
            self.close()
        else:
            self.abort()

    def __del__(self) -> None:
        # An abandoned writer must not leave its temporary file behind.
        if getattr(self, "_closed", True) is False and getattr(self, "_pending", None) is not None:
            try:
                self.abort()
            except Exception:  # pragma: no cover - interpreter shutdown
                pass
