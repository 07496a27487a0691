"""Who is asking: a club (or the admin) identified by its token, from a header or the cookie.

Scripts send ``Authorization: Bearer TOKEN``; the page logs in once and the browser then sends
the token in an HttpOnly, SameSite=Strict cookie. Without a valid token every data route
answers 401; a club's token only ever opens that club's archive, the admin token any club's.

A token the server has verified before is recognised by its SHA-256 on the event loop; any
other is hashed (one scrypt, see :mod:`.clubs`) on a small thread pool of its own, after the
client address passed the failed-check limit of :mod:`.ratelimit`. So neither guessed tokens
nor a busy upload pool can hold up the other requests.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from urllib.parse import urlsplit

from fastapi import HTTPException, Request

from .clubs import Club, ClubStore
from .errors import UploadRejected
from .ratelimit import FailureLimiter

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


def cross_site(request: Request) -> bool:
    """Whether a browser sent this request from another site.

    Fetch metadata (``Sec-Fetch-Site``) decides when the browser sends it; else ``Origin``
    (``null``, from a sandboxed frame or a page that hides its origin, counts as another
    site); else ``Referer``. A request with none of them is no browser's cross-site form
    and passes (scripts, curl).
    """
    site = request.headers.get("sec-fetch-site")
    if site is not None:
        return site not in ("same-origin", "none")
    host = request.headers.get("host", "")
    origin = request.headers.get("origin")
    if origin is not None:
        return origin == "null" or urlsplit(origin).netloc != host
    referer = request.headers.get("referer")
    return bool(referer) and urlsplit(referer).netloc != host


def client_address(request: Request) -> str:
    """The address failed checks are counted by (the proxy's, unless uvicorn trusts it)."""
    return request.client.host if request.client else "unknown"


class Gate:
    """Token checks for the routes: cached tokens at once, others hashed off the event loop
    under the failed-check limit (:class:`~.ratelimit.TooManyFailures` when it is reached)."""

    def __init__(self, store: ClubStore, limiter: FailureLimiter | None = None,
                 threads: int = 2) -> None:
        self.store = store
        self.limiter = limiter or FailureLimiter()
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="skatlog-auth")

    async def club_of(self, token: str | None, address: str) -> Club | None:
        """The active club of ``token`` or None; a wrong token counts against ``address``."""
        if not token:
            return None
        club = self.store.cached(token)
        if club is not None:
            return club
        self.limiter.check(address)
        club = await asyncio.wrap_future(self._pool.submit(self.store.verify, token))
        if club is None:
            self.limiter.failed(address)
        return club

    async def identify(self, request: Request) -> Identity | None:
        token, via_cookie = token_of(request)
        club = await self.club_of(token, client_address(request))
        return Identity(club, via_cookie) if club is not None else None

    async def require(self, request: Request) -> Identity:
        """The identity of the request, or 401. A cookie-authenticated write from another
        site is refused (403) on top of SameSite, so no other site can act in a club's
        name."""
        who = await self.identify(request)
        if who is None:
            raise HTTPException(401, "a valid club token is required",
                                headers={"WWW-Authenticate": "Bearer"})
        if who.via_cookie and request.method not in ("GET", "HEAD") and cross_site(request):
            raise HTTPException(403, "cross-site request refused")
        return who

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


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
