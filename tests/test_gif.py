"""The streaming GIF writer: round trips, file structure, differencing, atomicity, memory."""

import os
import struct
import tracemalloc

import numpy as np
import pytest
from gif_reader import lzw_decode, read_gif_frames

from pacman.view.gif import GifWriter, default_palette, lzw_encode, quantize

H, W = 60, 80


def scene(i: int, height: int = H, width: int = W) -> np.ndarray:
    """Black background, a yellow disc moving right, a blue rectangle moving down."""
    frame = np.zeros((height, width, 3), dtype=np.uint8)
    yy, xx = np.mgrid[:height, :width]
    cx, cy = 12 + 9 * i, height // 2
    frame[(yy - cy) ** 2 + (xx - cx) ** 2 <= 64] = (255, 221, 0)
    top = 3 + 5 * i
    frame[top:top + 8, width - 20:width - 6] = (33, 66, 222)
    # An anti-aliased-looking edge: colours that are not in the palette.
    frame[(yy - cy) ** 2 + (xx - cx) ** 2 == 81] = (128, 110, 3)
    return frame


def blocks(data: bytes):
    """Walk a GIF's blocks independently of read_gif_frames: (kind, fields) tuples."""
    assert data[:6] == b"GIF89a"
    flags = data[10]
    pos = 13 + (3 * (2 << (flags & 7)) if flags & 0x80 else 0)
    out = []

    def sub_blocks(pos):
        body = b""
        while data[pos]:
            body += data[pos + 1:pos + 1 + data[pos]]
            pos += 1 + data[pos]
        return body, pos + 1

    while True:
        kind = data[pos]
        if kind == 0x3B:
            out.append(("trailer", pos))
            return out
        if kind == 0x21:
            label = data[pos + 1]
            if label == 0xFF:
                ident = data[pos + 3:pos + 3 + data[pos + 2]]
                body, pos = sub_blocks(pos + 3 + data[pos + 2])
                out.append(("application", ident, body))
            else:
                body, pos = sub_blocks(pos + 2)
                out.append(("extension", label, body))
        elif kind == 0x2C:
            left, top, w, h, packed = struct.unpack_from("<HHHHB", data, pos + 1)
            body, end = sub_blocks(pos + 11)
            out.append(("image", (left, top, w, h), packed, data[pos + 10], end - pos))
            pos = end
        else:
            raise AssertionError(f"unknown block 0x{kind:02x}")


def write(path, frames, **kwargs):
    with GifWriter(path, **kwargs) as writer:
        for frame in frames:
            writer.add(frame)
    assert writer.frames == len(frames)
    return path


def test_round_trip_every_pixel(tmp_path):
    frames = [scene(i) for i in range(5)]
    path = write(tmp_path / "a.gif", frames, fps=10)
    decoded = read_gif_frames(path)
    assert len(decoded) == 5
    for frame, got in zip(frames, decoded):
        assert got.shape == (H, W, 3) and got.dtype == np.uint8
        np.testing.assert_array_equal(got, quantize(frame))


def test_file_structure(tmp_path):
    path = write(tmp_path / "a.gif", [scene(i) for i in range(5)], fps=7, loop=3)
    data = path.read_bytes()
    assert data.startswith(b"GIF89a") and data.endswith(b";")
    width, height, flags = struct.unpack_from("<HHB", data, 6)
    assert (width, height) == (W, H)
    assert flags & 0x80 and flags & 7 == 7  # a 256-entry global colour table
    found = blocks(data)
    assert found[-1][0] == "trailer" and found[-1][1] == len(data) - 1
    apps = [b for b in found if b[0] == "application"]
    assert apps == [("application", b"NETSCAPE2.0", b"\x01" + struct.pack("<H", 3))]
    controls = [b for b in found if b[0] == "extension" and b[1] == 0xF9]
    images = [b for b in found if b[0] == "image"]
    assert len(controls) == len(images) == 5
    for i, (_, _, body) in enumerate(controls):
        packed, delay, transparent = struct.unpack_from("<BHB", body)
        assert delay == round(100 / 7)
        assert (packed >> 2) & 7 == 1  # do not dispose
        # Later frames show unchanged pixels through the transparent index 255.
        assert (packed & 1, transparent) == ((0, 0) if i == 0 else (1, 255))
    assert images[0][1] == (0, 0, W, H)  # the first frame is whole
    assert all(image[3] == 8 for image in images)  # LZW minimum code size


