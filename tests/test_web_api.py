"""The web app's JSON API and pages: upload, results, games, stats, reports, club isolation."""

from __future__ import annotations

import bz2
import gzip
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import zstandard
from fastapi.testclient import TestClient

from skatlog.ingest.validate import game_json, validate_text
from skatlog.web.app import create_app
from skatlog.web.clubs import ClubStore
from skatlog.web.samples import sample_log
from skatlog.web.settings import WebSettings


@dataclass
class Server:
    client: TestClient
    store: ClubStore
    tokens: dict[str, str]

    def auth(self, club: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[club]}"}

    def upload(self, club: str, text: str | bytes, name: str = "club-night.sgf",
               query: str = "") -> httpx.Response:
        data = text.encode() if isinstance(text, str) else text
        return self.client.post(f"/api/uploads{query}", files={"file": (name, data)},
                                headers=self.auth(club))


@pytest.fixture
def server(tmp_path: Path) -> Server:
    store = ClubStore(tmp_path)
    tokens = {"alpha": store.add("alpha"), "beta": store.add("beta"),
              "boss": store.add("boss", admin=True)}
    return Server(TestClient(create_app(WebSettings(archive=tmp_path))), store, tokens)


def _tamper_card(line: str) -> str:
    """Make the first card play of an ISS record a card its player does not hold."""
    return re.sub(r"(MV\[w [^ ]+ .*?) (\d) ([CSHD][789TJQKA]) (\d) ([CSHD][789TJQKA]) ",
                  lambda m: f"{m.group(1)} {m.group(2)} {m.group(5)} {m.group(4)} "
                            f"{m.group(3)} ", line, count=1)


def test_upload_returns_the_validate_json_of_every_game(server: Server) -> None:
    text = sample_log(12, seed=1)
    response = server.upload("alpha", text)
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["stored"], body["duplicates"], body["rejected"]) == (12, 0, 0)
    assert len(body["games"]) == 12
    expected = [game_json(g) for g in validate_text(text, "club-night.sgf")]
    for entry, reference in zip(body["games"], expected, strict=True):
        for key, value in reference.items():
            if key != "errors":
                assert entry[key] == value, key
        assert entry["ok"] and entry["value_check"] in ("ok", "not_recorded")
        if entry["outcome"] == "played":
            assert entry["recorded_value"] == entry["value"]


def test_invalid_games_are_reported_with_line_move_rule_and_message(server: Server) -> None:
    lines = sample_log(6, seed=2).splitlines()
    lines[3] = _tamper_card(lines[3])
    response = server.upload("alpha", "\n".join(lines) + "\n")
    assert response.status_code == 200
    body = response.json()
    assert (body["stored"], body["rejected"]) == (5, 1)
    bad = [g for g in body["games"] if not g["ok"]]
    assert len(bad) == 1 and bad[0]["line"] == 4
    error = bad[0]["errors"][0]
    assert error["line"] == 4 and isinstance(error["move"], int) and error["move"] > 0
    assert error["code"] in ("card_not_in_hand", "revoke", "wrong_player")
    assert error["rule"].startswith("R") and error["message"]


def test_recorded_and_recomputed_values_are_both_shown(server: Server) -> None:
    line = sample_log(1, seed=3).strip()
    value = int(re.search(r" v:(-?\d+) ", line).group(1))  # type: ignore[union-attr]
    wrong = line.replace(f" v:{value} ", f" v:{value + 1000} ")
    game = server.upload("alpha", wrong + "\n").json()["games"][0]
    assert game["recorded_value"] == value + 1000
    assert game["value"] == value
    assert game["value_check"] == "score_mismatch"


def test_second_upload_counts_duplicates(server: Server) -> None:
    text = sample_log(8, seed=4)
    assert server.upload("alpha", text).json()["stored"] == 8
    again = server.upload("alpha", text, name="again.sgf").json()
    assert (again["stored"], again["duplicates"]) == (0, 8)
    more = server.upload("alpha", text + sample_log(4, seed=5)).json()
    assert (more["stored"], more["duplicates"]) == (4, 8)


@pytest.mark.parametrize("kind", ["jsonl", "gz", "bz2", "zst"])
def test_formats_and_compressions(server: Server, kind: str) -> None:
    if kind == "jsonl":
        data: bytes = sample_log(5, seed=6, fmt="jsonl").encode()
    else:
        plain = sample_log(5, seed=6).encode()
        compress: dict[str, Callable[[bytes], bytes]] = {
            "gz": gzip.compress, "bz2": bz2.compress,
            "zst": zstandard.ZstdCompressor().compress}
        data = compress[kind](plain)
    response = server.upload("alpha", data, name=f"log.{kind}")
    assert response.status_code == 200, response.text
    assert response.json()["stored"] == 5


