"""Every ISkO row of ../shared/rules/test_vectors.csv holds in the engine's scoring (R10-R16)."""

from __future__ import annotations

import csv

import pytest

from skatlog.engine import Contract, Declaration, score_game

from .conftest import require_shared

CONTRACTS = {"D": Contract.DIAMONDS, "H": Contract.HEARTS, "S": Contract.SPADES,
             "C": Contract.CLUBS, "G": Contract.GRAND, "N": Contract.NULL}


def _rows() -> list[dict[str, str]]:
    path = require_shared("rules", "test_vectors.csv")
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def _matadors(text: str) -> int:
    if not text:
        return 0
    if text.startswith("with"):
        return int(text[4:].removeprefix("out")) * (-1 if text.startswith("without") else 1)
    raise ValueError(text)


def _score(row: dict[str, str]) -> int:
    contract = CONTRACTS[row["game"]]
    declaration = Declaration(
        contract,
        hand=row["hand"] == "1",
        schneider_announced=row["schneider_ann"] == "1",
        schwarz_announced=row["schwarz_ann"] == "1",
        ouvert=row["ouvert"] == "1",
    )
    declarer_tricks = row["declarer_tricks"]
    opponent_tricks = row["opponent_tricks"]
    if contract is Contract.NULL:
        tricks = int(declarer_tricks or 0)
        points = 0
        defender_tricks = 10 - tricks
    else:
        points = int(row["declarer_points"])
        if declarer_tricks:  # given: schwarz follows from the trick counts (R11)
            tricks = int(declarer_tricks)
            defender_tricks = int(opponent_tricks) if opponent_tricks else 10 - tricks
        else:  # not given: a trick split that makes no schwarz
            tricks, defender_tricks = 5, 5
    score = score_game(declaration, bid=int(row["bid"]), matadors=_matadors(row["matadors"]),
                       declarer_points=points, declarer_tricks=tricks,
                       defender_tricks=defender_tricks)
    return score.value


def test_vector_file_has_all_cases() -> None:
    rows = _rows()
    assert len(rows) == 57
    assert sum(r["rule_basis"].startswith("ISkO") for r in rows) >= 50


def _isko_ids() -> list[str]:
    try:
        return [r["id"] for r in _rows() if r["rule_basis"].startswith("ISkO")]
    except BaseException:  # collected without ../shared: the single test below reports it
        return []


@pytest.mark.parametrize("case_id", _isko_ids())
def test_isko_vector(case_id: str) -> None:
    row = next(r for r in _rows() if r["id"] == case_id)
    assert _score(row) == int(row["expected_list_value"]), row


def test_every_isko_vector_checked() -> None:
    """Guards the parametrisation: fails when the CSV is unreadable instead of testing nothing."""
    rows = [r for r in _rows() if r["rule_basis"].startswith("ISkO")]
    failures = [r["id"] for r in rows if _score(r) != int(r["expected_list_value"])]
    assert rows and not failures


def test_null_below_bid_vector_r7() -> None:
    """Row 20 (JSkat policy) agrees with R7: null at bid 24 scores -92."""
    row = next(r for r in _rows() if r["id"] == "20")
    assert _score(row) == -92
