"""End to end in a real headless Chromium: log in, upload through the page, read the result
table, open the club's report. The server is the real ``skatlog serve`` on a free port.

Chromium is Debian's (/usr/bin/chromium), driven by the playwright package; no browser is ever
downloaded. Without it the test skips locally and FAILS in CI (``CI`` or
``SKATLOG_REQUIRE_SHARED=1``).
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from skatlog.web.clubs import ClubStore
from skatlog.web.samples import sample_log

REPO = Path(__file__).resolve().parent.parent
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM = os.environ.get("SKATLOG_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
HOSTILE = '<img src=x onerror="window.__pwned=1">'

pytestmark = pytest.mark.browser


@pytest.fixture
def chromium() -> str:
    """The Chromium executable; skips without one, fails instead in CI (``CI`` or
    ``SKATLOG_REQUIRE_SHARED=1``, which ``.ci/run`` sets), as the report browser test does."""
    problem = None
    if not (Path(CHROMIUM).is_file() or shutil.which(CHROMIUM)):
        problem = f"chromium not found at {CHROMIUM}"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError as exc:
            problem = f"the playwright package is missing: {exc}"
    if problem:
        if os.environ.get("CI") or os.environ.get("SKATLOG_REQUIRE_SHARED") == "1":
            pytest.fail(f"{problem} (required in CI, so browser tests must run)")
        pytest.skip(problem)
    return CHROMIUM


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[tuple[str, str, Path]]:
    """``skatlog serve`` on 127.0.0.1 and a free port: (base URL, club token, archive)."""
    archive = tmp_path / "archive"
    token = ClubStore(archive).add("alpha")
    port = _free_port()
    log = open(tmp_path / "server.log", "w+b")  # noqa: SIM115 - closed below
    process = subprocess.Popen(
        [sys.executable, "-m", "skatlog", "serve", "--archive", str(archive),
         "--host", "127.0.0.1", "--port", str(port)],
        stdout=log, stderr=subprocess.STDOUT, cwd=tmp_path)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    pytest.fail("skatlog serve did not start:\n" + log.read().decode())
                time.sleep(0.1)
        yield base, token, archive
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


def test_upload_through_the_page_and_open_the_report(chromium: str,
                                                     live_server: tuple[str, str, Path],
                                                     tmp_path: Path) -> None:
    from playwright.sync_api import FilePayload, expect, sync_playwright

    base, token, archive = live_server
    sample = tmp_path / "club-night.sgf"
    sample.write_text(sample_log(24, seed=3, players=("Anna", HOSTILE, "Clara")))
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(base + "/")
            expect(page.get_by_role("heading", name="Club log in")).to_be_visible()
            page.fill("#token", token)
            page.click("button[type=submit]")
            expect(page.get_by_test_id("who")).to_have_text("club alpha")

            # upload with the file picker
            page.set_input_files("#file", str(sample))
            result = page.get_by_test_id("result")
            expect(result).to_be_visible(timeout=30_000)
            expect(page.get_by_test_id("stored")).to_have_text("24")
            expect(page.get_by_test_id("rejected")).to_have_text("0")
            rows = page.locator("[data-testid=result-table] tbody tr")
            expect(rows).to_have_count(24)
            assert "valid" in rows.first.inner_text()
            # the hostile name is shown as text and its script never ran
            expect(page.get_by_text(HOSTILE).first).to_be_visible()
            assert page.evaluate("window.__pwned") is None
            expect(page.locator("[data-testid=stats-table] tbody tr").first).not_to_have_text(
                "no games yet")
            expect(page.locator("#games-total")).to_have_text("24")

            # upload the same games again by drag and drop: all duplicates
            page.evaluate(
                """text => {
                    const data = new DataTransfer();
                    data.items.add(new File([text], 'again.sgf', {type: 'text/plain'}));
                    const drop = document.getElementById('drop');
                    drop.dispatchEvent(new DragEvent('dragover', {dataTransfer: data,
                                                                 bubbles: true}));
                    drop.dispatchEvent(new DragEvent('drop', {dataTransfer: data, bubbles: true}));
                }""", sample.read_text())
            expect(page.get_by_test_id("duplicates")).to_have_text("24", timeout=30_000)
            expect(page.get_by_test_id("stored")).to_have_text("0")

            # a refused upload shows its reason and keeps the archive
            noise: FilePayload = {"name": "noise.sgf", "mimeType": "text/plain",
                                  "buffer": bytes(range(256)) * 64}
            page.set_input_files("#file", files=[noise])
            expect(page.get_by_test_id("upload-error")).to_contain_text("binary",
                                                                         timeout=30_000)
            page.screenshot(path=str(ARTIFACTS / "web-upload-error.png"))

            # back to the successful result for the screenshot
            page.set_input_files("#file", str(sample))
            expect(page.get_by_test_id("duplicates")).to_have_text("24", timeout=30_000)
            expect(page.get_by_test_id("upload-error")).to_be_hidden()
            page.screenshot(path=str(ARTIFACTS / "web-upload.png"), full_page=True)

            # the club's report pages
            page.get_by_test_id("open-reports").click()
            page.wait_for_url(re.compile(r"/reports/alpha/"), timeout=60_000)
            expect(page.locator("h1").first).to_be_visible()
            assert "no games yet" not in page.content()
            assert re.search(r"\b24\b", page.inner_text("body")), "report misses the 24 hands"
            charts = page.locator(".plotly-graph-div, .js-plotly-plot")
            if charts.count():
                expect(charts.first).to_be_visible()
            assert page.evaluate("window.__pwned") is None
            page.screenshot(path=str(ARTIFACTS / "web-report.png"), full_page=True)
            assert not errors, errors
        finally:
            browser.close()
    assert (archive / "clubs" / "alpha" / "manifest.json").is_file()
