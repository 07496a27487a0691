"""``skatlog serve`` (the club upload web app) and ``skatlog club add|list|revoke`` (its tokens)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table

if TYPE_CHECKING:
    from skatlog.web.clubs import ClubStore

T = TypeVar("T")

# The server keeps a root of its own, beside the data archive (data/archive, which
# SKATLOG_ARCHIVE names for the other commands): a data archive is refused as a server root,
# so sharing the default or the variable would make serve fail after a plain ingest.
DEFAULT_ARCHIVE = Path("data/web")

ArchiveOption = typer.Option(
    DEFAULT_ARCHIVE, "--archive", envvar="SKATLOG_WEB_ROOT",
    help="Server root: clubs.json and one archive per club under clubs/<name>/ "
    "(not a data archive).",
)

club_app = typer.Typer(help="Manage the clubs (and their upload tokens) of a web server archive.",
                       no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
    app.add_typer(club_app, name="club")


def serve(
    archive: Path = ArchiveOption,
    host: str = typer.Option("127.0.0.1", help="Interface to listen on."),
    port: int = typer.Option(8000, min=0, max=65535, help="TCP port (0: any free one)."),
    max_upload_mb: float = typer.Option(
        64, min=0.001, help="Largest upload accepted (MiB, 413 beyond)."),
    max_unpacked_mb: float = typer.Option(
        512, min=0.001, help="Largest log after decompression (MiB): the compression-bomb "
        "guard."),
    max_line_kb: int = typer.Option(1024, min=1, help="Longest line accepted (KiB)."),
    scoring: str = typer.Option("list", "--scoring", help="How the club report pages total "
                                "players and sessions: list (default) or seeger-fabian."),
) -> None:
    """Run the club upload web app (token login, upload, results, the club's reports).

    When the archive has no admin yet, an admin club named 'admin' is created and its token
    printed once on stderr.
    """
    try:
        import uvicorn

        from skatlog.web.app import create_app
        from skatlog.web.settings import MIB, WebSettings
    except ImportError as exc:  # the optional extra is missing
        raise typer.BadParameter(
            f"the web app needs the 'web' extra (pip install 'skatlog[web]'): {exc}") from None
    from skatlog.commands._scoring_option import parse_scoring_option

    chosen = parse_scoring_option(scoring)
    store = _store(archive)
    if not _checked(store.has_admin):
        token = _checked(store.add, _free_admin_name(store), admin=True)
        sys.stderr.write("No admin token existed; created one (shown only now, store it safely):\n"
                         f"{token}\n")
        sys.stderr.flush()
    settings = WebSettings(
        archive=archive, max_upload_bytes=int(max_upload_mb * MIB),
        max_unpacked_bytes=int(max_unpacked_mb * MIB), max_line_bytes=max_line_kb * 1024,
        scoring=chosen)
    uvicorn.run(create_app(settings), host=host, port=port, log_level="info")


def _store(archive: Path) -> ClubStore:
    """The club store of a server archive; a data archive (``skatlog ingest``'s, with a
    manifest.json) is refused: the server keeps clubs.json and one archive per club in a
    root of its own, and mixing the two would hide the data archive's games from the
    server and put tokens into the data archive."""
    from skatlog.ingest.archive import MANIFEST
    from skatlog.web.clubs import ClubStore

    if (archive / MANIFEST).is_file():
        raise typer.BadParameter(
            f"{archive} is a skatlog data archive (it has {MANIFEST}); give the web server a "
            "root of its own, e.g. --archive data/web", param_hint="--archive")
    return ClubStore(archive)


def _checked(call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``call(...)``, with a :class:`~skatlog.web.clubs.ClubError` (an unusable path, a
    damaged clubs.json, a bad name) as a usage error (exit 2) instead of a traceback."""
    from skatlog.web.clubs import ClubError

    try:
        return call(*args, **kwargs)
    except ClubError as exc:
        raise typer.BadParameter(str(exc)) from None


def _free_admin_name(store: ClubStore) -> str:
    names = _checked(store.clubs)
    name, n = "admin", 1
    while name in names:
        n += 1
        name = f"admin{n}"
    return name


@club_app.command("add")
def club_add(
    name: str = typer.Argument(..., help="Club name (lower-case letters, digits, - and _)."),
    archive: Path = ArchiveOption,
    admin: bool = typer.Option(False, "--admin", help="An admin token: sees every club."),
) -> None:
    """Add a club and print its new token alone on stdout (it is stored only hashed)."""
    token = _checked(_store(archive).add, name, admin=admin)
    sys.stdout.write(token + "\n")


@club_app.command("list")
def club_list(archive: Path = ArchiveOption) -> None:
    """List the clubs: name, admin or not, created, revoked (and tokens in the old form)."""
    clubs = _checked(_store(archive).clubs)
    table = Table(title=f"Clubs in {archive}")
    for column in ("name", "role", "created", "status"):
        table.add_column(column)
    for club in sorted(clubs.values(), key=lambda c: c.name):
        status = ("revoked" if club.revoked else
                  "active (old token form: revoke and add to reissue)" if club.legacy else "active")
        table.add_row(club.name, "admin" if club.admin else "club", club.created, status)
    Console().print(table)


@club_app.command("revoke")
def club_revoke(
    name: str = typer.Argument(..., help="The club whose token stops working now."),
    archive: Path = ArchiveOption,
) -> None:
    """Revoke a club's token (its archive stays); `club add NAME` then issues a new one."""
    _checked(_store(archive).revoke, name)
    Console(stderr=True).print(f"revoked the token of {name}")
