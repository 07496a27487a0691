"""skatlog's PEP 517 build backend: setuptools, plus numba's cache compiled at install time.

numba compiles skatlog's kernels (the ISS kernel and its validator, the batch simulator, the
rules core) on their first call, 40-60 s on two cores, and caches the machine code in
``__pycache__`` beside each source file, keyed by a hash of the source's content, the numba
version and the CPU. A plain ``pip install`` would leave that cost to the user's first
command. This backend wraps :mod:`setuptools.build_meta` and, once setuptools has built:

* ``build_wheel``: unpacks the wheel to a temporary folder, runs ``skatlog``'s warm-up there in
  a subprocess (the build environment's Python, ``PYTHONPATH`` = that folder), and adds the
  cache files it wrote (``__pycache__/*.nbi``, ``*.nbc`` and the fingerprint marker of
  ``engine/jit.py``) to the wheel, with a rewritten ``RECORD``;
* ``build_editable``: runs the warm-up against the source tree (the caches land in-tree, where
  the editable install reads them).

The build environment gets the project's runtime dependencies (``dependencies`` and the
``fast`` extra, read from ``pyproject.toml``) so that the warm-up runs the real code paths, and
pip resolves them to the versions the installed package gets. Compiling never fails an
install: on any error a warning is printed and the package ships without a cache (numba then
compiles on first use). ``SKATLOG_COMPILE_AT_INSTALL=0`` skips it (and the extra build
requirements). pip shows this backend's messages with ``pip install -v``.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
import zipfile
from pathlib import Path
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import (  # noqa: F401  (re-exported PEP 517 hooks)
    build_sdist,
    get_requires_for_build_sdist,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

#: The environment variable that turns compiling at install off (``0``, ``no``, ``false``).
SWITCH = "SKATLOG_COMPILE_AT_INSTALL"
#: The marker ``engine/jit.py::refresh_stale_cache`` keeps beside the engine's cache.
MARKER = "skatlog-compiled.fingerprint"
#: Seconds after which a hung warm-up is abandoned (it takes about a minute on two cores).
TIMEOUT_S = 1200
#: The warm-up as the subprocess runs it (importing the engine writes the fingerprint marker).
#: Exit 3: numba is missing, nothing was compiled.
_WARM_UP = (
    "import sys, skatlog\n"
    "from skatlog.ingest.warmup import warm_up\n"
    "print('skatlog from', skatlog.__file__, flush=True)\n"
    "took = warm_up(2, lambda name, s: print(f'  compiled {name} in {s:.1f} s', flush=True))\n"
    "sys.exit(0 if took > 0 else 3)\n"
)


def _enabled() -> bool:
    return os.environ.get(SWITCH, "1").strip().lower() not in ("0", "no", "false", "off")


def _say(message: str) -> None:
    print(f"skatlog build: {message}", file=sys.stderr, flush=True)


def _runtime_requirements() -> list[str]:
    """The project's dependencies and its ``fast`` extra (numba), as ``pyproject.toml`` says."""
    with open("pyproject.toml", "rb") as handle:
        project = tomllib.load(handle)["project"]
    return [*project.get("dependencies", []),
            *project.get("optional-dependencies", {}).get("fast", [])]


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    """setuptools' build requirements, plus what the warm-up imports (when it will run)."""
    extra = _runtime_requirements() if _enabled() else []
    return [*_setuptools.get_requires_for_build_wheel(config_settings), *extra]


def get_requires_for_build_editable(
        config_settings: dict[str, Any] | None = None) -> list[str]:
    """As :func:`get_requires_for_build_wheel`, for ``pip install -e``."""
    extra = _runtime_requirements() if _enabled() else []
    return [*_setuptools.get_requires_for_build_editable(config_settings), *extra]


def build_wheel(wheel_directory: str, config_settings: dict[str, Any] | None = None,
                metadata_directory: str | None = None) -> str:
    """setuptools' wheel, with numba's cache of the kernels added (unless switched off)."""
    name: str = _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)
    if _enabled():
        try:
            add_compiled_cache(Path(wheel_directory) / name)
        except Exception as error:  # never fail an install because compiling failed
            _say(f"warning: numba cache not shipped ({type(error).__name__}: {error});"
                 " the kernels compile on first use")
    else:
        _say(f"{SWITCH}=0: the kernels compile on first use")
    return name


