"""The pages around the API: log-in from another site, the club's framed report pages, the
UTC label, and the commands of docs/web.md working from a clone after the README's main job."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from skatlog.cli import app as cli
from skatlog.web.app import create_app
from skatlog.web.clubs import ClubStore
from skatlog.web.reports_site import frame_page
from skatlog.web.samples import sample_log
from skatlog.web.settings import WebSettings

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def club(tmp_path: Path) -> tuple[TestClient, str]:
    token = ClubStore(tmp_path).add("skatfreunde-nord")
    return TestClient(create_app(WebSettings(archive=tmp_path))), token


@pytest.mark.parametrize("headers", [
    {"Origin": "https://evil.example"},
    {"Origin": "null"},  # a sandboxed frame, or a page that hides its origin
    {"Sec-Fetch-Site": "cross-site", "Origin": "http://testserver"},
    {"Sec-Fetch-Site": "same-site"},
    {"Referer": "https://evil.example/login-you-in.html"},
])
def test_a_cross_site_login_sets_no_cookie(club: tuple[TestClient, str],
                                           headers: dict[str, str]) -> None:
    client, token = club
    response = client.post("/login", data={"token": token}, headers=headers,
                           follow_redirects=False)
    assert response.status_code == 403, response.text
    assert "set-cookie" not in response.headers
    assert "another site" in response.text
    assert client.get("/api/games").status_code == 401  # not logged in


@pytest.mark.parametrize("headers", [
    {},  # a script
    {"Origin": "http://testserver"},
    {"Sec-Fetch-Site": "same-origin", "Origin": "null"},
    {"Referer": "http://testserver/login"},
])
def test_the_servers_own_login_still_works(club: tuple[TestClient, str],
                                           headers: dict[str, str]) -> None:
    client, token = club
    response = client.post("/login", data={"token": token}, headers=headers,
                           follow_redirects=False)
    assert response.status_code == 303 and "skatlog_token=" in response.headers["set-cookie"]


def test_cross_site_logout_and_cookie_uploads_are_refused(club: tuple[TestClient, str]) -> None:
    client, token = club
    client.post("/login", data={"token": token})
    for headers in ({"Origin": "null"}, {"Sec-Fetch-Site": "cross-site"}):
        upload = client.post("/api/uploads", files={"file": ("x.sgf", sample_log(1, seed=1))},
                             headers=headers)
        assert upload.status_code == 403
        assert client.post("/logout", headers=headers).status_code == 403
    assert client.get("/api/games").status_code == 200  # still logged in


def test_pages_send_their_origin_on_same_origin_requests(club: tuple[TestClient, str]) -> None:
    client, _ = club
    assert client.get("/login").headers["referrer-policy"] == "same-origin"


def test_report_pages_name_the_club_link_back_and_say_utc(club: tuple[TestClient, str]) -> None:
    client, token = club
    auth = {"Authorization": f"Bearer {token}"}
    assert client.post("/api/uploads", files={"file": ("n.sgf", sample_log(12, seed=2))},
                       headers=auth).status_code == 200
    index = client.get("/reports/skatfreunde-nord/", headers=auth)
    assert index.status_code == 200
    links = set(re.findall(r'href="([^"#:/]+\.html)"', index.text))
    assert links
    for text in [index.text] + [client.get(f"/reports/skatfreunde-nord/{link}",
                                           headers=auth).text for link in links]:
        title = re.search(r"<title>(.*?)</title>", text, re.S).group(1)  # type: ignore[union-attr]
        assert title.startswith("Club skatfreunde-nord") and "skatlog report" not in title
        assert 'data-testid="club-bar"' in text and "<b>Club skatfreunde-nord</b>" in text
        assert 'href="/"' in text and 'action="/logout"' in text
        assert "times are UTC" in text
    assert "<h1>Club skatfreunde-nord report</h1>" in index.text
    assert client.get("/", headers=auth).text.count("played (UTC)") == 1


def test_frame_page_finds_the_real_body_behind_an_inlined_script() -> None:
    page = ("<!DOCTYPE html><html><head><meta charset=utf-8><title>Seats - skatlog report"
            "</title><script>var s='<body class=x></head><h1>no</h1><title>x</title>';"
            "</script></head><body class=page><header><h1>Seat &amp; effects</h1></header>"
            "<p>text</p></body></html>")
    framed = frame_page(page, "a<b", "2026-01-02 03:04 UTC")
    assert "<title>Club a&lt;b: Seat &amp; effects</title>" in framed
    assert framed.count("<title>") == 2  # the script's own string is left alone
    bar = framed.index('data-testid="club-bar"')
    assert framed.index("<body class=page>") < bar < framed.index("<header>")
    assert "<b>Club a&lt;b</b>" in framed and "a<b" not in framed
    assert "var s='<body class=x></head><h1>no</h1><title>x</title>';" in framed


def test_report_builder_title_is_not_doubled_in_the_web_app(club: tuple[TestClient, str]) -> None:
    client, token = club
    auth = {"Authorization": f"Bearer {token}"}
    client.post("/api/uploads", files={"file": ("n.sgf", sample_log(6, seed=3))}, headers=auth)
    index = client.get("/reports/skatfreunde-nord/", headers=auth).text
    assert "skatlog report - skatlog report" not in index


def _doc_commands() -> list[list[str]]:
    """The ``skatlog serve`` and ``skatlog club`` commands in docs/web.md's shell blocks."""
    text = (REPO / "docs" / "web.md").read_text(encoding="utf-8")
    commands = []
    for block in re.findall(r"```(?:bash|sh)\n(.*?)```", text, re.S):
        for line in block.splitlines():
            line = line.split("#", 1)[0].strip()
            if line.startswith(("skatlog serve", "skatlog club")):
                commands.append(shlex.split(line)[1:])
    return commands


def test_the_docs_commands_work_after_the_readmes_main_job(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's main job leaves a data archive in data/archive (and a shell may export
    SKATLOG_ARCHIVE for it); serve and club keep their own root, data/web, beside it."""
    import uvicorn

    runs: list[dict[str, object]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: runs.append({"app": app, **kw}))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SKATLOG_ARCHIVE", "data/archive")
    monkeypatch.delenv("SKATLOG_WEB_ROOT", raising=False)
    (tmp_path / "data" / "archive").mkdir(parents=True)
    (tmp_path / "data" / "archive" / "manifest.json").write_text("{}")
    commands = _doc_commands()
    assert any(c[0] == "serve" for c in commands) and any(c[0] == "club" for c in commands)
    runner = CliRunner()
    for args in commands:
        result = runner.invoke(cli, args)
        assert result.exit_code == 0, (args, result.output)
    assert runs and runs[0]["app"].state.settings.archive == Path("data/web")  # type: ignore[attr-defined]
    assert (tmp_path / "data" / "web" / "clubs.json").is_file()
    assert not (tmp_path / "data" / "archive" / "clubs.json").exists()
    listing = runner.invoke(cli, ["club", "list"])
    assert listing.exit_code == 0 and "skatfreunde-nord" in listing.stdout
    elsewhere = tmp_path / "elsewhere"
    monkeypatch.setenv("SKATLOG_WEB_ROOT", str(elsewhere))
    assert runner.invoke(cli, ["club", "add", "gamma"]).exit_code == 0
    assert (elsewhere / "clubs.json").is_file()
