"""The FastAPI application: the upload page, the JSON API and the club's report pages.

Built by :func:`create_app` from :class:`~.settings.WebSettings`; ``skatlog serve`` runs it
with uvicorn. Routes only parse requests and call :mod:`.process`, :mod:`.backend` and
:mod:`.reports_site`; all data access is scoped to the club directory the token opens.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Query, Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.concurrency import run_in_threadpool

from skatlog.analytics.connect import AnalyticsError
from skatlog.ingest.archive import ArchiveError

from . import backend
from .auth import COOKIE, Identity, identify, require, target_club
from .clubs import ClubStore
from .errors import UploadRejected
from .process import process_upload
from .progress import ProgressBoard
from .receive import receive_upload
from .reports_site import ReportSite
from .settings import WebSettings

HERE = Path(__file__).resolve().parent
MAX_PAGE = 1000

# Our own pages run no inline script and load nothing from elsewhere.
PAGE_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            "connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'")


def create_app(settings: WebSettings) -> FastAPI:
    """The web app over ``settings.archive`` (clubs.json and ``clubs/<name>/`` archives)."""
    store = ClubStore(settings.archive)
    board = ProgressBoard()
    site = ReportSite(store, settings.archive / "reports")
    templates = Jinja2Templates(directory=str(HERE / "templates"))  # autoescape is on for .html
    app = FastAPI(title="skatlog club uploads", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.settings = settings
    app.state.store = store
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")

    @app.middleware("http")
    async def security_headers(request: Request, call_next: Any) -> Response:
        response: Response = await call_next(request)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault("Content-Security-Policy", PAGE_CSP)
        if not request.url.path.startswith("/static/"):
            response.headers.setdefault("Cache-Control", "no-store")
        return response

    @app.exception_handler(UploadRejected)
    async def rejected(_: Request, exc: UploadRejected) -> JSONResponse:
        return JSONResponse(exc.payload(), status_code=exc.status)

    @app.exception_handler(ArchiveError)
    @app.exception_handler(AnalyticsError)
    async def archive_trouble(_: Request, exc: Exception) -> JSONResponse:
        # A damaged or unreadable club archive: say so, without a traceback.
        return JSONResponse({"detail": f"the club archive cannot be used: {exc}",
                             "code": "archive_error"}, status_code=503)

    # -- pages -----------------------------------------------------------------------------
    def login_page(request: Request, error: str = "", status: int = 401) -> HTMLResponse:
        return templates.TemplateResponse(request, "login.html", {"error": error},
                                          status_code=status)

    @app.get("/", response_class=HTMLResponse)
    async def index(request: Request) -> Response:
        who = identify(request, store)
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
        form = await request.form(max_files=0, max_fields=2, max_part_size=1024)
        token = str(form.get("token", "")).strip()
        club = store.verify(token)
        if club is None:
            return login_page(request, "That token is not valid (or was revoked).")
        response = RedirectResponse("/", status_code=303)
        response.set_cookie(COOKIE, token, httponly=True, samesite="strict", path="/",
                            secure=request.url.scheme == "https")
        return response

    @app.post("/logout")
    async def logout() -> Response:
        response = RedirectResponse("/login", status_code=303)
        response.delete_cookie(COOKIE, path="/")
        return response

    @app.get("/reports/")
    async def reports_home(request: Request) -> Response:
        who = require(request, store)
        if who.admin:
            clubs = sorted(c.name for c in store.active() if not c.admin)
            return templates.TemplateResponse(request, "reports_admin.html",
                                              {"who": who, "clubs": clubs})
        return RedirectResponse(f"/reports/{who.name}/", status_code=303)

    @app.get("/reports/{club}/{path:path}")
    async def report_file(request: Request, club: str, path: str) -> Response:
        who = require(request, store)
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
        who = require(request, store)
        name = target_club(who, club, store)
        length = request.headers.get("content-length")
        expected = int(length) if length and length.isdigit() else None
        upload_id, progress = board.start(request.headers.get("x-upload-id"), who.name, expected)
        try:
            if expected is not None and expected > settings.max_upload_bytes:
                raise UploadRejected(413, "too_large",
                                     f"the upload is larger than the limit of "
                                     f"{settings.max_upload_bytes >> 20} MiB")
            fd, tmp = tempfile.mkstemp(prefix="skatlog-recv-")
            try:
                with os.fdopen(fd, "wb") as target:

                    def received(n: int) -> None:
                        progress.received_bytes = n

                    file = await receive_upload(
                        request.headers.get("content-type", ""), request.stream(), target,
                        max_bytes=settings.max_upload_bytes, on_progress=received)
                result = await run_in_threadpool(
                    process_upload, Path(tmp), file.filename, store.club_archive(name),
                    settings, progress)
            finally:
                os.unlink(tmp)
        except UploadRejected as exc:
            progress.phase, progress.message = "failed", exc.message
            raise
        except Exception:
            progress.phase, progress.message = "failed", "server error"
            raise
        return JSONResponse({**result, "club": name, "upload_id": upload_id})

    @app.get("/api/uploads/{upload_id}/progress")
    async def upload_progress(request: Request, upload_id: str) -> JSONResponse:
        who = require(request, store)
        progress = board.get(upload_id, who.name)
        if progress is None:
            raise HTTPException(404, "no upload with that id")
        return JSONResponse(progress.public())

    @app.get("/api/games")
    async def games(
        request: Request,
        limit: int = Query(100, ge=1, le=MAX_PAGE),
        offset: int = Query(0, ge=0),
        club: str | None = None,
    ) -> JSONResponse:
        who = require(request, store)
        names = _clubs_in_view(who, club, store)
        rows, total = await run_in_threadpool(
            backend.list_games, {n: store.club_archive(n) for n in names}, limit, offset)
        return JSONResponse({"games": rows, "total": total, "limit": limit, "offset": offset})

    @app.get("/api/stats/contracts")
    async def contract_stats(request: Request, club: str | None = None) -> JSONResponse:
        who = require(request, store)
        names = _clubs_in_view(who, club, store)
        stats = await run_in_threadpool(
            backend.contract_stats, {n: store.club_archive(n) for n in names})
        return JSONResponse({"clubs": names, "contracts": stats})

    @app.get("/api/clubs")
    async def clubs(request: Request) -> JSONResponse:
        who = require(request, store)
        if who.admin:
            listed = [c.public() for c in store.clubs().values()]
        else:
            listed = [who.club.public()]
        return JSONResponse({"me": who.club.public(), "clubs": listed})

    return app


def _clubs_in_view(who: Identity, club: str | None, store: ClubStore) -> list[str]:
    """The clubs a read covers: the club itself, or for the admin one club or all of them."""
    if who.admin and not club:
        return sorted(c.name for c in store.active() if not c.admin)
    return [target_club(who, club, store)]