def test_games_listing_pages_through_the_club(server: Server) -> None:
    server.upload("alpha", sample_log(30, seed=7))
    everything = server.client.get("/api/games?limit=1000", headers=server.auth("alpha")).json()
    assert everything["total"] == 30 and len(everything["games"]) == 30
    first = server.client.get("/api/games?limit=10&offset=0", headers=server.auth("alpha"))
    second = server.client.get("/api/games?limit=10&offset=10", headers=server.auth("alpha"))
    ids = [g["game_id"] for g in first.json()["games"] + second.json()["games"]]
    assert len(set(ids)) == 20
    assert ids == [g["game_id"] for g in everything["games"][:20]]
    tail = server.client.get("/api/games?limit=10&offset=25", headers=server.auth("alpha")).json()
    assert len(tail["games"]) == 5 and tail["total"] == 30
    assert all(g["club"] == "alpha" for g in everything["games"])
    too_many = server.client.get("/api/games?limit=1001", headers=server.auth("alpha"))
    assert too_many.status_code == 422


def test_contract_stats_count_the_clubs_played_games(server: Server) -> None:
    text = sample_log(24, seed=8)
    server.upload("alpha", text)
    stats = server.client.get("/api/stats/contracts", headers=server.auth("alpha")).json()
    played = [g for g in validate_text(text, "x") if g.record and g.record.result.outcome
              == "played"]
    assert sum(row["n"] for row in stats["contracts"]) == len(played)
    assert sum(row["k"] for row in stats["contracts"]) == sum(
        bool(g.record.result.won) for g in played)  # type: ignore[union-attr]
    for row in stats["contracts"]:
        assert 0 <= row["lo"] <= row["rate"] <= row["hi"] <= 1


def test_clubs_never_see_each_others_games(server: Server) -> None:
    server.upload("alpha", sample_log(10, seed=9, players=("Ann", "Bob", "Cid")))
    server.upload("beta", sample_log(4, seed=10, players=("Xia", "Yves", "Zoe")))
    alpha = server.client.get("/api/games?limit=1000", headers=server.auth("alpha")).json()
    beta = server.client.get("/api/games?limit=1000", headers=server.auth("beta")).json()
    assert alpha["total"] == 10 and beta["total"] == 4
    assert {g["forehand"] for g in alpha["games"]} <= {"Ann", "Bob", "Cid"}
    assert {g["forehand"] for g in beta["games"]} <= {"Xia", "Yves", "Zoe"}
    beta_stats = server.client.get("/api/stats/contracts", headers=server.auth("beta")).json()
    assert sum(r["n"] for r in beta_stats["contracts"]) <= 4
    # asking for the other club is refused, for data, stats, uploads and reports alike
    for path in ("/api/games?club=alpha", "/api/stats/contracts?club=alpha", "/reports/alpha/"):
        assert server.client.get(path, headers=server.auth("beta")).status_code == 403
    sneaky = server.upload("beta", sample_log(2, seed=11), query="?club=alpha")
    assert sneaky.status_code == 403
    assert server.client.get("/api/games", headers=server.auth("alpha")).json()["total"] == 10
    # each club's data sits in its own archive directory
    assert (server.store.club_archive("alpha") / "manifest.json").is_file()
    assert (server.store.club_archive("beta") / "manifest.json").is_file()


def test_admin_sees_every_club_and_must_name_one_to_upload(server: Server) -> None:
    server.upload("alpha", sample_log(3, seed=12))
    server.upload("beta", sample_log(2, seed=13))
    admin = server.auth("boss")
    everything = server.client.get("/api/games?limit=1000", headers=admin).json()
    assert everything["total"] == 5
    assert sorted({g["club"] for g in everything["games"]}) == ["alpha", "beta"]
    page = server.client.get("/api/games?limit=2&offset=2", headers=admin).json()
    assert [g["club"] for g in page["games"]] == ["alpha", "beta"]
    only_beta = server.client.get("/api/games?club=beta", headers=admin).json()
    assert only_beta["total"] == 2
    nameless = server.upload("boss", sample_log(1, seed=14))
    assert nameless.status_code == 400 and nameless.json()["code"] == "bad_club"
    ghost = server.upload("boss", sample_log(1, seed=14), query="?club=ghost")
    assert ghost.status_code == 404 and ghost.json() == {
        "detail": "no active club named 'ghost'", "code": "bad_club"}
    ghost_games = server.client.get("/api/games?club=ghost", headers=admin)
    assert ghost_games.status_code == 404 and ghost_games.json()["code"] == "bad_club"
    stored = server.upload("boss", sample_log(1, seed=14), query="?club=beta")
    assert stored.status_code == 200 and stored.json()["club"] == "beta"
    clubs = server.client.get("/api/clubs", headers=admin).json()["clubs"]
    assert {c["name"] for c in clubs} == {"alpha", "beta", "boss"}
    assert all("token_hash" not in c and "salt" not in c for c in clubs)
    page = server.client.get("/", headers=admin)
    assert page.status_code == 200 and "admin boss" in page.text
    assert '<option value="alpha">' in page.text and '<option value="beta">' in page.text
    assert server.client.get("/api/clubs", headers=server.auth("alpha")).json()["clubs"] == [
        {"name": "alpha", "admin": False, "created": clubs[0]["created"], "revoked": False}]


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer skc_wrong"},
                                     {"Authorization": "Basic YWxwaGE6eA=="},
                                     {"Cookie": "skatlog_token=skc_nope"}])
