"""The web app under load and abuse: bad tokens are cheap and rate limited, one club's
queue of uploads does not starve another club, per-game results are paged from disk, and
upload ids belong to the club that sent them."""

from __future__ import annotations

import asyncio
import json
import secrets
import threading
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

import skatlog.web.app as app_module
import skatlog.web.clubs as clubs_module
from skatlog.ingest.validate import game_json, validate_text
from skatlog.web.app import create_app
from skatlog.web.clubs import ClubStore, hash_token
from skatlog.web.samples import sample_log
from skatlog.web.settings import WebSettings


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _wrong(token: str) -> str:
    """The token with its last character changed (same club's key id, wrong secret)."""
    return token[:-1] + ("A" if token[-1] != "A" else "B")


def _run(app: Any, scenario: Callable[[httpx.AsyncClient], Coroutine[Any, Any, Any]]) -> Any:
    """Run ``scenario`` with an async client on the app, in one event loop (so requests
    really are concurrent, as a server's are)."""

    async def main() -> Any:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver",
                                     timeout=120) as client:
            return await scenario(client)

    return asyncio.run(main())


# -- bad tokens ------------------------------------------------------------------------------
def test_a_bad_token_costs_at_most_one_scrypt_and_never_on_the_event_loop(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = ClubStore(tmp_path)
    tokens = [store.add(f"club{i}") for i in range(33)]
    calls: list[bool] = []
    real = clubs_module.hash_token

    def counted(token: str, salt: bytes) -> str:
        try:
            asyncio.get_running_loop()
            calls.append(True)  # hashing on the event loop holds up every request
        except RuntimeError:
            calls.append(False)
        return real(token, salt)

    monkeypatch.setattr(clubs_module, "hash_token", counted)
    client = TestClient(create_app(WebSettings(archive=tmp_path)))
    for bad in (_wrong(tokens[7]), "skc_" + secrets.token_urlsafe(32),
                "skc_0123456789ab." + secrets.token_urlsafe(32)):
        assert client.get("/api/games", headers=bearer(bad)).status_code == 401
    assert len(calls) <= 1, f"{len(calls)} scrypt hashes for three bad tokens over 33 clubs"
    calls.clear()
    for _ in range(3):
        assert client.get("/api/clubs", headers=bearer(tokens[20])).status_code == 200
    assert len(calls) == 1  # a good token: hashed once, then known
    form = client.post("/login", data={"token": _wrong(tokens[3])})
    assert form.status_code == 401
    assert calls and not any(calls), "a token was hashed on the event loop"


def test_failed_token_checks_are_rate_limited_per_address(tmp_path: Path) -> None:
    store = ClubStore(tmp_path)
    good, fresh = store.add("alpha"), store.add("beta")
    app = create_app(WebSettings(archive=tmp_path, login_failures=3,
                                 login_refill_seconds=60))
    client = TestClient(app, client=("203.0.113.7", 40000))
    assert client.get("/api/clubs", headers=bearer(good)).status_code == 200  # known from now on
    for _ in range(3):
        assert client.get("/api/games", headers=bearer(_wrong(good))).status_code == 401
    limited = client.get("/api/games", headers=bearer(_wrong(good)))
    assert limited.status_code == 429, limited.text
    assert limited.json()["code"] == "rate_limited"
    assert 1 <= int(limited.headers["retry-after"]) <= 60
    page = client.post("/login", data={"token": _wrong(good)})
    assert page.status_code == 429 and "Too many failed log-ins" in page.text
    assert "retry-after" in page.headers and "set-cookie" not in page.headers
    # a token this server already verified still works from that address ...
    assert client.get("/api/clubs", headers=bearer(good)).status_code == 200
    # ... one it would have to hash waits, and other addresses are not affected
    assert client.get("/api/clubs", headers=bearer(fresh)).status_code == 429
    other = TestClient(app, client=("198.51.100.2", 40000))
    assert other.get("/api/clubs", headers=bearer(fresh)).status_code == 200
    assert other.get("/api/games", headers=bearer(_wrong(fresh))).status_code == 401


def test_tokens_issued_before_key_ids_still_work(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """clubs.json entries without key_id (the earlier token form) keep their tokens; such a
    token is hashed against those entries only, and new-form tokens never touch them."""
    store = ClubStore(tmp_path)
    new = store.add("gamma")
    old_token = "skc_" + secrets.token_urlsafe(32)
    salt = secrets.token_bytes(16)
    data = json.loads((tmp_path / "clubs.json").read_text())
    data["clubs"].append({"name": "oldclub", "admin": False, "created": "2025-01-01T00:00:00",
                          "salt": salt.hex(), "token_hash": hash_token(old_token, salt),
                          "revoked": False})
    (tmp_path / "clubs.json").write_text(json.dumps(data))
    fresh = ClubStore(tmp_path)
    assert fresh.verify(old_token).name == "oldclub"  # type: ignore[union-attr]
    assert fresh.clubs()["oldclub"].legacy and not fresh.clubs()["gamma"].legacy
    calls: list[str] = []
    real = clubs_module.hash_token
    monkeypatch.setattr(clubs_module, "hash_token",
                        lambda token, salt: calls.append(token) or real(token, salt))
    assert ClubStore(tmp_path).verify(_wrong(new)) is None
    assert len(calls) == 1  # gamma's entry only, not the old one
    client = TestClient(create_app(WebSettings(archive=tmp_path)))
    assert client.get("/api/clubs", headers=bearer(old_token)).json()["me"]["name"] == "oldclub"


# -- fairness --------------------------------------------------------------------------------
def test_one_clubs_queued_uploads_do_not_starve_another_clubs_reads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """alpha sends 45 uploads that wait (as on its archive's lock); beta's reads answer at
    once. alpha may have 16 in progress (the default); the others are told to come back."""
    store = ClubStore(tmp_path)
    alpha, beta = store.add("alpha"), store.add("beta")
    app = create_app(WebSettings(archive=tmp_path))
    setup = TestClient(app)
    assert setup.post("/api/uploads", files={"file": ("b.sgf", sample_log(3, seed=1))},
                      headers=bearer(beta)).json()["stored"] == 3
    release = threading.Event()
    real = app_module.process_upload
    started: list[float] = []

    def held(*args: Any) -> Any:
        started.append(time.monotonic())
        release.wait(60)
        return real(*args)

    monkeypatch.setattr(app_module, "process_upload", held)
    log = sample_log(2, seed=2)

    async def scenario(client: httpx.AsyncClient) -> Any:
        uploads = [asyncio.create_task(client.post(
            "/api/uploads", files={"file": (f"a{i}.sgf", log)}, headers=bearer(alpha)))
            for i in range(45)]
        try:
            while not started:
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.5)  # every upload has arrived and waits
            clock = time.monotonic()
            games = await asyncio.wait_for(client.get("/api/games", headers=bearer(beta)), 10)
            stats = await asyncio.wait_for(
                client.get("/api/stats/contracts", headers=bearer(beta)), 10)
            waited = time.monotonic() - clock
        finally:
            release.set()
        return games, stats, waited, await asyncio.gather(*uploads)

    games, stats, waited, uploads = _run(app, scenario)
    assert games.status_code == 200 and games.json()["total"] == 3
    assert stats.status_code == 200
    assert waited < 5, f"beta's reads took {waited:.1f} s behind alpha's uploads"
    done = [u for u in uploads if u.status_code == 200]
    busy = [u for u in uploads if u.status_code == 429]
    assert len(done) == 16 and len(busy) == 29
    assert {u.json()["code"] for u in busy} == {"busy"}
    assert sorted(u.json()["stored"] for u in done) == [0] * 15 + [2]
    assert len(started) == 16  # one at a time in alpha's own worker, never 45 threads


def test_a_club_may_have_only_so_many_uploads_in_progress(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = ClubStore(tmp_path)
    alpha, beta = store.add("alpha"), store.add("beta")
    app = create_app(WebSettings(archive=tmp_path, max_queued_uploads=2))
    release = threading.Event()
    real = app_module.process_upload
    monkeypatch.setattr(app_module, "process_upload",
                        lambda *args: (release.wait(60), real(*args))[1])
    log = sample_log(2, seed=3)

    async def scenario(client: httpx.AsyncClient) -> Any:
        def send(token: str) -> Any:
            return asyncio.create_task(client.post(
                "/api/uploads", files={"file": ("x.sgf", log)}, headers=bearer(token)))

        first = [send(alpha), send(alpha)]
        await asyncio.sleep(0.5)
        try:
            refused = await asyncio.wait_for(send(alpha), 10)
            other = send(beta)  # another club is not counted against alpha
        finally:
            release.set()
        return refused, await asyncio.gather(*first, other)

    refused, done = _run(app, scenario)
    assert refused.status_code == 429 and refused.json()["code"] == "busy"
    assert refused.headers["retry-after"]
    assert [r.status_code for r in done] == [200, 200, 200]


# -- results paged from disk -----------------------------------------------------------------
def test_per_game_results_are_paged_and_streamed_not_sent_whole(tmp_path: Path) -> None:
    store = ClubStore(tmp_path)
    token = store.add("alpha")
    client = TestClient(create_app(WebSettings(archive=tmp_path, result_page=40)))
    lines = sample_log(150, seed=4).splitlines()
    lines[100] = lines[100].replace("MV[", "MV[nonsense ", 1)
    text = "\n".join(lines) + "\n"
    response = client.post("/api/uploads", files={"file": ("big.sgf", text)},
                           headers={**bearer(token), "X-Upload-Id": "big-upload-1"})
    body = response.json()
    assert response.status_code == 200, response.text
    assert len(body["games"]) == 40 and body["games_total"] == 150
    assert (body["stored"], body["rejected"]) == (149, 1)
    entries = list(body["games"])
    url = body["games_next"]
    while url:
        page = client.get(url, headers=bearer(token)).json()
        assert page["total"] == 150 and len(page["games"]) <= 40
        entries += page["games"]
        url = page["next"]
    expected = [game_json(g) for g in validate_text(text, "big.sgf")]
    assert [e["id"] for e in entries] == [e["id"] for e in expected]
    assert [e["ok"] for e in entries] == [e["ok"] for e in expected]
    assert entries[100]["errors"] and entries[100]["errors"][0]["line"] == 101
    stream = client.get("/api/uploads/big-upload-1/games?format=ndjson", headers=bearer(token))
    assert stream.headers["content-type"].startswith("application/x-ndjson")
    assert [json.loads(line) for line in stream.text.splitlines()] == entries
    tail = client.get("/api/uploads/big-upload-1/games?offset=140&limit=100",
                      headers=bearer(token)).json()
    assert tail["games"] == entries[140:] and tail["next"] is None
    # an upload's answer stays small however many games it has
    assert len(response.content) < 2 * len(json.dumps(entries[:40])) + 4096
    other = store.add("beta")
    assert client.get("/api/uploads/big-upload-1/games",
                      headers=bearer(other)).status_code == 404


def test_refused_upload_pages_its_entries_too(tmp_path: Path) -> None:
    token = ClubStore(tmp_path).add("alpha")
    client = TestClient(create_app(WebSettings(archive=tmp_path, result_page=5)))
    junk = "".join(f"(;GM[Skat]MV[w nonsense{i} ;)\n" for i in range(12))
    refused = client.post("/api/uploads", files={"file": ("junk.sgf", junk)},
                          headers={**bearer(token), "X-Upload-Id": "junk-upload-1"})
    assert refused.status_code == 422 and refused.json()["code"] == "no_games"
    body = refused.json()
    assert len(body["games"]) == 5 and body["games_total"] == 12 and body["games_next"]
    everything = client.get("/api/uploads/junk-upload-1/games?format=ndjson",
                            headers=bearer(token)).text.splitlines()
    assert len(everything) == 12


def test_results_of_old_uploads_are_dropped_from_disk(tmp_path: Path) -> None:
    token = ClubStore(tmp_path).add("alpha")
    app = create_app(WebSettings(archive=tmp_path))
    client = TestClient(app)
    board_keep = 32
    for i in range(board_keep + 3):
        client.post("/api/uploads", files={"file": ("x.sgf", sample_log(1, seed=5))},
                    headers={**bearer(token), "X-Upload-Id": f"upload-{i:04d}"})
    kept = list((app.state.workspace.dir / "results").glob("*.ndjson"))
    assert len(kept) == board_keep
    gone = client.get("/api/uploads/upload-0000/games", headers=bearer(token))
    assert gone.status_code == 404 and "no longer kept" in gone.json()["detail"]
    assert client.get(f"/api/uploads/upload-{board_keep + 2:04d}/games",
                      headers=bearer(token)).status_code == 200


# -- upload ids ------------------------------------------------------------------------------
def test_another_club_reusing_an_upload_id_does_not_touch_the_first_clubs_progress(
        tmp_path: Path) -> None:
    store = ClubStore(tmp_path)
    alpha, beta = store.add("alpha"), store.add("beta")
    client = TestClient(create_app(WebSettings(archive=tmp_path)))
    shared = {"X-Upload-Id": "same-id-0001"}
    first = client.post("/api/uploads", files={"file": ("a.sgf", sample_log(6, seed=6))},
                        headers={**bearer(alpha), **shared})
    assert first.status_code == 200
    second = client.post("/api/uploads", files={"file": ("b.sgf", sample_log(3, seed=7))},
                         headers={**bearer(beta), **shared})
    assert second.status_code == 200 and second.json()["upload_id"] == "same-id-0001"
    mine = client.get("/api/uploads/same-id-0001/progress", headers=bearer(alpha))
    assert mine.status_code == 200 and mine.json()["games"] == 6
    theirs = client.get("/api/uploads/same-id-0001/progress", headers=bearer(beta))
    assert theirs.status_code == 200 and theirs.json()["games"] == 3
    ids = [g["id"] for g in client.get("/api/uploads/same-id-0001/games",
                                       headers=bearer(alpha)).json()["games"]]
    assert ids == [g["id"] for g in first.json()["games"]]
