"""Clubs and their upload tokens, stored hashed in ``<archive>/clubs.json``.

A token is ``skc_<key id>.<secret>``: a random key id that names the club's entry (so a
token is checked against one club, not all of them) and 32 random bytes
(``secrets.token_urlsafe``), shown once, when the club is added. The store keeps the key id,
a per-token salt and ``scrypt(token, salt)``, so a leaked store file reveals no token; a check
costs at most one scrypt, compared with :func:`hmac.compare_digest`. Tokens issued before key
ids existed (``skc_<secret>``, entries without ``key_id``) still work: such a token is tried
against the entries without a key id only, one scrypt each; ``club revoke`` and ``club add``
reissue it in the new form. Each club's data lives in its own archive directory
``<archive>/clubs/<name>/`` (see :meth:`ClubStore.club_archive`), which is what keeps clubs
apart: the web app only ever opens the directory of the club the token belongs to.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import tempfile
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeGuard

from filelock import FileLock

#: Club names become directory names, so they are restricted to a safe alphabet.
CLUB_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")

# scrypt cost: ~15 ms per check on a laptop, ample for 256-bit random tokens (the salt and
# the memory-hard hash only matter if someone ever stores a weaker token).
_SCRYPT = {"n": 2**12, "r": 8, "p": 1, "dklen": 32}
_TOKEN_PREFIX = "skc_"
_KEY_SEP = "."  # neither in token_urlsafe's alphabet nor in a key id


class ClubError(ValueError):
    """A club command that cannot be carried out (bad name, duplicate, unknown club)."""


@dataclass(frozen=True, slots=True)
class Club:
    """One club as the store knows it (never the token itself)."""

    name: str
    admin: bool
    created: str
    salt: str
    token_hash: str
    revoked: bool = False
    #: names the entry inside the token; "" for a token issued before key ids existed
    key_id: str = ""

    def public(self) -> dict[str, object]:
        """What ``club list`` and the admin API show: no salt, no hash."""
        return {"name": self.name, "admin": self.admin, "created": self.created,
                "revoked": self.revoked}

    @property
    def legacy(self) -> bool:
        """Whether the token predates key ids (checking one costs a scrypt per such club)."""
        return not self.key_id


def hash_token(token: str, salt: bytes) -> str:
    """The stored form of a token: scrypt with the token's own salt, hex encoded."""
    return hashlib.scrypt(token.encode("utf-8"), salt=salt, **_SCRYPT).hex()


def key_id_of(token: str) -> str | None:
    """The key id a token names, or None for a token in the form before key ids."""
    head, sep, _ = token[len(_TOKEN_PREFIX):].partition(_KEY_SEP)
    return head if sep else None


def check_club_name(name: str) -> str:
    """``name`` if it is a usable club name, else :class:`ClubError`."""
    if not CLUB_NAME.fullmatch(name):
        raise ClubError(
            f"invalid club name {name!r}: use 1-40 lower-case letters, digits, '-' or '_', "
            "starting with a letter or digit"
        )
    return name