def test_nothing_is_readable_or_writable_without_a_valid_token(
        server: Server, headers: dict[str, str]) -> None:
    server.upload("alpha", sample_log(2, seed=15))
    client = server.client
    for method, path in [("get", "/api/games"), ("get", "/api/stats/contracts"),
                         ("get", "/api/clubs"), ("get", "/reports/"),
                         ("get", "/reports/alpha/"), ("get", "/reports/alpha/index.html"),
                         ("get", "/api/uploads/abcdefgh/progress")]:
        response = getattr(client, method)(path, headers=headers)
        assert response.status_code == 401, path
        assert "Ann" not in response.text
    upload = client.post("/api/uploads", files={"file": ("x.sgf", sample_log(1, seed=16))},
                         headers=headers)
    assert upload.status_code == 401
    assert client.get("/api/games", headers=server.auth("alpha")).json()["total"] == 2
    page = client.get("/", headers=headers)
    assert page.status_code == 401 and 'name="token"' in page.text


def test_revoked_token_is_refused(server: Server) -> None:
    server.store.revoke("alpha")
    assert server.client.get("/api/games", headers=server.auth("alpha")).status_code == 401
    assert server.upload("alpha", sample_log(1, seed=17)).status_code == 401


def test_login_sets_a_strict_httponly_cookie_and_logout_clears_it(server: Server) -> None:
    client = server.client
    bad = client.post("/login", data={"token": "skc_wrong"})
    assert bad.status_code == 401 and "not valid" in bad.text
    response = client.post("/login", data={"token": server.tokens["alpha"]},
                           follow_redirects=False)
    assert response.status_code == 303
    cookie = response.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie
    page = client.get("/")
    assert page.status_code == 200 and "club alpha" in page.text
    assert "script-src 'self'" in page.headers["content-security-policy"]
    upload = client.post("/api/uploads", files={"file": ("x.sgf", sample_log(2, seed=18))})
    assert upload.status_code == 200  # the page's own upload, authenticated by the cookie
    cross = client.post("/api/uploads", files={"file": ("x.sgf", sample_log(2, seed=19))},
                        headers={"Origin": "https://evil.example"})
    assert cross.status_code == 403
    client.post("/logout")
    assert client.get("/api/games").status_code == 401


def test_progress_of_an_upload_is_visible_to_its_club_only(server: Server) -> None:
    text = sample_log(6, seed=20)
    response = server.client.post("/api/uploads", files={"file": ("x.sgf", text)},
                                  headers={**server.auth("alpha"), "X-Upload-Id": "upload-0001"})
    assert response.json()["upload_id"] == "upload-0001"
    progress = server.client.get("/api/uploads/upload-0001/progress", headers=server.auth("alpha"))
    assert progress.status_code == 200
    data = progress.json()
    assert data["phase"] == "done" and data["games"] == 6
    assert data["received_bytes"] >= len(text) and data["unpacked_bytes"] == len(text)
    other = server.client.get("/api/uploads/upload-0001/progress", headers=server.auth("beta"))
    assert other.status_code == 404


def test_club_report_pages_are_built_from_the_club_archive(server: Server) -> None:
    empty = server.client.get("/reports/alpha/", headers=server.auth("alpha"))
    assert empty.status_code == 200 and "no games yet" in empty.text
    server.upload("alpha", sample_log(12, seed=21, players=("AlphaAnn", "AlphaBob", "AlphaCid")))
    server.upload("beta", sample_log(12, seed=22, players=("BetaXia", "BetaYves", "BetaZoe")))
    home = server.client.get("/reports/", headers=server.auth("alpha"), follow_redirects=False)
    assert home.status_code == 303 and home.headers["location"] == "/reports/alpha/"
    page = server.client.get("/reports/alpha/", headers=server.auth("alpha"))
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert "no games yet" not in page.text
    assert "BetaXia" not in page.text
    texts = [page.text]
    for link in set(re.findall(r'href="([^"#:]+\.html)"', page.text)):
        sub = server.client.get(f"/reports/alpha/{link}", headers=server.auth("alpha"))
        assert sub.status_code == 200, link
        assert "BetaXia" not in sub.text and "BetaZoe" not in sub.text
        texts.append(sub.text)
    assert len(texts) > 2 and any("AlphaAnn" in text for text in texts)
    assert server.client.get("/reports/alpha/../beta/index.html",
                             headers=server.auth("alpha")).status_code in (403, 404)
    assert server.client.get("/reports/alpha/.fingerprint",
                             headers=server.auth("alpha")).status_code == 404
    admin = server.client.get("/reports/", headers=server.auth("boss"))
    assert admin.status_code == 200 and "/reports/alpha/" in admin.text
    assert server.client.get("/reports/beta/", headers=server.auth("boss")).status_code == 200