def test_later_frames_are_the_bounding_box_of_changes(tmp_path):
    base = scene(0)
    moved = base.copy()
    moved[10:13, 20:25] = (240, 40, 40)
    moved[30, 40] = (255, 255, 255)
    path = write(tmp_path / "a.gif", [base, moved])
    images = [b for b in blocks(path.read_bytes()) if b[0] == "image"]
    assert images[1][1] == (20, 10, 21, 21)  # left, top, width, height
    np.testing.assert_array_equal(read_gif_frames(path)[1], quantize(moved))


def test_non_contiguous_frames(tmp_path):
    """Frames as pygame gives them: surfarray.array3d(surface).swapaxes(0, 1)."""
    frames = [np.ascontiguousarray(scene(i).swapaxes(0, 1)).swapaxes(0, 1) for i in range(3)]
    assert not frames[0].flags.c_contiguous
    path = write(tmp_path / "a.gif", frames)
    for frame, got in zip(frames, read_gif_frames(path)):
        np.testing.assert_array_equal(got, quantize(frame))


def test_identical_frames_are_tiny(tmp_path):
    frame = scene(2)
    path = write(tmp_path / "a.gif", [frame] * 4, fps=10)
    found = blocks(path.read_bytes())
    images = [b for b in found if b[0] == "image"]
    assert [b[1][2:] for b in images] == [(W, H), (1, 1), (1, 1), (1, 1)]
    assert all(b[4] < 20 for b in images[1:])  # descriptor + a few bytes of LZW
    delays = [struct.unpack_from("<H", b[2], 1)[0] for b in found if b[0] == "extension" and b[1] == 0xF9]
    assert delays == [10] * 4  # the timing is kept
    decoded = read_gif_frames(path)
    assert len(decoded) == 4
    for got in decoded:
        np.testing.assert_array_equal(got, quantize(frame))


@pytest.mark.parametrize("fps, delay", [(10, 10), (8, 12), (3, 33), (60, 2), (1000, 2), (0.5, 200)])
def test_delay(tmp_path, fps, delay):
    path = write(tmp_path / "a.gif", [scene(0)], fps=fps)
    control = next(b for b in blocks(path.read_bytes()) if b[0] == "extension" and b[1] == 0xF9)
    assert struct.unpack_from("<H", control[2], 1)[0] == delay


def test_no_loop_block_when_loop_is_none(tmp_path):
    path = write(tmp_path / "a.gif", [scene(0)], loop=None)
    assert not [b for b in blocks(path.read_bytes()) if b[0] == "application"]


def test_exception_leaves_nothing(tmp_path):
    path = tmp_path / "a.gif"
    with pytest.raises(RuntimeError):
        with GifWriter(path) as writer:
            writer.add(scene(0))
            assert os.listdir(tmp_path)  # the temporary file exists meanwhile...
            assert not path.exists()  # ...but not under the final name
            raise RuntimeError("boom")
    assert os.listdir(tmp_path) == []
    with pytest.raises(ValueError):
        writer.add(scene(0))


def test_abort_and_zero_frames_leave_nothing(tmp_path):
    writer = GifWriter(tmp_path / "a.gif")
    writer.add(scene(0))
    writer.abort()
    assert os.listdir(tmp_path) == []
    writer = GifWriter(tmp_path / "b.gif")
    with pytest.raises(ValueError, match="no frames"):
        writer.close()
    assert os.listdir(tmp_path) == []


def test_close_replaces_atomically_and_twice_is_harmless(tmp_path):
    path = tmp_path / "a.gif"
    path.write_bytes(b"old")
    writer = GifWriter(path)
    writer.add(scene(0))
    assert path.read_bytes() == b"old"
    writer.close()
    writer.close()
    assert path.read_bytes().startswith(b"GIF89a")
    assert os.listdir(tmp_path) == ["a.gif"]


def test_mismatched_shapes_and_bad_frames(tmp_path):
    with GifWriter(tmp_path / "a.gif") as writer:
        writer.add(scene(0))
        with pytest.raises(ValueError, match=r"\(50, 80, 3\).*\(60, 80, 3\)"):
            writer.add(np.zeros((50, 80, 3), np.uint8))
        with pytest.raises(ValueError, match="uint8"):
            writer.add(np.zeros((H, W, 3), np.float32))
        with pytest.raises(ValueError, match="uint8"):
            writer.add(np.zeros((H, W, 4), np.uint8))
        writer.add(scene(1))
    assert len(read_gif_frames(tmp_path / "a.gif")) == 2