class ClubStore:
    """The clubs of one server archive; every change is written atomically under a lock."""

    def __init__(self, archive: Path) -> None:
        self.archive = Path(archive)
        self.path = self.archive / "clubs.json"
        self._lock = FileLock(str(self.archive / ".clubs.json.lock"))
        self._cache: tuple[int, int, dict[str, Club]] | None = None
        # sha256(token) -> club name of tokens already verified against the current file,
        # so a request costs one scrypt per token and file version, not one per club.
        self._verified: dict[bytes, str] = {}

    # -- reading ---------------------------------------------------------------------------
    def clubs(self) -> dict[str, Club]:
        """All clubs by name, re-read when the file changed (cheap on every request)."""
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            return {}
        except OSError as err:  # e.g. the archive path runs through a regular file
            raise ClubError(f"{self.path}: cannot read: {err.strerror or err}") from None
        if self._cache and self._cache[:2] == (stat.st_mtime_ns, stat.st_size):
            return self._cache[2]
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            clubs = {c["name"]: Club(**c) for c in data["clubs"]}
        except OSError as err:
            raise ClubError(f"{self.path}: cannot read: {err.strerror or err}") from None
        except (ValueError, TypeError, KeyError) as err:  # JSON, shape, fields
            raise ClubError(f"{self.path}: not a clubs file of skatlog ({type(err).__name__}: "
                            f"{err}); restore it from a backup or move it away") from None
        self._cache = (stat.st_mtime_ns, stat.st_size, clubs)
        self._verified = {}
        return clubs

    def active(self) -> list[Club]:
        return [c for c in self.clubs().values() if not c.revoked]

    def get(self, name: str) -> Club:
        club = self.clubs().get(name)
        if club is None:
            raise ClubError(f"no club named {name!r}")
        return club

    def has_admin(self) -> bool:
        return any(c.admin for c in self.active())

    def cached(self, token: str | None) -> Club | None:
        """The active club of a token already verified against the current file, else None.
        No scrypt: cheap enough for the event loop."""
        if not _well_formed(token):
            return None
        clubs = self.clubs()
        name = self._verified.get(_digest(token))
        club = clubs.get(name) if name is not None else None
        return club if club is not None and not club.revoked else None

    def verify(self, token: str | None) -> Club | None:
        """The active club whose token this is, or None.

        A token with a key id is hashed against that one entry (one scrypt, none for an
        unknown key id); a token in the old form against each old-form entry. A token once
        verified is remembered (by its SHA-256) until clubs.json changes.
        """
        known = self.cached(token)
        if known is not None or not _well_formed(token):
            return known
        clubs = self.clubs()
        key = key_id_of(token)
        if key is not None:
            candidates = [c for c in clubs.values() if c.key_id == key and not c.revoked]
        else:
            candidates = [c for c in clubs.values() if c.legacy and not c.revoked]
        found = None
        for club in candidates:
            candidate = hash_token(token, bytes.fromhex(club.salt))
            if hmac.compare_digest(candidate, club.token_hash):
                found = club
        if found is not None:
            self._verified[_digest(token)] = found.name
        return found

    def club_archive(self, name: str) -> Path:
        """The archive directory of one club: ``<archive>/clubs/<name>/``."""
        return self.archive / "clubs" / check_club_name(name)

    # -- changing --------------------------------------------------------------------------
    def add(self, name: str, *, admin: bool = False) -> str:
        """Create a club and return its new token (the only time the token exists in clear)."""
        check_club_name(name)
        salt = secrets.token_bytes(16)
        with self._locked() as clubs:
            if name in clubs and not clubs[name].revoked:
                raise ClubError(f"club {name!r} already exists (revoke it first for a new token)")
            taken = {c.key_id for c in clubs.values()}
            key = secrets.token_hex(6)
            while key in taken:
                key = secrets.token_hex(6)
            token = f"{_TOKEN_PREFIX}{key}{_KEY_SEP}{secrets.token_urlsafe(32)}"
            clubs[name] = Club(
                name=name, admin=admin, created=datetime.now(UTC).isoformat(timespec="seconds"),
                salt=salt.hex(), token_hash=hash_token(token, salt), key_id=key,
            )
        if not admin:
            self.club_archive(name).mkdir(parents=True, exist_ok=True)
        return token

    def revoke(self, name: str) -> Club:
        """Invalidate a club's token at once; its archive stays on disk."""
        with self._locked() as clubs:
            club = clubs.get(name)
            if club is None or club.revoked:
                raise ClubError(f"no active club named {name!r}")
            clubs[name] = Club(**{**asdict(club), "revoked": True})
            return clubs[name]

    def _locked(self) -> _Transaction:
        return _Transaction(self)


def _well_formed(token: str | None) -> TypeGuard[str]:
    return token is not None and token.startswith(_TOKEN_PREFIX) and len(token) <= 200


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


class _Transaction:
    """Read-modify-write of clubs.json under the file lock, committed by atomic rename."""

    def _write(self) -> None:
        """Write the clubs to a temporary file and rename it over clubs.json; a failure
        (disk full, ...) leaves clubs.json as it was and no temporary file behind."""
        payload = {"clubs": [asdict(c) for c in self.clubs.values()]}
        fd, tmp = tempfile.mkstemp(dir=self.store.archive, prefix=".clubs.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(payload, out, indent=1)
                out.flush()
                os.fsync(out.fileno())
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.store.path)
        except OSError as err:
            Path(tmp).unlink(missing_ok=True)
            raise ClubError(f"{self.store.path}: cannot write: {err.strerror or err}") from None
        self.store._cache = None
        self.store._verified = {}

    def __init__(self, store: ClubStore) -> None:
        self.store = store
        self.clubs: dict[str, Club] = {}

    def __enter__(self) -> dict[str, Club]:
        try:
            self.store.archive.mkdir(parents=True, exist_ok=True)
            if not self.store.archive.is_dir():
                raise NotADirectoryError(20, "not a directory")
            self.store._lock.acquire()
        except OSError as err:
            raise ClubError(f"{self.store.archive}: cannot use it as the server archive: "
                            f"{err.strerror or err}") from None
        self.store._cache = None
        try:
            self.clubs = dict(self.store.clubs())
        except BaseException:  # __exit__ does not run when __enter__ fails
            self.store._lock.release()
            raise
        return self.clubs

    def __exit__(self, exc_type: object, *_: object) -> None:
        try:
            if exc_type is None:
                self._write()
        finally:
            self.store._lock.release()
