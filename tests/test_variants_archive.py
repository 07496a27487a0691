"""A 12-hand isko+kontra_re+ramsch+bock session from a skatlog/1 file through ingest: the
archive's kontra, re, bock and Ramsch columns, the sessions view's totals (DuckDB and
polars, list and Seeger-Fabian scoring) against the engine's Session, and export back."""

from __future__ import annotations

import json
import random
from pathlib import Path

from skatlog.analytics.views import lazy_frames, open_archive
from skatlog.engine import (
    Bid,
    Contract,
    Declaration,
    Declare,
    GameRecord,
    GameState,
    Pass,
    Play,
    RandomPlayer,
    Rules,
    Session,
    deal_cards,
)
from skatlog.engine.moves import Kontra, Re
from skatlog.engine.session import seat_players
from skatlog.ingest.export import export_archive
from skatlog.ingest.jsonl import write_jsonl
from skatlog.ingest.model import GameMeta, LogGame
from skatlog.ingest.pipeline import ingest_paths
from skatlog.ingest.verify import verify_archive

RULES = Rules.parse("isko+kontra_re+ramsch+bock")
NAMES = ("Anna", "Ben", "Clara")


def _hand(rng: random.Random, number: int, bock: bool) -> GameRecord:
    """Hand 1 a Ramsch, hands 2-4 grand hands with Kontra (and Re on hand 2), the rest
    random play with Kontra and Re at random."""
    state = GameState(deal_cards(rng), rules=RULES, bock=bock)
    if number == 1:
        for move in (Pass(1), Pass(2), Pass(0)):
            state.apply(move)
    elif number <= 4:
        for move in (Pass(1), Pass(2), Bid(0, 18),
                     Declare(0, Declaration(Contract.GRAND, hand=True)), Kontra(1)):
            state.apply(move)
        if number == 2:
            state.apply(Re(0))
    player = RandomPlayer(step_bids=True)
    while not state.finished:
        doubles = state.legal_doubles()
        if doubles and rng.random() < 0.2:
            state.apply(rng.choice(doubles))
        elif state.phase.value == "play":
            state.apply(Play(state.to_move, rng.choice(state.legal_cards())))  # type: ignore[arg-type]
        else:
            state.apply(player.choose(state, rng))
    return GameRecord.from_state(state)


def _session(seed: int) -> Session:
    rng = random.Random(seed)
    session = Session(NAMES, rules=RULES)
    while not session.complete:
        session.add(_hand(rng, len(session.hands) + 1, session.next_bock))
    return session


def _write(session: Session, path: Path) -> None:
    lines = []
    for hand in session.hands:
        names = tuple(NAMES[p] for p in seat_players(hand.dealer))
        meta = GameMeta(players=names, session_id="club-1", hand_no=hand.number, dealer=2)
        game = LogGame(str(path), hand.number, "", "jsonl", meta=meta, record=hand.record)
        lines.append(write_jsonl(game, result="computed"))
    path.write_text("\n".join(lines) + "\n")


def test_a_house_rules_session_goes_through_ingest_to_the_sessions_view(tmp_path: Path) -> None:
    session = _session(11)
    results = [h.record.result for h in session.hands]
    assert results[0].outcome == "ramsch" and results[1].re
    assert any(h.record.bock for h in session.hands)
    log = tmp_path / "session.jsonl"
    _write(session, log)
    archive = tmp_path / "archive"
    summary = ingest_paths([log], archive, progress=False)
    assert summary.stored == 12 and summary.rejected == 0
    report = verify_archive(archive)  # the replay doubles the Bock hands as stored (R21)
    assert report.ok and report.checked == 12, report.problems
    con = open_archive(archive)
    rows = con.execute("SELECT hand_no, kontra, re, bock, outcome, contract, ramsch_points,"
                       " ramsch_values, value FROM games ORDER BY hand_no").fetchall()
    for row, hand in zip(rows, session.hands, strict=True):
        result = hand.record.result
        assert row[1:4] == (result.kontra is not None, result.re, hand.record.bock)
        assert row[4] == result.outcome and row[8] == result.value
        if result.ramsch is not None:
            assert row[5] == "ramsch"
            assert tuple(row[6]) == result.ramsch.points
            assert tuple(row[7]) == result.ramsch.values
        else:
            assert row[6] is None and row[7] is None
    assert con.execute("SELECT count(*) FROM tricks t JOIN games g USING (game_id)"
                       " WHERE g.outcome = 'ramsch'").fetchone() == (10,)
    expected = dict(zip(NAMES, session.totals(), strict=True))
    players, totals = con.execute("SELECT players, totals FROM sessions").fetchone()
    assert dict(zip(players, totals, strict=True)) == expected
    frame = lazy_frames(archive)["sessions"].collect()
    assert dict(zip(frame["players"][0], frame["totals"][0], strict=True)) == expected
    # Seeger-Fabian: the Ramsch counts as plain list points, the games get their bonuses
    sf = open_archive(archive, scoring="seeger-fabian")
    sf_players, sf_totals = sf.execute("SELECT players, totals FROM sessions").fetchone()
    sf_frame = lazy_frames(archive, scoring="seeger-fabian")["sessions"].collect()
    assert list(sf_frame["totals"][0]) == list(sf_totals)
    bonus = dict.fromkeys(NAMES, 0)  # +50 won / -50 lost, +40 to each other player per loss
    for hand in session.hands:
        position = hand.declarer_position
        if position is None:
            continue
        won = hand.record.result.won
        for other in NAMES:
            if other == NAMES[position]:
                bonus[other] += 50 if won else -50
            elif not won:
                bonus[other] += 40
    assert dict(zip(sf_players, sf_totals, strict=True)) == {
        name: expected[name] + bonus[name] for name in NAMES}
    # export writes the records back: the same moves, bock flags and Ramsch results
    out = tmp_path / "back.jsonl"
    export_archive(archive, out, "jsonl")
    back = {json.loads(line)["session"]["hand"]: json.loads(line)
            for line in out.read_text().splitlines()}
    original = {json.loads(line)["session"]["hand"]: json.loads(line)
                for line in log.read_text().splitlines()}
    assert back == original
