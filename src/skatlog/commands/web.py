"""``skatlog serve`` (the club upload web app) and ``skatlog club add|list|revoke`` (its tokens)."""

from __future__ import annotations

import sys
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

DEFAULT_ARCHIVE = Path("data/archive")

ArchiveOption = typer.Option(
    DEFAULT_ARCHIVE, "--archive", envvar="SKATLOG_ARCHIVE",
    help="Server archive root: clubs.json and one archive per club under clubs/<name>/.",
)

club_app = typer.Typer(help="Manage the clubs (and their upload tokens) of a web server archive.",
                       no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
    app.add_typer(club_app, name="club")


def serve(
    archive: Path = ArchiveOption,
    host: str = typer.Option("127.0.0.1", help="Interface to listen on."),
    port: int = typer.Option(8000, help="TCP port."),
    max_upload_mb: float = typer.Option(64, help="Largest upload accepted (MiB, 413 beyond)."),
    max_unpacked_mb: float = typer.Option(
        512, help="Largest log after decompression (MiB): the compression-bomb guard."),
    max_line_kb: int = typer.Option(1024, help="Longest line accepted (KiB)."),
) -> None:
    """Run the club upload web app (token login, upload, results, the club's reports).

    When the archive has no admin yet, an admin club named 'admin' is created and its token
    printed once on stderr.
    """
    try:
        import uvicorn

        from skatlog.web.app import create_app
        from skatlog.web.clubs import ClubStore
        from skatlog.web.settings import MIB, WebSettings
    except ImportError as exc:  # the optional extra is missing
        raise typer.BadParameter(
            f"the web app needs the 'web' extra (pip install 'skatlog[web]'): {exc}") from None
    store = ClubStore(archive)
    if not store.has_admin():
        token = store.add(_free_admin_name(store), admin=True)
        sys.stderr.write("No admin token existed; created one (shown only now, store it safely):\n"
                         f"{token}\n")
        sys.stderr.flush()
    settings = WebSettings(
        archive=archive, max_upload_bytes=int(max_upload_mb * MIB),
        max_unpacked_bytes=int(max_unpacked_mb * MIB), max_line_bytes=max_line_kb * 1024)
    uvicorn.run(create_app(settings), host=host, port=port, log_level="info")


def _free_admin_name(store: object) -> str:
    from skatlog.web.clubs import ClubStore

    assert isinstance(store, ClubStore)
    names = store.clubs()
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
    from skatlog.web.clubs import ClubError, ClubStore

    try:
        token = ClubStore(archive).add(name, admin=admin)
    except ClubError as exc:
        raise typer.BadParameter(str(exc), param_hint="NAME") from None
    sys.stdout.write(token + "\n")


@club_app.command("list")
def club_list(archive: Path = ArchiveOption) -> None:
    """List the clubs: name, admin or not, created, revoked."""
    from skatlog.web.clubs import ClubStore

    clubs = ClubStore(archive).clubs()
    table = Table(title=f"Clubs in {archive}")
    for column in ("name", "role", "created", "status"):
        table.add_column(column)
    for club in sorted(clubs.values(), key=lambda c: c.name):
        table.add_row(club.name, "admin" if club.admin else "club", club.created,
                      "revoked" if club.revoked else "active")
    Console().print(table)


@club_app.command("revoke")
def club_revoke(
    name: str = typer.Argument(..., help="The club whose token stops working now."),
    archive: Path = ArchiveOption,
) -> None:
    """Revoke a club's token (its archive stays); `club add NAME` then issues a new one."""
    from skatlog.web.clubs import ClubError, ClubStore

    try:
        ClubStore(archive).revoke(name)
    except ClubError as exc:
        raise typer.BadParameter(str(exc), param_hint="NAME") from None
    Console(stderr=True).print(f"revoked the token of {name}")
