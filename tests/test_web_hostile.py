"""Hostile and oversized uploads: each gets a clear error and leaves the archive as it was."""

from __future__ import annotations

import asyncio
import bz2
import contextlib
import gzip
import io
import os
import random
import select
import socket
import threading
import time
import zipfile
import zlib
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
import uvicorn
import zstandard
from fastapi import FastAPI
from fastapi.testclient import TestClient

from skatlog.web.app import create_app
from skatlog.web.clubs import ClubStore
from skatlog.web.errors import UploadRejected
from skatlog.web.receive import receive_upload, safe_filename
from skatlog.web.samples import sample_log
from skatlog.web.settings import WebSettings

KIB, MIB = 1 << 10, 1 << 20
SCRIPT = "<script>alert('x')</script>"
IMG = '<img src=x onerror="alert(1)">'


class Setup:
    def __init__(self, root: Path, **limits: int) -> None:
        self.root = root
        self.store = ClubStore(root)
        self.token = self.store.add("alpha")
        self.client = TestClient(create_app(WebSettings(archive=root, **limits)))
        self.headers = {"Authorization": f"Bearer {self.token}"}
        # a first, good upload: every hostile one must leave exactly this behind
        first = self.upload(sample_log(6, seed=1).encode())
        assert first.status_code == 200 and first.json()["stored"] == 6
        self.before = self.snapshot()

    def upload(self, data: bytes, name: str = "log.sgf"):  # type: ignore[no-untyped-def]
        return self.client.post("/api/uploads", files={"file": (name, data)},
                                headers=self.headers)

    def snapshot(self) -> dict[str, bytes]:
        archive = self.store.club_archive("alpha")
        return {"manifest": (archive / "manifest.json").read_bytes(),
                "games": str(self.client.get("/api/games", headers=self.headers)
                             .json()["total"]).encode()}

    def refused(self, response, status: int, code: str) -> None:  # type: ignore[no-untyped-def]
        assert response.status_code == status, response.text
        body = response.json()
        assert body["code"] == code and body["detail"]
        assert "Traceback" not in response.text
        assert self.snapshot() == self.before


@pytest.fixture
def setup(tmp_path: Path) -> Setup:
    return Setup(tmp_path, max_upload_bytes=256 * KIB, max_unpacked_bytes=2 * MIB,
                 max_line_bytes=16 * KIB, max_games=50)


def _multipart(data: Iterator[bytes], boundary: str = "hostileboundary") -> Iterator[bytes]:
    yield (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; "
           f"filename=\"big.sgf\"\r\nContent-Type: application/octet-stream\r\n\r\n").encode()
    yield from data
    yield f"\r\n--{boundary}--\r\n".encode()


def test_receive_stops_reading_once_the_limit_is_crossed(tmp_path: Path) -> None:
    pulled = []

    async def body() -> AsyncIterator[bytes]:
        for chunk in _multipart(iter([b"x" * (64 * KIB)] * 64)):  # about 4 MiB
            pulled.append(len(chunk))
            yield chunk

    async def run() -> None:
        with open(tmp_path / "received", "wb") as target:
            await receive_upload("multipart/form-data; boundary=hostileboundary", body(), target,
                                 max_bytes=256 * KIB)

    with pytest.raises(UploadRejected) as refused:
        asyncio.run(run())
    assert refused.value.status == 413 and refused.value.code == "too_large"
    assert sum(pulled) <= 256 * KIB + 64 * KIB + 200  # one chunk past the limit, no more
    assert (tmp_path / "received").stat().st_size <= 256 * KIB