def test_add_after_close(tmp_path):
    writer = GifWriter(tmp_path / "a.gif")
    writer.add(scene(0))
    writer.close()
    with pytest.raises(ValueError, match="closed"):
        writer.add(scene(1))


def test_missing_folder(tmp_path):
    path = tmp_path / "nowhere" / "a.gif"
    with pytest.raises(OSError) as caught:
        GifWriter(path)
    assert str(path) in str(caught.value)
    assert not (tmp_path / "nowhere").exists()
    with pytest.raises(OSError):
        GifWriter(tmp_path)  # a folder, not a file name
    with pytest.raises(ValueError):
        GifWriter(tmp_path / "a.gif", fps=0)
    assert os.listdir(tmp_path) == []


def test_quantize_exact_colours_and_error_bound():
    palette = default_palette()
    assert palette.colours.shape == (256, 3)
    assert len({tuple(c) for c in palette.colours}) == palette.used
    from pacman.resources import palette as game_palette

    exact = [(0, 0, 0), (255, 255, 255)]
    for value in game_palette().values():
        exact.extend(value if isinstance(value, list) else [value])
    colours = np.array([exact], dtype=np.uint8)
    np.testing.assert_array_equal(quantize(colours), colours)
    # The worst case over every grey and a big random sample.
    rng = np.random.default_rng(0)
    sample = rng.integers(0, 256, (300, 300, 3), dtype=np.uint8)
    greys = np.repeat(np.arange(256, dtype=np.uint8)[:, None], 3, axis=1)[None]
    assert np.abs(quantize(sample).astype(int) - sample).max() <= palette.max_error == 25
    assert np.abs(quantize(greys).astype(int) - greys).max() == palette.grey_error <= 5
    # Quantising twice changes nothing.
    once = quantize(sample)
    np.testing.assert_array_equal(quantize(once), once)


@pytest.mark.parametrize("n, alphabet", [(0, 1), (1, 1), (2, 2), (1000, 1), (5000, 3), (30000, 256), (70000, 16)])
def test_lzw_round_trip(n, alphabet):
    # 30000 random bytes fill the 4096-code table several times: clear codes.
    data = np.random.default_rng(n).integers(0, alphabet, n, dtype=np.uint8).tobytes()
    assert lzw_decode(lzw_encode(data), 8) == data


def test_noisy_frames_round_trip(tmp_path):
    """Full-table clear codes inside images, and differencing of large changes."""
    rng = np.random.default_rng(1)
    frames = [rng.integers(0, 256, (70, 90, 3), dtype=np.uint8) for _ in range(2)]
    frames.append(frames[1].copy())
    frames[2][5:9, 60:70] = 0
    path = write(tmp_path / "n.gif", frames)
    decoded = read_gif_frames(path)
    for frame, got in zip(frames, decoded):
        np.testing.assert_array_equal(got, quantize(frame))


def test_pygame_reads_it(tmp_path):
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    pygame = pytest.importorskip("pygame")
    if not pygame.image.get_extended():
        pytest.skip("pygame without SDL_image")
    frames = [scene(i) for i in range(5)]
    path = write(tmp_path / "a.gif", frames, fps=8)
    first = pygame.image.load(str(path))
    assert first.get_size() == (W, H)
    np.testing.assert_array_equal(pygame.surfarray.array3d(first).swapaxes(0, 1), quantize(frames[0]))
    load_animation = getattr(pygame.image, "load_animation", None)
    if load_animation is not None:  # pygame-ce >= 2.5: an independent decoder for every frame
        animation = load_animation(str(path))
        assert len(animation) == 5
        for frame, (surface, milliseconds) in zip(frames, animation):
            assert milliseconds == 120
            np.testing.assert_array_equal(pygame.surfarray.array3d(surface).swapaxes(0, 1), quantize(frame))


