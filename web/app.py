"""The FastAPI application: the upload page, the JSON API and the club's report pages.

Built by :func:`create_app` from :class:`~.settings.WebSettings`; ``skatlog serve`` runs it
with uvicorn. Routes only parse requests and call :mod:`.process`, :mod:`.backend` and
:mod:`.reports_site`; all data access is scoped to the club directory the token opens.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Query, Request
from fastapi.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.concurrency import run_in_threadpool

from skatlog.analytics.connect import AnalyticsError
from skatlog.ingest.archive import ArchiveError

from . import backend
from .auth import COOKIE, Gate, Identity, client_address, cross_site, target_club
from .clubs import ClubError, ClubStore
from .errors import UploadRejected, storage_error
from .process import process_upload
from .progress import Progress, ProgressBoard
from .ratelimit import FailureLimiter, TooManyFailures
from .receive import receive_upload
from .reports_site import ReportSite
from .results import Results
from .settings import WebSettings
from .workers import ClubWorkers
from .workspace import Workspace

log = logging.getLogger("skatlog.web")

HERE = Path(__file__).resolve().parent
MAX_PAGE = 1000

# Our own pages run no inline script and load nothing from elsewhere.
PAGE_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            "connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'")


def create_app(settings: WebSettings) -> FastAPI:
    """The web app over ``settings.archive`` (clubs.json and ``clubs/<name>/`` archives).

    Creating it removes the scratch files a killed server left in the root
    (:mod:`.workspace`).
    """
    store = ClubStore(settings.archive)
    workspace = Workspace(settings.archive)
    board = ProgressBoard()
    gate = Gate(store, FailureLimiter(settings.login_failures, settings.login_refill_seconds))
    workers = ClubWorkers(settings.upload_workers, settings.max_queued_uploads)
    site = ReportSite(store, settings.archive / "reports", workspace, settings.scoring)
    templates = Jinja2Templates(directory=str(HERE / "templates"))  # autoescape is on for .html

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        workers.close()
        gate.close()
        workspace.close()

    app = FastAPI(title="skatlog club uploads", docs_url=None, redoc_url=None, openapi_url=None,
                  lifespan=lifespan)
    app.state.settings = settings
    app.state.store = store
    app.state.workspace = workspace
    app.state.workers = workers
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")

    @app.middleware("http")
    async def security_headers(request: Request, call_next: Any) -> Response:
        response: Response = await call_next(request)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        # same-origin: our own form posts and uploads carry their Origin (cross_site checks
        # it); no other site ever learns a page address
        response.headers.setdefault("Referrer-Policy", "same-origin")
        response.headers.setdefault("Content-Security-Policy", PAGE_CSP)
        if not request.url.path.startswith("/static/"):
            response.headers.setdefault("Cache-Control", "no-store")
        return response

    @app.exception_handler(UploadRejected)
    async def rejected(_: Request, exc: UploadRejected) -> JSONResponse:
        return JSONResponse(exc.payload(), status_code=exc.status, headers=exc.headers)

    @app.exception_handler(ArchiveError)
    @app.exception_handler(AnalyticsError)
    @app.exception_handler(ClubError)
    async def archive_trouble(_: Request, exc: Exception) -> JSONResponse:
        # A damaged or unreadable club archive: say so, without a traceback.
        return JSONResponse({"detail": f"the club archive cannot be used: {exc}",
                             "code": "archive_error"}, status_code=503)

    @app.exception_handler(OSError)
    async def storage_trouble(request: Request, exc: OSError) -> JSONResponse:
        # The server's disk (full, read-only, gone): 503, never a 500 with a traceback.
        log.error("%s %s: %s", request.method, request.url.path, exc)
        return JSONResponse({"detail": f"the server's storage failed: {exc.strerror or exc}",
                             "code": "archive_error"}, status_code=503)

    @app.exception_handler(TooManyFailures)
    async def too_many_failures(request: Request, exc: TooManyFailures) -> Response:
        headers = {"Retry-After": str(exc.retry_after)}
        if request.url.path.startswith("/api/"):
            return JSONResponse({"detail": str(exc), "code": "rate_limited"}, status_code=429,
                                headers=headers)
        page = login_page(request, f"Too many failed log-ins from your address; try again in "
                                   f"{exc.retry_after} seconds.", status=429)
        page.headers.update(headers)
        return page

    # -- pages -----------------------------------------------------------------------------
    def login_page(request: Request, error: str = "", status: int = 401) -> HTMLResponse:
        return templates.TemplateResponse(request, "login.html", {"error": error},
                                          status_code=status)

    @app.get("/", response_class=HTMLResponse)
    async def index(request: Request) -> Response:
        who = await gate.identify(request)
        if who is None:
            return login_page(request)
        clubs = sorted(c.name for c in store.active() if not c.admin) if who.admin else []
        return templates.TemplateResponse(request, "upload.html", {
            "who": who, "clubs": clubs, "max_upload": settings.max_upload_bytes,
        })

    @app.get("/login", response_class=HTMLResponse)
    async def login_form(request: Request) -> Response:
        return login_page(request, status=200)

    @app.post("/login")
    async def login(request: Request) -> Response:
        # A log-in posted by another site would log the browser in as the attacker's club
        # (login CSRF): SameSite does not stop a cookie being *set*, so refuse it here.
        if cross_site(request):
            return login_page(request, "Log-in from another site refused: open this "
                                       "server's own log-in page.", status=403)
        form = await request.form(max_files=0, max_fields=2, max_part_size=1024)
        token = str(form.get("token", "")).strip()
        club = await gate.club_of(token, client_address(request))
        if club is None:
            return login_page(request, "That token is not valid (or was revoked).")
        response = RedirectResponse("/", status_code=303)
        response.set_cookie(COOKIE, token, httponly=True, samesite="strict", path="/",
                            secure=request.url.scheme == "https")
        return response

    @app.post("/logout")
    async def logout(request: Request) -> Response:
        if cross_site(request):
            raise HTTPException(403, "cross-site request refused")
        response = RedirectResponse("/login", status_code=303)
        response.delete_cookie(COOKIE, path="/")
        return response

    @app.get("/reports/")
    async def reports_home(request: Request) -> Response:
        who = await gate.require(request)
        if who.admin:
            clubs = sorted(c.name for c in store.active() if not c.admin)
            return templates.TemplateResponse(request, "reports_admin.html",
                                              {"who": who, "clubs": clubs})
        return RedirectResponse(f"/reports/{who.name}/", status_code=303)

    @app.get("/reports/{club}/{path:path}")
    async def report_file(request: Request, club: str, path: str) -> Response:
        who = await gate.require(request)
        name = target_club(who, club, store)
        file = await run_in_threadpool(site.page, name, path or "index.html")
        if file is None:
            raise HTTPException(404, "no such report page")
        response = FileResponse(file)
        response.headers["Content-Security-Policy"] = site.csp
        return response

    # -- API -------------------------------------------------------------------------------
    @app.post("/api/uploads")
    async def upload(request: Request, club: str | None = None) -> JSONResponse:
        who = await gate.require(request)
        name = target_club(who, club, store)
        length = request.headers.get("content-length")
        expected = int(length) if length and length.isdigit() else None
        slot = workers.reserve(name)  # 429 when the club has too many uploads in progress
        upload_id, progress = board.start(request.headers.get("x-upload-id"), who.name, expected)
        submitted = False
        try:
            if expected is not None and expected > settings.max_upload_bytes:
                raise UploadRejected(413, "too_large",
                                     f"the upload is larger than the limit of "
                                     f"{settings.max_upload_bytes >> 20} MiB")
            try:
                work = workspace.upload_dir()
                slot.on_done(lambda: shutil.rmtree(work, ignore_errors=True))
                received = work / "received"
                with open(received, "wb") as target:

                    def received_bytes(n: int) -> None:
                        progress.received_bytes = n

                    file = await receive_upload(
                        request.headers.get("content-type", ""), request.stream(), target,
                        max_bytes=settings.max_upload_bytes, on_progress=received_bytes)
                progress.phase = "queued"
                submitted = True
                summary, results = await workers.run(
                    slot, process_upload, received, file.filename, store.club_archive(name),
                    settings, progress, work, workspace.results_path())
            except OSError as exc:  # the server's disk: full, read-only, gone
                log.error("upload %s of %s: %s", upload_id, name, exc)
                raise storage_error(exc) from exc
            except (ArchiveError, ClubError) as exc:
                raise UploadRejected(503, "archive_error",
                                     f"the club archive cannot be used: {exc}") from exc
        except UploadRejected as exc:
            progress.phase, progress.message = "failed", exc.message
            if exc.results is not None:
                board.attach(progress, exc.results)
                exc.extra.update(await run_in_threadpool(first_page, exc.results, upload_id))
            raise
        except Exception:
            progress.phase, progress.message = "failed", "server error"
            raise
        finally:
            if not submitted:
                slot.release()
        board.attach(progress, results)
        page = await run_in_threadpool(first_page, results, upload_id)
        return JSONResponse({**summary, **page, "club": name, "upload_id": upload_id})

    def first_page(results: Results, upload_id: str) -> dict[str, object]:
        games = results.page(0, settings.result_page)
        return {"games": games, "games_total": results.total,
                "games_next": games_url(upload_id, len(games), results.total)}

    def games_url(upload_id: str, offset: int, total: int) -> str | None:
        if offset >= total:
            return None
        limit = min(settings.result_page, MAX_PAGE)
        return f"/api/uploads/{upload_id}/games?offset={offset}&limit={limit}"

    @app.get("/api/uploads/{upload_id}/progress")
    async def upload_progress(request: Request, upload_id: str) -> JSONResponse:
        who = await gate.require(request)
        progress = board.get(upload_id, who.name)
        if progress is None:
            raise HTTPException(404, "no upload with that id")
        return JSONResponse(progress.public())

    @app.get("/api/uploads/{upload_id}/games")
    async def upload_games(
        request: Request,
        upload_id: str,
        offset: int = Query(0, ge=0),
        limit: int = Query(MAX_PAGE, ge=1, le=MAX_PAGE),
        format: str = Query("json", pattern="^(json|ndjson)$"),
    ) -> Response:
        """The per-game results of a finished upload: a page as JSON, or all of them from
        ``offset`` on as NDJSON (one object a line, streamed from disk)."""
        who = await gate.require(request)
        results = _results_of(board.get(upload_id, who.name))
        if format == "ndjson":
            return StreamingResponse(results.stream(offset), media_type="application/x-ndjson")
        games = await run_in_threadpool(results.page, offset, limit)
        total = results.total
        return JSONResponse({"games": games, "total": total, "offset": offset, "limit": limit,
                             "next": games_url(upload_id, offset + len(games), total)})

    @app.get("/api/games")
    async def games(
        request: Request,
        limit: int = Query(100, ge=1, le=MAX_PAGE),
        offset: int = Query(0, ge=0),
        club: str | None = None,
    ) -> JSONResponse:
        who = await gate.require(request)
        names = _clubs_in_view(who, club, store)
        rows, total = await run_in_threadpool(
            backend.list_games, {n: store.club_archive(n) for n in names}, limit, offset)
        return JSONResponse({"games": rows, "total": total, "limit": limit, "offset": offset})

    @app.get("/api/stats/contracts")
    async def contract_stats(request: Request, club: str | None = None) -> JSONResponse:
        who = await gate.require(request)
        names = _clubs_in_view(who, club, store)
        stats = await run_in_threadpool(
            backend.contract_stats, {n: store.club_archive(n) for n in names})
        return JSONResponse({"clubs": names, "contracts": stats})

    @app.get("/api/clubs")
    async def clubs(request: Request) -> JSONResponse:
        who = await gate.require(request)
        if who.admin:
            listed = [c.public() for c in store.clubs().values()]
        else:
            listed = [who.club.public()]
        return JSONResponse({"me": who.club.public(), "clubs": listed})

    return app


def _results_of(progress: Progress | None) -> Results:
    """The results of an upload, or 404 (unknown id, not finished, or no longer kept)."""
    if progress is None:
        raise HTTPException(404, "no upload with that id")
    results = progress.results
    if results is None or not results.exists():
        raise HTTPException(404, "no per-game results for that upload: it has not finished, "
                                 "or they are no longer kept")
    return results


def _clubs_in_view(who: Identity, club: str | None, store: ClubStore) -> list[str]:
    """The clubs a read covers: the club itself, or for the admin one club or all of them."""
    if who.admin and not club:
        return sorted(c.name for c in store.active() if not c.admin)
    return [target_club(who, club, store)]
