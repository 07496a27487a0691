"""Club tokens: hashed storage, verification, revocation and the ``skatlog club`` commands."""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skatlog.cli import app
from skatlog.web.clubs import ClubError, ClubStore


def test_tokens_are_stored_hashed_and_salted(tmp_path: Path) -> None:
    store = ClubStore(tmp_path)
    alpha = store.add("alpha")
    beta = store.add("beta")
    text = (tmp_path / "clubs.json").read_text()
    assert alpha not in text and beta not in text
    assert alpha[4:] not in text  # not even without the prefix
    clubs = json.loads(text)["clubs"]
    assert len({c["salt"] for c in clubs}) == 2
    assert all(len(c["token_hash"]) == 64 for c in clubs)
    assert stat.S_IMODE((tmp_path / "clubs.json").stat().st_mode) == 0o600


def test_verify_finds_the_right_club_only(tmp_path: Path) -> None:
    store = ClubStore(tmp_path)
    alpha = store.add("alpha")
    beta = store.add("beta")
    boss = store.add("boss", admin=True)
    assert store.verify(alpha).name == "alpha"  # type: ignore[union-attr]
    assert store.verify(beta).name == "beta"  # type: ignore[union-attr]
    verified = store.verify(boss)
    assert verified is not None and verified.admin
    assert store.verify(alpha)  # the cached path answers the same
    for wrong in (None, "", "skc_", alpha[:-1], alpha + "x", alpha.upper(), "x" * 500):
        assert store.verify(wrong) is None
    # a second store (another process) reads the same file
    assert ClubStore(tmp_path).verify(beta).name == "beta"  # type: ignore[union-attr]


def test_revoke_stops_the_token_at_once_and_readding_issues_a_new_one(tmp_path: Path) -> None:
    store = ClubStore(tmp_path)
    old = store.add("alpha")
    assert store.verify(old) is not None
    ClubStore(tmp_path).revoke("alpha")  # revoked by another process: the cache must notice
    assert store.verify(old) is None
    new = store.add("alpha")
    assert new != old
    assert store.verify(new).name == "alpha"  # type: ignore[union-attr]
    assert store.verify(old) is None
    with pytest.raises(ClubError):
        store.revoke("nobody")


@pytest.mark.parametrize("name", ["", "Alpha", "../alpha", "a/b", ".hidden", "a" * 41, "club x",
                                  "<script>"])
def test_club_names_are_safe_directory_names(tmp_path: Path, name: str) -> None:
    with pytest.raises(ClubError):
        ClubStore(tmp_path).add(name)
    assert not (tmp_path / "clubs").exists() or not any((tmp_path / "clubs").iterdir())


def test_duplicate_club_is_refused(tmp_path: Path) -> None:
    store = ClubStore(tmp_path)
    store.add("alpha")
    with pytest.raises(ClubError, match="already exists"):
        store.add("alpha")


def test_each_club_gets_its_own_archive_directory(tmp_path: Path) -> None:
    store = ClubStore(tmp_path)
    store.add("alpha")
    assert store.club_archive("alpha") == tmp_path / "clubs" / "alpha"
    assert store.club_archive("alpha").is_dir()
    with pytest.raises(ClubError):
        store.club_archive("../etc")


def test_cli_add_prints_only_the_token(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["club", "add", "alpha", "--archive", str(tmp_path)])
    assert result.exit_code == 0, result.output
    token = result.stdout.strip()
    assert token.startswith("skc_") and "\n" not in token and " " not in token
    assert ClubStore(tmp_path).verify(token).name == "alpha"  # type: ignore[union-attr]

    admin = runner.invoke(app, ["club", "add", "--admin", "boss", "--archive", str(tmp_path)])
    assert admin.exit_code == 0
    assert ClubStore(tmp_path).verify(admin.stdout.strip()).admin  # type: ignore[union-attr]

    listing = runner.invoke(app, ["club", "list", "--archive", str(tmp_path)])
    assert listing.exit_code == 0
    assert "alpha" in listing.stdout and "boss" in listing.stdout and "admin" in listing.stdout
    assert token not in listing.stdout

    revoked = runner.invoke(app, ["club", "revoke", "alpha", "--archive", str(tmp_path)])
    assert revoked.exit_code == 0
    assert ClubStore(tmp_path).verify(token) is None
    assert "revoked" in runner.invoke(app, ["club", "list", "--archive", str(tmp_path)]).stdout


