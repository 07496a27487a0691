"""Who is asking: a club (or the admin) identified by its token, from a header or the cookie.

Scripts send ``Authorization: Bearer TOKEN``; the page logs in once and the browser then sends
the token in an HttpOnly, SameSite=Strict cookie. Without a valid token every data route
answers 401; a club's token only ever opens that club's archive, the admin token any club's.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from fastapi import HTTPException, Request

from .clubs import Club, ClubStore
from .errors import UploadRejected

COOKIE = "skatlog_token"


@dataclass(frozen=True)
class Identity:
    """The token holder of a request."""

    club: Club
    via_cookie: bool

    @property
    def name(self) -> str:
        return self.club.name

    @property
    def admin(self) -> bool:
        return self.club.admin


def token_of(request: Request) -> tuple[str | None, bool]:
    """The token the request carries and whether it came from the cookie."""
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip(), False
    cookie = request.cookies.get(COOKIE)
    return (cookie, True) if cookie else (None, False)


def identify(request: Request, store: ClubStore) -> Identity | None:
    token, via_cookie = token_of(request)
    club = store.verify(token)
    return Identity(club, via_cookie) if club is not None else None


def require(request: Request, store: ClubStore) -> Identity:
    """The identity of the request, or 401. A cookie-authenticated write from another origin
    is refused (403) on top of SameSite, so no other site can upload in a club's name."""
    who = identify(request, store)
    if who is None:
        raise HTTPException(401, "a valid club token is required",
                            headers={"WWW-Authenticate": "Bearer"})
    if who.via_cookie and request.method not in ("GET", "HEAD"):
        origin = request.headers.get("origin")
        if origin and urlsplit(origin).netloc != request.headers.get("host", ""):
            raise HTTPException(403, "cross-site request refused")
    return who


def target_club(who: Identity, club: str | None, store: ClubStore) -> str:
    """The club a request acts on: a club token acts on its own club (asking for another one
    is 403); the admin names one with ``?club=``."""
    if not who.admin:
        if club not in (None, "", who.name):
            raise HTTPException(403, "a club token can only reach its own club")
        return who.name
    if not club:
        raise UploadRejected(400, "bad_club", "the admin token must name a club (?club=NAME)")
    known = store.clubs().get(club)
    if known is None or known.admin or known.revoked:
        raise UploadRejected(404, "bad_club", f"no active club named {club!r}")
    return club