def test_real_server_answers_413_before_the_body_is_sent(tmp_path: Path) -> None:
    """Over a real socket with chunked transfer (no Content-Length to go by): the 413 arrives
    while the client is still sending, long before the 4 MiB body is through."""
    store = ClubStore(tmp_path)
    token = store.add("alpha")
    app = create_app(WebSettings(archive=tmp_path, max_upload_bytes=256 * KIB))
    with _uvicorn(app) as port, socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall((f"POST /api/uploads HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                      f"Authorization: Bearer {token}\r\nTransfer-Encoding: chunked\r\n"
                      "Content-Type: multipart/form-data; boundary=hostileboundary\r\n\r\n"
                      ).encode())
        sent = 0
        answer = b""
        try:
            for chunk in _multipart(iter([b"x" * (64 * KIB)] * 64)):
                sock.sendall(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                sent += len(chunk)
                readable, _, _ = select.select([sock], [], [], 0.05)
                if readable:
                    answer = sock.recv(65536)
                    break
        except (BrokenPipeError, ConnectionResetError):
            pass
        sock.settimeout(5)
        while b"too_large" not in answer:
            more = sock.recv(65536)
            if not more:
                break
            answer += more
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b"too_large" in answer
    assert sent < 1 * MIB, f"{sent} bytes sent before the refusal"
    assert not (store.club_archive("alpha") / "manifest.json").exists()


@contextlib.contextmanager
def _uvicorn(app: FastAPI) -> Iterator[int]:
    """Run ``app`` under a real uvicorn on a free localhost port in a thread."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(10)


def test_declared_content_length_over_the_limit_is_refused_at_once(setup: Setup) -> None:
    setup.refused(setup.upload(b"x" * (300 * KIB)), 413, "too_large")


def test_binary_file_is_refused(setup: Setup) -> None:
    noise = random.Random(1).randbytes(64 * KIB)
    setup.refused(setup.upload(noise, "photo.sgf"), 415, "binary")
    setup.refused(setup.upload(b"(;GM[Skat]\x00\x01\x02;)\n"), 415, "binary")
    setup.refused(setup.upload(gzip.compress(noise)), 415, "binary")


@pytest.mark.parametrize("name, head, what", [
    ("x.png", b"\x89PNG\r\n\x1a\n" + b"\0" * 64, "PNG"),
    ("x.pdf", b"%PDF-1.4\n%...\n", "PDF"),
])
def test_other_file_types_are_named_in_the_error(setup: Setup, name: str, head: bytes,
                                                 what: str) -> None:
    response = setup.upload(head, name)
    setup.refused(response, 415, "unsupported_format")
    assert what in response.json()["detail"]


def test_a_100_mb_line_is_refused(setup: Setup) -> None:
    # 100 MiB of one line, gzip-compressed to about 100 KiB so the test sends little
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b"A" * MIB
    data = b"".join(compressor.compress(block) for _ in range(100)) + compressor.flush()
    assert len(data) < 256 * KIB
    response = setup.upload(data, "longline.sgf.gz")
    setup.refused(response, 413, "line_too_long")
    assert "line 1" in response.json()["detail"]


def test_a_long_line_after_good_lines_names_its_line(setup: Setup) -> None:
    good = sample_log(3, seed=2).encode()
    response = setup.upload(good + b"(;GM[Skat]" + b"y" * (20 * KIB) + b";)\n")
    setup.refused(response, 413, "line_too_long")
    assert "line 4" in response.json()["detail"]


@pytest.mark.parametrize("kind", ["gzip", "bzip2", "zstd"])
def test_compression_bombs_are_stopped_at_the_decompressed_limit(setup: Setup,
                                                                 kind: str) -> None:
    line = b"(;GM[Skat]PC[bomb]MV[w ]R[passed] ;)\n"
    block = line * (256 * KIB // len(line))
    compressors: dict[str, Callable[[bytes], bytes]] = {
        "gzip": gzip.compress, "bzip2": bz2.compress,
        "zstd": zstandard.ZstdCompressor(level=19).compress}
    compress = compressors[kind]
    # 256 concatenated members/streams/frames of 256 KiB: 64 MiB of text, 32 times the
    # unpacked limit (and a check that multi-member input is read across members)
    data = compress(block) * 256
    assert len(data) < 256 * KIB  # passes the upload limit: only the unpacked one catches it
    setup.refused(setup.upload(data, f"bomb.{kind}"), 413, "decompressed_too_large")


def test_zip_archives_are_refused(setup: Setup) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("bomb.sgf", b"A" * (16 * MIB))
    setup.refused(setup.upload(buffer.getvalue(), "bomb.zip"), 415, "unsupported_format")


def test_corrupt_and_truncated_compressed_data_is_refused(setup: Setup) -> None:
    data = gzip.compress(sample_log(6, seed=3).encode())
    setup.refused(setup.upload(data[: len(data) // 2], "cut.gz"), 400, "corrupt_compressed")
    setup.refused(setup.upload(b"\x1f\x8b" + b"garbage" * 10, "bad.gz"), 400,
                  "corrupt_compressed")
    import zstandard

    packed = zstandard.ZstdCompressor().compress(sample_log(6, seed=3).encode())
    setup.refused(setup.upload(packed[: len(packed) // 2], "cut.zst"), 400,
                  "corrupt_compressed")
    two_frames = packed + zstandard.ZstdCompressor().compress(sample_log(2, seed=5).encode())
    both = setup.upload(two_frames, "two.zst")
    assert both.status_code == 200 and both.json()["stored"] == 8, both.text


def test_too_many_games_aborts_the_whole_upload(setup: Setup) -> None:
    response = setup.upload(sample_log(60, seed=4).encode())
    setup.refused(response, 413, "too_many_games")


def test_text_that_is_no_skat_log_is_refused(setup: Setup) -> None:
    response = setup.upload(b"Dear club,\nthe next meeting is on Friday.\n", "letter.txt")
    assert response.status_code == 422, response.text
    assert response.json()["code"] in ("no_games", "unsupported_format")
    assert setup.snapshot() == setup.before
    broken = setup.upload(b"(;GM[Skat]MV[w nonsense ;)\n(;GM[Skat ;)\n", "broken.sgf")
    setup.refused(broken, 422, "no_games")


def test_empty_and_malformed_requests(setup: Setup) -> None:
    setup.refused(setup.upload(b"", "empty.sgf"), 400, "empty")
    no_file = setup.client.post("/api/uploads", data={"other": "x"}, headers=setup.headers)
    assert no_file.status_code == 400
    raw = setup.client.post("/api/uploads", content=b"just bytes",
                            headers={**setup.headers, "Content-Type": "text/plain"})
    setup.refused(raw, 400, "bad_request")
    assert setup.snapshot() == setup.before


@pytest.mark.parametrize("name, shown", [
    ("../../../../etc/passwd", "passwd"),
    ("..\\..\\windows\\evil.sgf", "evil.sgf"),
    ("/tmp/absolute.sgf", "absolute.sgf"),
    ("..", "upload"),
    ("a\x00b.sgf", "a_00b.sgf"),  # httpx sends the NUL as %00
    ("<img src=x onerror='alert(1)'>.sgf", "img src_x onerror_alert_1_.sgf"),
])
def test_path_traversal_in_the_file_name_goes_nowhere(tmp_path: Path, name: str,
                                                      shown: str) -> None:
    setup = Setup(tmp_path / "server")
    listing = sorted(p for p in tmp_path.rglob("*"))
    response = setup.upload(sample_log(3, seed=5).encode(), name)
    assert response.status_code == 200, response.text
    assert response.json()["source"] == shown
    assert {g["source"] for g in response.json()["games"]} == {shown}
    games = setup.client.get("/api/games", headers=setup.headers).json()["games"]
    assert {g["source"] for g in games} <= {"log.sgf", shown}
    new = [p for p in tmp_path.rglob("*") if p not in listing]
    assert all(p.is_relative_to(tmp_path / "server") for p in new)
    assert not (tmp_path / "etc").exists() and not (tmp_path / "passwd").exists()


def test_safe_filename_keeps_only_a_plain_base_name() -> None:
    assert safe_filename("../../../../etc/passwd") == "passwd"
    assert safe_filename("C:\\Users\\x\\log.sgf") == "log.sgf"
    assert safe_filename("a\x00b.sgf") == "ab.sgf"
    assert safe_filename("ＡＢＣ.sgf") == "ABC.sgf"  # full-width letters normalised (NFKC)
    assert safe_filename("") == safe_filename(None) == safe_filename("...") == "upload"
    assert len(safe_filename("x" * 1000 + ".sgf")) <= 120
    assert safe_filename("Skatabend München.sgf") == "Skatabend München.sgf"
    assert safe_filename("a;b|c$(rm -rf).sgf") == "a_b_c_rm -rf_.sgf"


def test_html_in_player_names_is_escaped_everywhere(tmp_path: Path) -> None:
    setup = Setup(tmp_path)
    text = sample_log(24, seed=6, players=(SCRIPT, IMG, "Clara & <b>Co</b>"))
    response = setup.upload(text.encode(), "names.sgf")
    assert response.status_code == 200 and response.json()["stored"] == 24
    # JSON carries the names as data (a JSON content type, never sniffed as HTML)
    assert response.headers["content-type"].startswith("application/json")
    assert response.headers["x-content-type-options"] == "nosniff"
    assert SCRIPT in {p for g in response.json()["games"] for p in g["players"]}
    # every HTML page the server sends: the upload page and every report page
    setup.client.post("/login", data={"token": setup.token})
    pages = {"/": setup.client.get("/").text}
    index = setup.client.get("/reports/alpha/")
    assert index.status_code == 200
    pages["/reports/alpha/"] = index.text
    for link in {part.split('"')[0] for part in index.text.split('href="')[1:]}:
        if link.endswith(".html") and "://" not in link:
            pages[link] = setup.client.get(f"/reports/alpha/{link}").text
    assert len(pages) > 3
    for path, html in pages.items():
        for raw in (SCRIPT, IMG, "<b>Co</b>", "onerror=\"alert"):
            assert raw not in html, f"{raw!r} unescaped in {path}"
    shown = "".join(pages.values())
    assert "&lt;script&gt;" in shown or "\\u003cscript" in shown  # the names are there, escaped


def test_hostile_files_leave_no_temporary_files_behind(setup: Setup, tmp_path: Path) -> None:
    import tempfile

    before = set(os.listdir(tempfile.gettempdir()))
    setup.upload(random.Random(2).randbytes(32 * KIB))
    setup.upload(gzip.compress(b"A" * (8 * MIB)), "bomb.gz")
    setup.upload(sample_log(3, seed=7).encode())
    leftovers = {n for n in set(os.listdir(tempfile.gettempdir())) - before
                 if n.startswith("skatlog-")}
    assert not leftovers
