"""Simulated hands in logs: the tags that name them, and the check that re-simulates them.

A simulated hand is a pure function of (simulator, seed, bots, options, hand index), and the
archive gives it the id ``base + index`` (:func:`.sim_ids.run_ids`). Its log
text (``skatlog simulate --out``, ``skatlog export``) therefore carries what recomputes that
id: the tags ``seed``, ``bots`` (the bots by seat of this hand, as the ``bots`` column),
``hand`` (the index in the run) and ``sessions`` (``"1"`` when the run dealt 12-hand
sessions, which changes the ids), with the record id ``sim-<seed>-<hand>``.

On ingest a valid record carrying all of ``seed``, ``bots`` and ``hand`` *claims* to be that
hand. :func:`reproduce` re-simulates the claimed hands (one batch per stretch of a run) and
compares the deal, the full move list and everything else the record says (players,
session, record id, dealer, date, club, table, tags, recorded result). A record that matches
is stored as exactly the row ``skatlog simulate --archive`` stores (origin ``simulated``,
the simulator's id, seed and bots); any other is stored as a logged game under its content
id, with the warning :data:`NOT_REPRODUCED` (an edited record, or one from a skatlog whose
simulator plays differently).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import zip_longest
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from skatlog.engine.rules import ISKO, Rules
from skatlog.engine.session import HANDS_PER_SESSION

from .model import GameError, GameMeta, LogGame, RecordedResult
from .sim_ids import MAX_HANDS

#: The warning code of a record that claims to be a simulated hand but is not one.
NOT_REPRODUCED = "not_reproduced"
#: Tags that name a simulated hand; ``seed``, ``bots`` and ``hand`` together make a claim.
SIM_TAGS = ("seed", "bots", "hand", "sessions")
#: Hand indexes beyond this are not believed when recovering an index from an id (export):
#: an id of another generator's run lands below it with odds of 2**-24 per rotation.
MAX_INDEX = 1 << 40
#: A claimed hand index must be below this: a run has at most this many hands.
MAX_CLAIMED_INDEX = MAX_HANDS
#: Claimed hands of one run at most this far apart are re-simulated in one batch ...
MAX_GAP = 64
#: ... of at most this many hands.
MAX_SPAN = 50_000


class ClaimError(ValueError):
    """Tags that claim a simulated hand but cannot name one (a bad seed, bot or index)."""


@dataclass(frozen=True, slots=True)
class Claim:
    """The simulated hand a record claims to be: bots by table position (as a run's
    options give them), not by seat."""

    seed: int
    bots: tuple[str, str, str]
    index: int
    sessions: bool
    #: The rule set the run was played under (the record's own ``rules``): ``isko``, its
    #: house options, or ``foster``; it names the run's ids too (:func:`.sim_ids.run_base`).
    rules: Rules = ISKO


# ------------------------------------------------------------------ naming a hand
def position_bots(seat_bots: Sequence[str], index: int) -> tuple[str, str, str]:
    """The bots by table position of the run whose hand ``index`` has ``seat_bots`` by seat
    (Forehand, Middlehand, Rearhand): the dealer is position ``index % 3`` and sits
    Rearhand, so seat ``s`` is position ``(index + 1 + s) % 3`` (R1, R2)."""
    dealer = index % 3
    out = ["", "", ""]
    for seat, bot in enumerate(seat_bots):
        out[(dealer + 1 + seat) % 3] = bot
    return (out[0], out[1], out[2])


def seat_bots(bots: Sequence[str], index: int) -> tuple[str, str, str]:
    """The bots by seat in hand ``index`` of a run with ``bots`` by table position."""
    dealer = index % 3
    return (bots[(dealer + 1) % 3], bots[(dealer + 2) % 3], bots[dealer])


def simulated_tags(claim: Claim) -> dict[str, str]:
    """The tags a simulated hand is written with (``simulate --out``, ``export``)."""
    tags = {"seed": str(claim.seed), "bots": ",".join(seat_bots(claim.bots, claim.index)),
            "hand": str(claim.index)}
    if claim.sessions:
        tags["sessions"] = "1"
    return tags


def simulated_meta(claim: Claim) -> GameMeta:
    """The meta data the simulator gives the hand: players named by table position and
    bot, the dealer Rearhand, the session when the run has sessions."""
    names = [f"P{p + 1}:{bot}" for p, bot in enumerate(claim.bots)]
    dealer = claim.index % 3
    players = tuple(names[(dealer + 1 + s) % 3] for s in range(3))
    session_id, hand_no = "", None
    if claim.sessions:
        session_id = f"sim-{claim.seed}-{claim.index // HANDS_PER_SESSION}"
        hand_no = claim.index % HANDS_PER_SESSION + 1
    return GameMeta(players=players, session_id=session_id,  # type: ignore[arg-type]
                    hand_no=hand_no, dealer=2, record_id=f"sim-{claim.seed}-{claim.index}")


def _number(text: str, what: str, limit: int) -> int:
    """A canonical decimal in ``0 .. limit - 1`` (``"05"`` is not the tag a writer makes)."""
    if len(text) > len(str(limit)):  # before int(): Python refuses > 4,300 digits
        raise ClaimError(f"the tag {what} is {text[:24]!r}..., {len(text)} characters long")
    if not text.isascii() or not text.isdigit() or str(int(text)) != text:
        raise ClaimError(f"the tag {what} is {text!r}, not a whole number")
    value = int(text)
    if value >= limit:
        raise ClaimError(f"the tag {what} is {value}, beyond {limit - 1}")
    return value


def _tags(game: LogGame) -> Mapping[str, Any]:
    tags = game.extra.get("tags")
    return tags if isinstance(tags, dict) else {}


def claims_simulation(game: LogGame) -> bool:
    """Whether ``game`` carries the tags ``seed``, ``bots`` and ``hand`` (a
    :class:`MatchedGame` does: its text was the simulator's line)."""
    if isinstance(game, MatchedGame):
        return True
    tags = _tags(game)
    return all(key in tags for key in SIM_TAGS[:3])


def claim_of(game: LogGame) -> Claim:
    """The hand ``game``'s tags name; :class:`ClaimError` when they name none."""
    from skatlog.engine.batch.games import UnknownBot, bot_kind, compiled_bot

    tags = _tags(game)
    seed = _number(str(tags["seed"]), "seed", 1 << 63)
    index = _number(str(tags["hand"]), "hand", MAX_CLAIMED_INDEX)
    bots = str(tags["bots"]).split(",")
    try:
        if len(bots) != 3:
            raise UnknownBot("not three")
        for bot in bots:
            bot_kind(bot)  # random, rules, or a configured rules:SETTING+...
            if not compiled_bot(bot):  # pimc: re-simulating it would take seconds a hand
                raise UnknownBot(bot)
    except UnknownBot:
        raise ClaimError(f"the tag bots is {tags['bots']!r}, not three of random, rules "
                         "(or rules:SETTING+...): only the compiled bots' hands are "
                         "re-simulated") from None
    sessions = tags.get("sessions", "")
    if sessions not in ("", "1"):
        raise ClaimError(f"the tag sessions is {sessions!r}, not \"1\"")
    return Claim(seed, position_bots(bots, index), index, sessions == "1", _claimed_rules(game))


def _claimed_rules(game: LogGame) -> Rules:
    """The rule set a claimed hand was simulated under: the record's own, when the
    simulator plays it (``isko``, its house options, ``foster``); else ``isko``, which
    :func:`difference` then finds the record is not."""
    from skatlog.engine.batch.games import UnsupportedRules, check_simulated_rules

    if game.record is None:
        return ISKO
    try:
        check_simulated_rules(game.record.rules)
    except UnsupportedRules:
        return ISKO
    return game.record.rules


def _rules_key(rules: Rules | str | None) -> str:
    """The rule set as :func:`.sim_ids.run_base` names runs by it: "" for ``isko``."""
    text = "" if rules is None else str(rules)
    return "" if text in ("", str(ISKO)) else text


@lru_cache(maxsize=4096)
def _run_base(seed: int, bots: tuple[str, str, str], sessions: bool, rules: str = "") -> int:
    from .sim_ids import run_base

    return run_base(seed, bots, 1 if sessions else 0, _rules_key(rules))


def hand_index(game_id: int, seed: int, bots_by_seat: Sequence[str], sessions: bool,
               rules: str = "") -> int | None:
    """The index of the hand that has id ``game_id`` in the run (``seed``, the bots that
    sit ``bots_by_seat`` in that hand, ``sessions``, the rule set ``rules``), or ``None``
    when no index fits: the hand came from a simulator that plays differently (its ids have
    another base), or numba is missing (no simulator to fingerprint)."""
    for dealer in range(3):
        try:
            base = _run_base(seed, position_bots(bots_by_seat, dealer), sessions,
                             _rules_key(rules))
        except RuntimeError:  # the batch simulator needs numba
            return None
        index = (game_id - base) % (1 << 64)
        if index < MAX_INDEX and index % 3 == dealer:
            return index
    return None


def export_identity(row: Mapping[str, Any]) -> tuple[str, dict[str, str]] | None:
    """For a ``games`` row of origin ``simulated``: the record id and tags its log text
    carries (see the module doc), or ``None`` for another row. A hand whose index cannot
    be recovered (:func:`hand_index`) keeps ``seed`` and ``bots`` but gets no ``hand``:
    it makes no claim, and ingests as a logged game."""
    if row.get("origin") != "simulated" or row.get("seed") is None or not row.get("bots"):
        return None
    seed = int(row["seed"])
    bots = str(row["bots"]).split(",")
    sessions = bool(row.get("session_id"))
    rules = _rules_key(row.get("rules"))
    index = hand_index(int(row["game_id"]), seed, bots, sessions, rules)
    if index is None or len(bots) != 3:
        return "", {"seed": str(seed), "bots": str(row["bots"])}
    claim = Claim(seed, position_bots(bots, index), index, sessions,
                  Rules.parse(rules) if rules else ISKO)
    return f"sim-{seed}-{index}", simulated_tags(claim)


# ------------------------------------------------------------------ checking a claim
def _recorded_ok(game: LogGame) -> bool:
    """Whether the record's result is none or exactly the one the simulator's writers
    give (``result="computed"``): anything else would be lost in the simulator's row."""
    from .iss import recorded_from_result

    if game.recorded is None:
        return True
    assert game.record is not None
    computed: RecordedResult = recorded_from_result(game.record, with_raw=game.format == "iss")
    return game.recorded == computed


def _meta_difference(game: LogGame, claim: Claim) -> str:
    """What in the record's meta data the simulator's row would not keep ("" when none)."""
    want = simulated_meta(claim)
    meta = game.meta
    checks = (
        ("the players", meta.players == want.players),
        ("the record id", meta.record_id in ("", want.record_id)),
        ("the session", meta.session_id == want.session_id
         and meta.hand_no in (None, want.hand_no)),
        ("the dealer", meta.dealer in (None, 2)),
        ("the date", meta.played_at is None),
        ("the club or table", not meta.club and not meta.table),
        ("the tags", dict(game.extra) == {"tags": simulated_tags(claim)}),
        ("the recorded result", _recorded_ok(game)),
        ("the warnings", not game.warnings),
    )
    for what, same in checks:
        if not same:
            return f"{what} differ from what the simulator writes"
    return ""


def difference(game: LogGame, claim: Claim, batch: Any, row: int) -> str:
    """Why ``game`` is not row ``row`` of the re-simulated ``batch`` ("" when it is)."""
    from .moves_codec import encode_move

    record = game.record
    assert record is not None
    if record.rules != claim.rules:
        return f"it is replayed under {record.rules}, the simulator plays {claim.rules} (R9)"
    # the simulator stores a deal in card order (Deal.sorted); a file may list it otherwise
    if bytes(record.deal.sorted().cards) != batch.deal[row].astype(np.uint8).tobytes():
        return "the deal is not the simulator's"
    for number, (logged, played) in enumerate(zip_longest(record.moves, batch.moves(row)), 1):
        if logged != played:
            mine, theirs = ("nothing" if m is None else encode_move(m) for m in (logged, played))
            return f"move {number} is {mine}, the simulator's {theirs}"
    return _meta_difference(game, claim)


def _not_reproduced(game: LogGame, claim: Claim | None, why: str) -> LogGame:
    """``game`` with the :data:`NOT_REPRODUCED` warning saying why."""
    what = ("a simulated hand" if claim is None else
            f"hand {claim.index} of the simulation with seed {claim.seed}")
    warning = GameError(NOT_REPRODUCED, f"the record claims to be {what}, but {why}; it is"
                        " stored as a logged game", game.line)
    return replace(game, warnings=(*game.warnings, warning))


@dataclass(eq=False)
class SimulatedSpan:
    """Hands ``batch.start ..`` of one run, re-simulated for records that claim them
    (:mod:`.sim_claims`), with the archive tables of the batch once asked for."""

    batch: Any
    sessions: bool
    _tables: dict[str | None, dict[str, pa.Table]] = field(default_factory=dict)

    def tables(self, ingest_id: str | None) -> dict[str, pa.Table]:
        """The batch's ``games``, ``tricks`` and ``auction`` tables, as ``simulate
        --archive`` stores them (made once per ingest id)."""
        from .sim_tables import batch_tables

        if ingest_id not in self._tables:
            base = _run_base(self.batch.seed, self.batch.bots, self.sessions,
                             _rules_key(self.batch.rules))
            self._tables[ingest_id] = batch_tables(self.batch, base, self.sessions, ingest_id)
        return self._tables[ingest_id]


@dataclass(frozen=True, slots=True)
class MatchedGame(LogGame):
    """A record whose text is, byte for byte, the line the simulator's writers give hand
    ``row`` of ``span`` (:mod:`.sim_claims`): valid, a claim, and a match, with no parsing
    needed. :func:`reproduce` stores it as that hand's row."""

    span: SimulatedSpan | None = None
    row: int = 0

    @property
    def ok(self) -> bool:
        return True


@dataclass
class Reproduced:
    """The outcome of :func:`reproduce`: the simulator's rows (``games`` with their
    ``tricks`` and ``auction``, one ``games`` row per matching record, repeats included)
    and the records that did not match, with their warning."""

    tables: dict[str, pa.Table] | None = None
    logged: list[LogGame] = field(default_factory=list)
    matched: int = 0


def _spans(indexes: list[int]) -> list[tuple[int, int]]:
    """Sorted distinct ``indexes`` cut into ``[begin, end)`` stretches to simulate."""
    spans: list[tuple[int, int]] = []
    for index in indexes:
        if spans and index - spans[-1][1] < MAX_GAP and index + 1 - spans[-1][0] <= MAX_SPAN:
            spans[-1] = (spans[-1][0], index + 1)
        else:
            spans.append((index, index + 1))
    return spans


def reproduce(games: Sequence[LogGame], ingest_id: str | None = None) -> Reproduced:
    """Check valid records that claim to be simulated hands (:func:`claims_simulation`) by
    re-simulating them, batched per stretch of each run; see the module doc."""
    out = Reproduced()
    runs: dict[tuple[int, tuple[str, str, str], bool, Rules], list[tuple[Claim, LogGame]]] = \
        defaultdict(list)
    parts: list[dict[str, pa.Table]] = []
    spans: dict[int, tuple[SimulatedSpan, list[int]]] = {}
    for game in games:
        if isinstance(game, MatchedGame):  # matched by its text already: no replay
            assert game.span is not None
            spans.setdefault(id(game.span), (game.span, []))[1].append(game.row)
            continue
        try:
            claim = claim_of(game)
        except ClaimError as err:
            out.logged.append(_not_reproduced(game, None, str(err)))
            continue
        runs[claim.seed, claim.bots, claim.sessions, claim.rules].append((claim, game))
    for span, rows in spans.values():
        out.matched += len(rows)
        parts.append(_rows_of(span.tables(ingest_id), rows))
    for (seed, bots, sessions, rules), items in runs.items():
        try:
            parts += _reproduce_run(seed, bots, sessions, rules, items, ingest_id, out)
        except (RuntimeError, ValueError) as err:  # no numba; options the simulator refuses
            out.logged += [_not_reproduced(game, claim, f"it cannot be re-simulated ({err})")
                           for claim, game in items]
    if parts:
        out.tables = {name: pa.concat_tables([p[name] for p in parts]) for name in parts[0]}
    return out


def _reproduce_run(seed: int, bots: tuple[str, str, str], sessions: bool, rules: Rules,
                   items: list[tuple[Claim, LogGame]], ingest_id: str | None,
                   out: Reproduced) -> list[dict[str, pa.Table]]:
    """The simulator's tables for the claims of one run that match; the others go to
    ``out.logged``."""
    from skatlog.engine.batch import simulate_batch

    from .sim_tables import batch_tables

    spans = _spans(sorted({claim.index for claim, _ in items}))
    base = _run_base(seed, bots, sessions, _rules_key(rules))
    by_span: dict[int, list[tuple[Claim, LogGame]]] = defaultdict(list)
    starts = [begin for begin, _ in spans]
    for item in items:
        by_span[int(np.searchsorted(starts, item[0].index, side="right")) - 1].append(item)
    parts = []
    for k, (begin, end) in enumerate(spans):
        batch = simulate_batch(seed, begin, end - begin, bots, rules=rules)
        rows = []
        for claim, game in by_span[k]:
            why = difference(game, claim, batch, claim.index - begin)
            if why:
                out.logged.append(_not_reproduced(game, claim, why))
            else:
                rows.append(claim.index - begin)
        if rows:
            out.matched += len(rows)
            parts.append(_rows_of(batch_tables(batch, base, sessions, ingest_id), rows))
    return parts


def _rows_of(tables: Mapping[str, pa.Table], rows: list[int]) -> dict[str, pa.Table]:
    """The ``games`` rows at ``rows`` (repeats kept: the writer counts them as duplicates)
    with the ``tricks`` and ``auction`` rows of those games."""
    if len(rows) == tables["games"].num_rows and rows == list(range(len(rows))):
        return dict(tables)  # every hand of the batch, in order (a whole simulated run)
    games = tables["games"].take(pa.array(rows, pa.int64()))
    ids = pc.unique(games.column("game_id"))
    out = {"games": games}
    for child in ("tricks", "auction"):
        data = tables[child]
        out[child] = data.filter(pc.is_in(data.column("game_id"), value_set=ids))
    return out
