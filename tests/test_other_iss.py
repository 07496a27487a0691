"""Records skatlog did not write (bench/other_iss.py): the fast and reference paths agree.

The independent generator writes ISS records in the style of other programs (other tag
orders, spacing, names, ``MV`` variants, games played on after R17's decisive trick) with a
share of them damaged. Every undamaged record must validate, every damaged one must be
rejected with a ``file:line`` diagnostic, and the compiled path must give the reference
path's verdict, value and error code record by record.
"""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

from skatlog.ingest.fast import STATUS_NAMES, fast_validate_iss
from skatlog.ingest.fast import iss_kernel as K
from skatlog.ingest.model import LogGame
from skatlog.ingest.validate import validate_text

BENCH = Path(__file__).resolve().parent.parent / "bench" / "other_iss.py"
GAMES = 300
SEED = 7
DAMAGED = 0.15  # enough damaged records that every kind of damage occurs
#: Kernel statuses that name a rule the record breaks: the reference must name the same.
RULE_STATUSES = {"illegal_bid", "wrong_player", "wrong_phase", "illegal_declaration",
                 "card_not_in_hand", "revoke", "play_after_end", "corrupt_card"}
#: The error codes each kind of damage must give (a cut may fall inside a tag name: syntax).
DAMAGE_CODES = {"card_not_held": {"card_not_in_hand"}, "revoke": {"revoke"},
                "cut_off": {"truncated", "syntax"}, "wrong_value": {"score_mismatch"},
                "bad_bid": {"illegal_bid"}, "junk": {"syntax"}, "missing_mv": {"syntax"},
                "unknown_card": {"corrupt_card"}}


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("other_iss", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["other_iss"] = module  # worker processes find its functions by name
    spec.loader.exec_module(module)
    return module


other_iss = _load()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[list, Path, list[LogGame]]:
    records = list(other_iss.iter_records(SEED, 0, GAMES, DAMAGED))
    path = tmp_path_factory.mktemp("other") / "other.sgf"
    path.write_bytes("".join(r.text + r.newline for r in records).encode("utf-8"))
    games = validate_text(path.read_bytes().decode("utf-8"), str(path), "iss")
    return records, path, games


def _fast(path: Path) -> dict[int, dict]:
    """Per line: the kernel's status, and the fast path's verdict, value and error code."""
    out: dict[int, dict] = {}
    for batch in fast_validate_iss(path, workers=1, tables=True, source=str(path)):
        for line, status in zip(batch.lines, batch.rows[:, K.F_STATUS], strict=True):
            out[int(line)] = {"status": STATUS_NAMES[int(status)]}
        for obj in batch.json_objects():
            out[obj["line"]].update(ok=True, value=obj["value"], code=None)
        for game in batch.slow_games():
            out[game.line].update(ok=game.ok, value=_value(game),
                                  code=game.errors[0].code if game.errors else None)
    return out


def _value(game: LogGame) -> int | None:
    return game.record.result.value if game.record is not None else None


def test_the_generator_covers_every_contract_and_damage(corpus) -> None:
    records, _, _ = corpus
    kinds = Counter(r.kind for r in records)
    flags = Counter(flag for r in records for flag in r.kind.split("+")[1:])
    bases = Counter(r.kind.split("+")[0] for r in records)
    for base in ("passed", "grand", "null", "clubs", "spades", "hearts", "diamonds"):
        assert bases[base], f"no {base} game in {kinds}"
    for flag in ("hand", "schneider", "schwarz", "ouvert"):
        assert flags[flag], f"no game with {flag} in {kinds}"
    assert kinds["null+ouvert"] and kinds["null+hand+ouvert"], kinds  # with and without skat
    assert any(k.startswith(("grand+hand+schneider+schwarz+ouvert", "clubs+hand+schneider+"
                             "schwarz+ouvert", "spades+hand+schneider+schwarz+ouvert",
                             "hearts+hand+schneider+schwarz+ouvert",
                             "diamonds+hand+schneider+schwarz+ouvert")) for k in kinds), kinds
    damages = Counter(r.damage for r in records if r.damage)
    assert set(damages) == set(other_iss.DAMAGES), damages
    assert {r.program for r in records} == {p.name for p in other_iss.PROGRAMS}
    assert any(r.plays_on for r in records) and any(r.stops_early for r in records)
    again = other_iss.make_record(SEED, 123, DAMAGED)
    assert again.text == records[123].text  # reproducible record by record


def test_undamaged_records_validate_and_damaged_ones_are_rejected(corpus) -> None:
    records, path, games = corpus
    assert [g.line for g in games] == list(range(1, GAMES + 1))  # one record a line
    for line, (record, game) in enumerate(zip(records, games, strict=True), 1):
        if record.damage is None:
            assert game.ok, (line, game.errors, record.text)
            assert game.value_check == "ok", (line, game.value_check, record.text)
        else:
            assert not game.ok, (line, record.damage, record.text)
            assert game.errors[0].code in DAMAGE_CODES[record.damage], \
                (line, record.damage, game.errors[0], record.text)
            where = game.errors[0].format(str(path))
            assert where.startswith(f"{path}:{line}:"), where


def test_play_on_games_are_accepted_by_both_paths(corpus) -> None:
    records, path, games = corpus
    fast = _fast(path)
    play_on = [line for line, r in enumerate(records, 1) if r.plays_on]
    assert play_on
    for line in play_on:
        assert games[line - 1].ok and fast[line]["ok"], (line, records[line - 1].text)
        assert fast[line]["value"] == _value(games[line - 1]) < 0  # R17: lost, played on


def test_fast_and_reference_paths_agree_record_by_record(corpus) -> None:
    records, path, games = corpus
    fast = _fast(path)
    assert sorted(fast) == list(range(1, GAMES + 1))
    for line, game in enumerate(games, 1):
        got = fast[line]
        code = game.errors[0].code if game.errors else None
        assert (got["ok"], got["value"], got["code"]) == (game.ok, _value(game), code), \
            (line, got, records[line - 1].text)
        if got["status"] in RULE_STATUSES:  # the kernel's own diagnosis, where it makes one
            assert got["status"] == code, (line, got, code, records[line - 1].text)
    accepted = sum(1 for got in fast.values() if got["status"] == "ok")
    assert accepted >= 0.8 * sum(1 for r in records if r.damage is None)
