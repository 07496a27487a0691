"""The in-tree build backend (``build_support/skatlog_build.py``): the numba cache it adds to
a wheel is listed in ``RECORD`` with the right hashes, and a failed compile never fails the
build. (The compile itself is what ``skatlog warm-up`` does, tested in test_cli_warmup.py.)"""

from __future__ import annotations

import base64
import csv
import hashlib
import importlib.util
import io
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _backend() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "skatlog_build", ROOT / "build_support" / "skatlog_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _wheel(path: Path) -> Path:
    """A minimal wheel: one module, its dist-info and a RECORD as setuptools writes it."""
    files = {"pkg/__init__.py": b"x = 1\n", "pkg-1.0.dist-info/METADATA": b"Name: pkg\n"}
    wheel = path / "pkg-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        rows = []
        for name, data in files.items():
            archive.writestr(name, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            rows.append(f"{name},sha256={digest.decode()},{len(data)}")
        rows.append("pkg-1.0.dist-info/RECORD,,")
        archive.writestr("pkg-1.0.dist-info/RECORD", "\n".join(rows) + "\n")
    return wheel


def _check_record(wheel: Path) -> list[str]:
    """Every file of the wheel is in RECORD once, with its sha256 and size; returns names."""
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        record = [n for n in names if n.endswith("RECORD")]
        assert len(record) == 1
        rows = list(csv.reader(io.StringIO(archive.read(record[0]).decode())))
        assert sorted(row[0] for row in rows) == sorted(names)
        for name, digest, size in rows:
            if name == record[0]:
                assert (digest, size) == ("", "")
                continue
            data = archive.read(name)
            expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            assert digest == f"sha256={expected.decode()}", name
            assert int(size) == len(data), name
    return names


def test_added_cache_files_are_in_the_wheel_and_its_record(tmp_path: Path) -> None:
    backend = _backend()
    wheel = _wheel(tmp_path)
    unpacked = tmp_path / "unpacked"
    cache = unpacked / "pkg" / "__pycache__"
    cache.mkdir(parents=True)
    (cache / "mod.f-10.py311.nbi").write_bytes(b"index")
    (cache / "mod.f-10.py311.1.nbc").write_bytes(b"\x00machine code" * 100)
    (cache / backend.MARKER).write_text("fingerprint")
    (cache / "mod.cpython-311.pyc").write_bytes(b"not shipped")
    files = backend.cache_files(unpacked)
    assert [f.name for f in files] == sorted(
        ["mod.f-10.py311.nbi", "mod.f-10.py311.1.nbc", backend.MARKER])
    backend.add_files(wheel, unpacked, files)
    names = _check_record(wheel)
    assert "pkg/__pycache__/mod.f-10.py311.1.nbc" in names
    assert f"pkg/__pycache__/{backend.MARKER}" in names
    assert "pkg/__pycache__/mod.cpython-311.pyc" not in names
    with zipfile.ZipFile(wheel) as archive:
        assert archive.read("pkg/__init__.py") == b"x = 1\n"
        assert archive.read(f"pkg/__pycache__/{backend.MARKER}") == b"fingerprint"


def test_a_failed_compile_warns_and_ships_the_wheel_unchanged(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    backend = _backend()
    wheel = _wheel(tmp_path)
    before = wheel.read_bytes()
    monkeypatch.setattr(backend._setuptools, "build_wheel", lambda *args: wheel.name)

    def broken(root: Path) -> float:
        raise RuntimeError("the warm-up exited with 1")

    monkeypatch.setattr(backend, "compile_kernels", broken)
    monkeypatch.delenv(backend.SWITCH, raising=False)
    assert backend.build_wheel(str(tmp_path)) == wheel.name
    assert wheel.read_bytes() == before
    assert "warning: numba cache not shipped" in capsys.readouterr().err


def test_the_switch_skips_compiling_and_its_build_requirements(
        monkeypatch: pytest.MonkeyPatch) -> None:
    backend = _backend()
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(backend._setuptools, "get_requires_for_build_wheel",
                        lambda settings=None: ["wheel"])
    monkeypatch.setenv(backend.SWITCH, "1")
    requires = backend.get_requires_for_build_wheel()
    assert requires[0] == "wheel"
    assert any(r.startswith("numba") for r in requires)
    assert any(r.startswith("pyarrow") for r in requires)
    monkeypatch.setenv(backend.SWITCH, "0")
    assert backend.get_requires_for_build_wheel() == ["wheel"]

    def must_not_run(root: Path) -> float:
        raise AssertionError("compiled although switched off")

    monkeypatch.setattr(backend, "compile_kernels", must_not_run)
    monkeypatch.setattr(backend._setuptools, "build_wheel", lambda *args: "x.whl")
    assert backend.build_wheel("unused") == "x.whl"