def test_memory_is_constant(tmp_path):
    height, width = 240, 320
    background = np.zeros((height, width, 3), np.uint8)
    background[::16] = (33, 66, 222)
    background[:, ::16] = (33, 66, 222)
    frame = background.copy()
    tracemalloc.start()
    try:
        with GifWriter(tmp_path / "m.gif", fps=20) as writer:
            marks = {}
            for i in range(300):
                # Redraw in place: the test itself allocates nothing per frame.
                np.copyto(frame, background)
                x = (5 * i) % (width - 20)
                frame[100:120, x:x + 20] = (255, 221, 0)
                frame[104:108, x + 6:x + 10] = (20, 40, 160)
                writer.add(frame)
                if i + 1 in (50, 300):
                    marks[i + 1] = tracemalloc.get_traced_memory()  # (current, peak)
                    tracemalloc.reset_peak()
    finally:
        tracemalloc.stop()
    assert writer.frames == 300
    (current_50, peak_50), (current_300, peak_300) = marks[50], marks[300]
    assert peak_50 < 4_000_000, marks  # the first, whole frame: a few frame-sized arrays
    assert peak_300 <= peak_50 * 1.2 + 100_000, marks  # frames 51..300 need no more
    assert current_300 <= current_50 + 50_000, marks  # nothing accumulates
    assert len(read_gif_frames(tmp_path / "m.gif")) == 300


# --- Pillow's C encoder -----------------------------------------------------------------------------


def _image_data(encoded: bytes) -> bytes:
    """The LZW stream inside min-code-size byte + sub-blocks + terminator."""
    assert encoded[0] == 8 and encoded[-1] == 0
    stream, end = b"", 1
    while encoded[end]:
        stream += encoded[end + 1:end + 1 + encoded[end]]
        end += 1 + encoded[end]
    assert end == len(encoded) - 1  # the terminator is the last byte
    return stream


@pytest.mark.parametrize("shape, alphabet", [((1, 1), 1), ((1, 7), 3), ((60, 80), 2), ((90, 70), 256),
                                             ((3, 5000), 16), ((255, 1), 200)])
def test_pillow_encoder_decodes_to_the_exact_indices(shape, alphabet):
    from pacman.view.gif import lzw_encode_pillow

    pytest.importorskip("PIL")
    indices = np.random.default_rng(alphabet).integers(0, alphabet, shape, dtype=np.uint8)
    data = lzw_decode(_image_data(lzw_encode_pillow(indices)), 8)
    assert data == indices.tobytes()


def test_both_encoders_write_the_same_pixels(tmp_path):
    pytest.importorskip("PIL")
    frames = [scene(i) for i in range(6)]
    fast = write(tmp_path / "fast.gif", frames, encoder="pillow")
    slow = write(tmp_path / "slow.gif", frames, encoder="python")
    for a, b, frame in zip(read_gif_frames(fast), read_gif_frames(slow), frames):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, quantize(frame))
    with pytest.raises(ValueError, match="encoder must be"):
        GifWriter(tmp_path / "x.gif", encoder="lzw9000")


def test_a_recorded_game_is_an_animated_gif_pillow_reads_frame_by_frame(tmp_path):
    """Frame count, size and every pixel of a few frames, as Pillow (an independent decoder) composites them."""
    Image = pytest.importorskip("PIL.Image")
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    from pacman.agents import ExpectimaxAgent, make_ghosts
    from pacman import load_layout, run_game
    from pacman.view.record import FrameRecorder

    layout = load_layout("small")
    agent = ExpectimaxAgent(depth=1)
    recorder = FrameRecorder(layout, tmp_path / "game.gif", fps=8, agent=agent, show_values=True)
    assert recorder.writer.encoder == "pillow"
    rendered = []
    add = recorder.writer.add

    def keep(frame):
        rendered.append(frame.copy())
        add(frame)

    recorder.writer.add = keep
    result = run_game(layout, agent, make_ghosts("random", 2), seed=5, max_moves=12, display=recorder)
    assert result.moves == 12
    with Image.open(tmp_path / "game.gif") as gif:
        assert gif.n_frames == recorder.frames == len(rendered) == 1 + 12 * 2 + 16
        assert gif.size == (rendered[0].shape[1], rendered[0].shape[0]) == recorder.renderer.size
        for number in (0, 1, 7, 24, len(rendered) - 1):
            gif.seek(number)
            pixels = np.asarray(gif.convert("RGB"))
            np.testing.assert_array_equal(pixels, quantize(rendered[number]))
            assert gif.info["duration"] == 60  # 8 rounds a second, two frames a round: 6 hundredths