def test_cli_reports_bad_names_and_unknown_clubs_without_traceback(tmp_path: Path) -> None:
    runner = CliRunner()
    bad = runner.invoke(app, ["club", "add", "../x", "--archive", str(tmp_path)])
    assert bad.exit_code == 2
    assert "invalid club name" in bad.output and "Traceback" not in bad.output
    missing = runner.invoke(app, ["club", "revoke", "ghost", "--archive", str(tmp_path)])
    assert missing.exit_code == 2
    assert "no active club" in missing.output



def _flat(output: str) -> str:
    """The CLI's output as one line (typer boxes and wraps its error messages)."""
    return " ".join(output.replace("│", " ").split())


def test_cli_refuses_unusable_roots_and_damaged_club_files(tmp_path: Path) -> None:
    """A path through a regular file, a damaged clubs.json, a data archive given as the
    server root and a port out of range are usage errors (exit 2) naming the problem;
    nothing is created."""
    runner = CliRunner()
    plain = tmp_path / "plain"
    plain.write_text("x")
    for args in (["club", "add", "alpha", "--archive", str(plain)],
                 ["club", "list", "--archive", str(plain / "below")]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    root = tmp_path / "root"
    root.mkdir()
    for damaged in ("{bad", '{"clubs": 5}', "[]", '{"clubs": [{"name": "a"}]}'):
        (root / "clubs.json").write_text(damaged)
        for args in (["club", "list"], ["club", "add", "beta"], ["serve"]):
            result = runner.invoke(app, [*args, "--archive", str(root)])
            assert result.exit_code == 2 and "not a clubs file" in _flat(result.output), (
                damaged, args, result.output)
        assert (root / "clubs.json").read_text() == damaged
    data = tmp_path / "data"
    data.mkdir()
    (data / "manifest.json").write_text("{}")
    mixed = runner.invoke(app, ["club", "add", "gamma", "--archive", str(data)])
    assert mixed.exit_code == 2 and "is a skatlog data archive" in _flat(mixed.output)
    assert not (data / "clubs.json").exists()
    fresh = tmp_path / "fresh"
    for port in ("99999", "-1"):
        result = runner.invoke(app, ["serve", "--archive", str(fresh), "--port", port])
        assert result.exit_code == 2 and not fresh.exists()  # no admin token made


def test_serve_creates_an_admin_token_once_and_passes_the_limits(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    runs: list[dict[str, object]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: runs.append({"app": app, **kw}))
    runner = CliRunner()
    first = runner.invoke(app, ["serve", "--archive", str(tmp_path), "--port", "8123",
                                "--max-upload-mb", "2"])
    assert first.exit_code == 0, first.output
    token = re.search(r"skc_\S+", first.stderr)
    assert token is not None and token.group(0) not in first.stdout
    admin = ClubStore(tmp_path).verify(token.group(0))
    assert admin is not None and admin.admin and admin.name == "admin"
    assert runs[0]["host"] == "127.0.0.1" and runs[0]["port"] == 8123
    assert runs[0]["app"].state.settings.max_upload_bytes == 2 * 1024 * 1024  # type: ignore[attr-defined]
    second = runner.invoke(app, ["serve", "--archive", str(tmp_path)])
    assert second.exit_code == 0
    assert "skc_" not in second.stderr + second.stdout  # an admin exists: no new token
    assert len(ClubStore(tmp_path).clubs()) == 1