def build_editable(wheel_directory: str, config_settings: dict[str, Any] | None = None,
                   metadata_directory: str | None = None) -> str:
    """setuptools' editable wheel; the kernels are compiled into the source tree's cache."""
    name: str = _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)
    if _enabled():
        try:
            compile_kernels(Path("src").resolve())
        except Exception as error:
            _say(f"warning: kernels not compiled ({type(error).__name__}: {error});"
                 " they compile on first use")
    else:
        _say(f"{SWITCH}=0: the kernels compile on first use")
    return name


def compile_kernels(root: Path) -> float:
    """Run the warm-up with ``root`` (the folder holding ``skatlog/``) first on the path, in
    a subprocess; returns its wall seconds. Raises on failure (the caller warns)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(root), *filter(None, [os.environ.get("PYTHONPATH")])])
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # pip compiles the .pyc files itself
    env.pop("NUMBA_CACHE_DIR", None)  # the cache must land beside the sources
    env.pop("NUMBA_DISABLE_JIT", None)
    _say("compiling the numba kernels (about a minute on two cores;"
         f" {SWITCH}=0 skips this)")
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _WARM_UP], env=env, cwd=root,
                          capture_output=True, text=True, timeout=TIMEOUT_S)
    took = time.perf_counter() - start
    for line in (proc.stdout + proc.stderr).splitlines():
        _say(line)
    if proc.returncode == 3:
        raise RuntimeError("numba is not importable in the build environment")
    if proc.returncode != 0:
        raise RuntimeError(f"the warm-up exited with {proc.returncode}")
    _say(f"kernels compiled in {took:.1f} s")
    return took


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return f"sha256={digest.decode()}"


def cache_files(root: Path) -> list[Path]:
    """numba's cache files and the fingerprint marker under ``root``, sorted."""
    found = [path for path in root.rglob("__pycache__/*")
             if path.is_file() and (path.suffix in (".nbi", ".nbc") or path.name == MARKER)]
    return sorted(found)


def add_compiled_cache(wheel: Path) -> int:
    """Compile the kernels of ``wheel``'s package and add the cache files to the wheel, in
    place. Returns the number of files added."""
    with tempfile.TemporaryDirectory(prefix="skatlog-wheel-") as tmp:
        unpacked = Path(tmp) / "unpacked"
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(unpacked)
        compile_kernels(unpacked)
        added = cache_files(unpacked)
        if not any(path.name == MARKER for path in added):
            raise RuntimeError(f"the warm-up wrote no {MARKER}")
        add_files(wheel, unpacked, added)
        size = sum(path.stat().st_size for path in added)
    _say(f"added {len(added)} numba cache files ({size / 2**20:.1f} MB) to {wheel.name}")
    return len(added)


def add_files(wheel: Path, root: Path, files: list[Path]) -> None:
    """Rewrite ``wheel`` with ``files`` (under ``root``, stored by their path relative to it)
    added, and its ``RECORD`` listing them with their sha256 and size, as pip checks."""
    with tempfile.TemporaryDirectory(prefix="skatlog-wheel-") as tmp:
        rebuilt = Path(tmp) / wheel.name
        with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(
                rebuilt, "w", compression=zipfile.ZIP_DEFLATED) as target:
            records = [name for name in source.namelist()
                       if name.endswith(".dist-info/RECORD")]
            if len(records) != 1:
                raise RuntimeError(f"expected one RECORD in the wheel, found {len(records)}")
            record_name = records[0]
            rows = list(csv.reader(io.StringIO(source.read(record_name).decode("utf-8"))))
            rows = [row for row in rows if row and row[0] != record_name]
            known = {row[0] for row in rows}
            epoch = max(int(os.environ.get("SOURCE_DATE_EPOCH", time.time())), 315532800)
            stamp = time.gmtime(epoch)[:6]  # zip dates start in 1980
            for info in source.infolist():
                if info.filename != record_name:
                    target.writestr(info, source.read(info.filename))
            for path in files:
                arcname = path.relative_to(root).as_posix()
                if arcname in known:
                    raise RuntimeError(f"{arcname} is already in the wheel")
                data = path.read_bytes()
                target.writestr(_entry(arcname, stamp), data)
                rows.append([arcname, _record_hash(data), str(len(data))])
            rows.append([record_name, "", ""])
            text = io.StringIO()
            csv.writer(text, lineterminator="\n").writerows(rows)
            target.writestr(_entry(record_name, stamp), text.getvalue())
        shutil.move(rebuilt, wheel)  # the wheel folder may be on another file system


def _entry(name: str, stamp: tuple[int, ...]) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=stamp)  # type: ignore[arg-type]
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16  # rw-r--r--, a regular file
    return info
