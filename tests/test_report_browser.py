"""The generated report in a real headless Chromium: every chart renders, no console errors.

Uses Debian's ``/usr/bin/chromium`` through playwright (no browser download). Without a
chromium the test skips locally but FAILS in CI (``CI`` or ``SKATLOG_REQUIRE_SHARED=1``).
A screenshot of every page is kept under ``test-artifacts/report/``.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from skatlog.analytics.analysis import analyse_archive
from skatlog.analytics.synthetic import write_sessions
from skatlog.reports.build import build_report

REPO = Path(__file__).resolve().parent.parent
ARTIFACTS = REPO / "test-artifacts" / "report"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
HOSTILE = "<script>alert('x')</script>"


def _chromium() -> str:
    path = os.environ.get("SKATLOG_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    required = bool(os.environ.get("CI")) or os.environ.get("SKATLOG_REQUIRE_SHARED") == "1"
    if not Path(path).exists():
        if required:
            pytest.fail(f"chromium not found at {path} (required in CI)")
        pytest.skip("chromium is not installed")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        if required:
            pytest.fail("the playwright package is missing (required in CI)")
        pytest.skip("playwright is not installed")
    return path


@pytest.mark.browser
def test_every_page_renders_its_charts(tmp_path: Path) -> None:
    chromium = _chromium()
    from playwright.sync_api import sync_playwright

    archive = tmp_path / "archive"
    write_sessions(archive, 20, 7)
    write_sessions(archive, 4, 8, origin="log", club="Pik & Co",
                   players=(HOSTILE, "Ann & Bob", "Zoë", "Max"))
    # a few logged games solved, so that "Could it have been won?" draws real bars
    analysed = analyse_archive(archive, where="origin = 'log' AND hand_no <= 4")
    assert analysed.analysed > 0
    result = build_report(archive, tmp_path / "report")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            problems: list[str] = []
            page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}")
                    if m.type == "error" else None)
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
            page.on("dialog", lambda d: (problems.append(f"dialog: {d.message}"), d.dismiss()))
            for path in result.pages:
                page.goto(path.resolve().as_uri())
                page.wait_for_load_state("load")
                charts = page.locator("figure.chart").count()
                assert charts >= 1, f"{path.name} has no chart"
                page.wait_for_function(
                    "n => document.querySelectorAll('.js-plotly-plot .main-svg').length >= n",
                    arg=charts, timeout=15_000)
                plots = page.locator(".js-plotly-plot").count()
                assert plots == charts, f"{path.name}: {plots} of {charts} charts rendered"
                assert page.locator("h1").inner_text()
                page.screenshot(path=str(ARTIFACTS / f"{path.parent.name}-{path.stem}.png"),
                                full_page=path.name == "index.html")
            logs = next(p for p in result.parts if p.origin == "log")
            page.goto((tmp_path / "report" / logs.slug / "players.html").resolve().as_uri())
            assert HOSTILE in page.locator("#t-players").inner_text()
            page.goto((tmp_path / "report" / logs.slug / "could-win.html").resolve().as_uri())
            page.wait_for_function("document.querySelectorAll('.js-plotly-plot .main-svg')"
                                   ".length >= 1", timeout=15_000)
            assert "Lost games winnable with best play" in page.locator("body").inner_text()
            assert page.locator("#t-could-win").count() == 1
        finally:
            browser.close()
    assert problems == []
