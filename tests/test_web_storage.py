"""The server's own disk: a full disk is a 503, scratch files stay in the server's root and
are gone after a kill -9, and a cut multipart body is never stored as a whole file."""

from __future__ import annotations

import errno
import io
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import skatlog.web.app as app_module
import skatlog.web.process as process_module
from skatlog.ingest.archive import PartitionFiles
from skatlog.web.app import create_app
from skatlog.web.clubs import ClubStore
from skatlog.web.receive import _PartState
from skatlog.web.samples import sample_log
from skatlog.web.settings import WebSettings

REPO = Path(__file__).resolve().parent.parent


class Server:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.store = ClubStore(root)
        self.token = self.store.add("alpha")
        self.headers = {"Authorization": f"Bearer {self.token}"}
        self.client = TestClient(create_app(WebSettings(archive=root)),
                                 raise_server_exceptions=False)
        first = self.upload(sample_log(4, seed=1))
        assert first.status_code == 200 and first.json()["stored"] == 4, first.text
        self.manifest = self.manifest_bytes()

    def upload(self, text: str, upload_id: str | None = None) -> Any:
        headers = dict(self.headers)
        if upload_id:
            headers["X-Upload-Id"] = upload_id
        return self.client.post("/api/uploads", files={"file": ("night.sgf", text.encode())},
                                headers=headers)

    def manifest_bytes(self) -> bytes:
        return (self.store.club_archive("alpha") / "manifest.json").read_bytes()

    def upload_dirs(self) -> list[Path]:
        return [p for p in (self.root / ".tmp").rglob("upload-*") if p.is_dir()]

    def full_disk(self, response: Any, upload_id: str) -> None:
        """503 archive_error naming the cause; nothing stored, no scratch left, poll says so."""
        assert response.status_code == 503, response.text
        body = response.json()
        assert body["code"] == "archive_error" and "No space left" in body["detail"]
        assert "Traceback" not in response.text
        assert self.manifest_bytes() == self.manifest
        assert not self.upload_dirs()
        poll = self.client.get(f"/api/uploads/{upload_id}/progress", headers=self.headers)
        assert poll.json()["phase"] == "failed"
        again = self.upload(sample_log(2, seed=9))  # and the server works on afterwards
        assert again.status_code == 200 and again.json()["stored"] == 2


def _enospc(*_: object, **__: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.fixture
def server(tmp_path: Path) -> Server:
    return Server(tmp_path)


def test_full_disk_in_the_archive_writer_is_a_503(server: Server,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as patch:
        patch.setattr(PartitionFiles, "write", _enospc)
        response = server.upload(sample_log(6, seed=2), "full-disk-writer")
    server.full_disk(response, "full-disk-writer")


def test_full_disk_while_receiving_the_upload_is_a_503(server: Server,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as patch:
        patch.setattr(_PartState, "_part_data", _enospc)
        response = server.upload(sample_log(6, seed=3), "full-disk-receive")
    server.full_disk(response, "full-disk-receive")


class _FullFile(io.BufferedWriter):
    def write(self, data: Any) -> int:
        _enospc()
        return 0


def test_full_disk_while_unpacking_is_a_503_not_corrupt_data(
        server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, the unpacker took a failed write for corrupt input (400 corrupt_compressed)."""

    def full_open(path: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if "w" in mode:
            return _FullFile(io.FileIO(path, "w"))
        return open(path, mode, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(process_module, "open", full_open, raising=False)
        response = server.upload(sample_log(6, seed=4), "full-disk-unpack")
    server.full_disk(response, "full-disk-unpack")


def test_scratch_files_live_in_the_server_root_never_in_tmp(
        server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}
    real = app_module.process_upload
    tmp = Path(tempfile.gettempdir())
    before = {p.name for p in tmp.iterdir()}

    def looking(*args: Any) -> Any:
        seen["tmp"] = {p.name for p in tmp.iterdir() if p.name.startswith("skatlog-")} - before
        seen["args"] = [a for a in args if isinstance(a, Path)]
        result = real(*args)
        seen["root"] = sorted(p.name for d in server.upload_dirs() for p in d.iterdir())
        return result

    monkeypatch.setattr(app_module, "process_upload", looking)
    assert server.upload(sample_log(3, seed=5)).status_code == 200
    assert seen["tmp"] == set(), "an upload put files into the system's temporary folder"
    assert seen["args"] and all(p.is_relative_to(server.root / ".tmp") for p in seen["args"]
                                if p.name != "alpha")
    assert "received" in seen["root"] and "night.sgf" in seen["root"]
    assert not server.upload_dirs()  # removed when the upload ended


def test_a_killed_servers_scratch_files_are_removed_at_the_next_start(tmp_path: Path) -> None:
    """A real kill -9 in the middle of an upload (received and unpacked files on disk): the
    next server on the same root removes them; a live server's scratch is kept."""
    root = tmp_path / "root"
    token = ClubStore(root).add("alpha")
    tmp = Path(tempfile.gettempdir())
    before = {p.name for p in tmp.iterdir() if p.name.startswith("skatlog-")}
    script = textwrap.dedent(f"""
        import os, signal, sys
        from pathlib import Path
        from fastapi.testclient import TestClient
        import skatlog.web.app as app_module
        from skatlog.web.settings import WebSettings
        from skatlog.web.samples import sample_log

        def killed(*args):
            os.kill(os.getpid(), signal.SIGKILL)

        app_module.process_upload = killed
        client = TestClient(app_module.create_app(WebSettings(archive=Path({str(root)!r}))))
        client.post("/api/uploads", files={{"file": ("x.sgf", sample_log(3, seed=1))}},
                    headers={{"Authorization": "Bearer {token}"}})
        sys.exit(3)  # not reached
    """)
    child = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True,
                           timeout=120)
    assert child.returncode == -9, child.stderr.decode()[-2000:]
    left = [p for p in (root / ".tmp").rglob("received")]
    assert left, "the killed upload left no received file to clean (test setup)"
    after = {p.name for p in tmp.iterdir() if p.name.startswith("skatlog-")}
    assert after <= before, f"left in {tmp}: {sorted(after - before)}"
    live = create_app(WebSettings(archive=root))  # the next start
    assert not any(p.exists() for p in left)
    mine = live.state.workspace.dir
    assert mine.is_dir() and [p.name for p in (root / ".tmp").iterdir() if p.is_dir()] == [
        mine.name]
    create_app(WebSettings(archive=root))  # a second server beside it keeps the first's
    assert mine.is_dir()


def _raw_upload(server: Server, body: bytes) -> Any:
    return server.client.post(
        "/api/uploads", content=body,
        headers={**server.headers, "Content-Type": "multipart/form-data; boundary=cutboundary"})


def test_a_multipart_body_cut_before_its_closing_boundary_is_refused(server: Server) -> None:
    text = sample_log(5, seed=6).encode()
    head = (b'--cutboundary\r\nContent-Disposition: form-data; name="file"; '
            b'filename="cut.sgf"\r\nContent-Type: application/octet-stream\r\n\r\n')
    for cut in (head + text, head + text + b"\r\n--cutbou", head + text[: len(text) // 2]):
        response = _raw_upload(server, cut)
        assert response.status_code == 400, response.text
        assert response.json()["code"] == "bad_request"
        assert "closing boundary" in response.json()["detail"]
        assert server.manifest_bytes() == server.manifest
    whole = _raw_upload(server, head + text + b"\r\n--cutboundary--\r\n")
    assert whole.status_code == 200 and whole.json()["stored"] == 5
