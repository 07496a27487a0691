"""Compressed logs are read whole or refused: a cut-off or damaged ``.gz``/``.bz2``/``.zst``
is a clear ``file: cannot read`` error (exit 2) on both the reference and the compiled
path, a ``.zst`` of several frames is read to its end, and a zstd bomb is unpacked in
bounded steps."""

from __future__ import annotations

import bz2
import gzip
import io
from pathlib import Path

import pytest
import zstandard
from typer.testing import CliRunner

from skatlog.cli import app
from skatlog.ingest.zstd_frames import open_zstd

SAMPLES = Path(__file__).resolve().parent.parent / "data" / "samples"
LOG = (SAMPLES / "skatfreunde-nord.sgf").read_bytes()


def test_every_frame_is_read_and_a_cut_off_frame_is_an_error() -> None:
    frame = zstandard.ZstdCompressor().compress(LOG)
    assert open_zstd(io.BytesIO(frame + frame)).read() == LOG + LOG
    assert open_zstd(io.BytesIO(b"")).read() == b""
    with pytest.raises(EOFError, match="ended before the end-of-stream marker"):
        open_zstd(io.BytesIO(frame[: len(frame) // 2])).read()
    with pytest.raises(zstandard.ZstdError):
        open_zstd(io.BytesIO(b"\x28\xb5\x2f\xfd" + b"garbage" * 50)).read()


def test_a_bomb_is_unpacked_in_bounded_steps() -> None:
    """The reader decompresses STEP_BYTES of input at a time, so it never holds more than
    one step's output (<= 64 MiB: a 4-byte zstd block unpacks to 128 KiB) of a frame that
    unpacks 256 MiB of zeros."""
    sink = io.BytesIO()
    with zstandard.ZstdCompressor(level=19).stream_writer(sink, closefd=False) as writer:
        for _ in range(256):
            writer.write(b"\0" * (1 << 20))
    reader = open_zstd(io.BytesIO(sink.getvalue()))
    frames = reader.raw  # type: ignore[attr-defined]
    total = held = 0
    while chunk := reader.read(1 << 16):
        total += len(chunk)
        held = max(held, len(frames._out))
    assert total == 256 << 20
    assert 0 < held <= 64 << 20  # (STEP_BYTES / 4) blocks of 128 KiB at most


def _damaged(tmp_path: Path) -> dict[str, Path]:
    whole = {".gz": gzip.compress(LOG), ".bz2": bz2.compress(LOG),
             ".zst": zstandard.ZstdCompressor().compress(LOG)}
    files = {}
    for suffix, data in whole.items():
        cut = tmp_path / f"cut{suffix}"
        cut.write_bytes(data[: len(data) * 2 // 3])
        files[f"cut{suffix}"] = cut
    fake = tmp_path / "fake.sgf.gz"
    fake.write_bytes(b"not gzip at all")
    files["fake.gz"] = fake
    return files


@pytest.mark.parametrize("path_flag", ["--no-fast", "--fast"])
def test_cut_off_or_fake_compressed_logs_are_refused_by_name(tmp_path: Path,
                                                            path_flag: str) -> None:
    runner = CliRunner()
    for label, path in _damaged(tmp_path).items():
        result = runner.invoke(app, ["validate", path_flag, str(path)])
        assert result.exit_code == 2, (label, result.output)
        assert f"{path}: cannot read" in result.output, (label, result.output)
        archive = tmp_path / f"arc-{label}"
        stored = runner.invoke(app, ["ingest", path_flag, "-q", str(path), "--archive",
                                     str(archive)])
        assert stored.exit_code == 2, (label, stored.output)
        assert not list(archive.glob("games/*.parquet"))  # nothing stored


def test_a_multi_frame_zst_log_is_read_to_its_end(tmp_path: Path) -> None:
    half = len(LOG) // 2
    cut = LOG.index(b"\n(;", half) + 1  # between two records
    compressor = zstandard.ZstdCompressor()
    path = tmp_path / "two-frames.sgf.zst"
    path.write_bytes(compressor.compress(LOG[:cut]) + compressor.compress(LOG[cut:]))
    plain = tmp_path / "plain.sgf"
    plain.write_bytes(LOG)
    runner = CliRunner()
    for flag in ("--no-fast", "--fast"):
        framed = runner.invoke(app, ["validate", flag, "--json", str(path)])
        whole = runner.invoke(app, ["validate", flag, "--json", str(plain)])
        assert framed.stdout.count("\n") == whole.stdout.count("\n") > 10
