"""Only logs are logs (issue 17, item 1): ``validate`` and ``ingest``, on the reference and
the compiled path, refuse a named file that is not a log or holds no game (exit 2, one
line, nothing stored, nothing in ``rejects``), name every file of a folder they skip, and
quarantine only records that look like games."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skatlog.cli import app
from skatlog.ingest.archive import MANIFEST, read_table
from skatlog.ingest.sniff import NotALog, check_text, detect_compression, sniff_file

SAMPLES = Path(__file__).resolve().parent.parent / "data" / "samples"
PATHS = ["--no-fast", "--fast"]


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def needs_path(flag: str) -> None:
    if flag == "--fast":
        pytest.importorskip("numba")


@pytest.fixture
def program(tmp_path: Path) -> Path:
    """A copy of a real binary (the report's ``/usr/bin/ls``), or an ELF-like stand-in."""
    target = tmp_path / "ls-copy"
    real = shutil.which("ls")
    if real:
        shutil.copyfile(real, target)
    else:  # pragma: no cover - every CI image has ls
        target.write_bytes(b"\x7fELF\x02\x01\x01" + bytes(range(256)) * 40)
    return target


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    """A club's folder: logs, a README, a picture, a config file, a binary named .sgf, and
    a log with a line of prose between its records."""
    folder = tmp_path / "mixed"
    folder.mkdir()
    for name in ("skatfreunde-nord.sgf", "club-am-markt.jsonl"):
        shutil.copyfile(SAMPLES / name, folder / name)
    text = (SAMPLES / "damaged.sgf").read_text()
    (folder / "damaged.sgf").write_text(text + "these are the damaged records of May\n")
    (folder / "README.txt").write_text("Club logs\n=========\n\nOne file per club night.\n"
                                       * 50)
    (folder / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(200))
    (folder / "settings.json").write_text('{"club": "nord"}\n')
    (folder / "notes").mkdir()
    (folder / "notes" / "binary.sgf").write_bytes(bytes(range(256)) * 8)
    return folder


@pytest.mark.parametrize("flag", PATHS)
def test_a_binary_file_is_refused_whole(program: Path, tmp_path: Path, flag: str) -> None:
    needs_path(flag)
    archive = tmp_path / "arc"
    code, out, err = run("ingest", str(program), "--archive", str(archive), flag, "-q")
    assert code == 2, out + err
    assert err.count("\n") == 1 and str(program) in err and "Traceback" not in err
    assert "program" in err or "binary" in err
    assert not (archive / MANIFEST).exists()  # nothing stored, no ingest recorded
    code, out, err = run("validate", str(program), flag)
    assert code == 2 and out == "" and str(program) in err


@pytest.mark.parametrize("content", [b"", b"\n\n   \n", b"# only a comment\n\n",
                                     gzip.compress(b"")])
@pytest.mark.parametrize("flag", PATHS)
def test_an_empty_file_holds_no_game_and_is_refused(content: bytes, tmp_path: Path,
                                                    flag: str) -> None:
    needs_path(flag)
    log = tmp_path / ("empty.sgf.gz" if content.startswith(b"\x1f\x8b") else "empty.sgf")
    log.write_bytes(content)
    archive = tmp_path / "arc"
    code, out, err = run("validate", str(log), flag)
    assert code == 2 and "0 games" not in out + err
    assert "empty" in err or "no Skat games" in err
    code, out, err = run("ingest", str(log), "--archive", str(archive), flag, "-q")
    assert code == 2 and not (archive / MANIFEST).exists(), out + err


@pytest.mark.parametrize("flag", PATHS)
def test_a_mixed_folder_names_every_skipped_file(mixed: Path, tmp_path: Path,
                                                 flag: str) -> None:
    needs_path(flag)
    archive = tmp_path / "arc"
    code, out, err = run("ingest", str(mixed), "--archive", str(archive), flag, "-q")
    assert code == 0, err
    skipped = {line.split(":")[0].strip() for line in out.splitlines()
               if line.startswith("  " + str(mixed))}
    for name in ("README.txt", "photo.png", "settings.json", "notes/binary.sgf"):
        assert str(mixed / name) in skipped, out
    assert "skipped     4 files" in out
    # the rejects are the seven damaged records: no README line, no line of prose
    rejects = read_table(archive, "rejects")
    assert rejects.num_rows == 7
    assert all(raw.startswith("(;") for raw in rejects.column("raw").to_pylist())
    assert "not records 1 line" in out and "damaged.sgf:15:" in out
    # ... while validate still shows the line of prose as an error
    code, out, _ = run("validate", str(mixed), flag)
    assert code == 1 and "damaged.sgf:15:" in out
    assert f"skipped {mixed / 'README.txt'}: no Skat games found" in out


def test_ingest_prints_the_first_rejects_as_validate_does(mixed: Path, tmp_path: Path) -> None:
    code, out, _ = run("ingest", str(mixed / "damaged.sgf"), "--archive",
                       str(tmp_path / "arc"), "-q")
    assert code == 0
    _, checked, _ = run("validate", str(mixed / "damaged.sgf"))
    first = [line for line in checked.splitlines() if line.startswith(str(mixed))][:5]
    assert len(first) == 5
    for line in first:
        assert "  " + line in out.splitlines()
    assert "... 2 more: skatlog validate shows every one" in out


def test_a_folder_without_a_log_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "pictures"
    folder.mkdir()
    (folder / "a.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (folder / "notes.txt").write_text("nothing to see\n")
    code, _, err = run("ingest", str(folder), "--archive", str(tmp_path / "arc"))
    assert code == 2 and "no log file in this folder (2 files skipped" in err
    code, _, err = run("validate", str(folder))
    assert code == 2 and "no log file" in err


def test_a_named_file_of_prose_or_the_wrong_format_is_refused(tmp_path: Path) -> None:
    readme = tmp_path / "README.txt"
    readme.write_text("How we keep our logs\n\nline two\n")
    code, _, err = run("ingest", str(readme), "--archive", str(tmp_path / "arc"))
    assert code == 2 and "no Skat games found (line 1 starts 'How we keep our logs')" in err
    log = tmp_path / "club.jsonl"
    shutil.copyfile(SAMPLES / "club-am-markt.jsonl", log)
    code, _, err = run("validate", str(log), "--format", "iss")
    assert code == 2 and "holds skatlog JSON lines, not iss" in err


def test_compressed_data_under_a_plain_name_is_named(tmp_path: Path) -> None:
    log = tmp_path / "games.sgf"
    log.write_bytes(gzip.compress((SAMPLES / "skatfreunde-nord.sgf").read_bytes()))
    code, _, err = run("validate", str(log))
    assert code == 2 and "holds gzip data" in err and "games.sgf.gz" in err


def test_the_web_upload_refuses_with_the_same_reasons() -> None:
    """The checks live in skatlog.ingest.sniff; web/unpack.py raises them as HTTP errors."""
    pytest.importorskip("starlette")
    from skatlog.web.errors import UploadRejected
    from skatlog.web.unpack import detect_compression as web_detect

    for head in (b"%PDF-1.7", b"\x89PNG\r\n", b"PK\x03\x04"):
        with pytest.raises(NotALog) as cli:
            detect_compression(head)
        with pytest.raises(UploadRejected) as web:
            web_detect(head)
        assert web.value.message.startswith(cli.value.reason + "; ")
    with pytest.raises(NotALog, match="NUL bytes"):
        check_text(b"(;GM[Skat]\x00;)", head=True)
    assert detect_compression(b"\x1f\x8b\x08") == "gzip"


def test_sniff_gives_the_format(tmp_path: Path) -> None:
    assert sniff_file(SAMPLES / "skatfreunde-nord.sgf") == "iss"
    assert sniff_file(SAMPLES / "club-am-markt.jsonl") == "jsonl"
