"""What every column of every archive view means: the one source of the column docs.

``skatlog schema`` prints these descriptions, and :func:`comment_views` attaches them to the
DuckDB views (``COMMENT ON COLUMN``), so ``duckdb_columns()`` shows them in any SQL session
opened by :func:`skatlog.analytics.views.open_archive`. ``tests/test_column_docs.py`` checks
that every column of every view has one, so a new column cannot go undocumented.

Conventions used below: seats are 0 Forehand, 1 Middlehand, 2 Rearhand (R1); a card is an
integer 0..31 (``suit * 8 + rank``; the views' macro ``card_name(c)`` gives its ISS name,
e.g. ``card_name(28) = 'CJ'``); R-numbers are the rules of ``docs/rules.md``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb

#: One line per view: what a row is.
VIEW_DOCS: dict[str, str] = {
    "games": "one row per hand: played, passed (everyone passed, R4) or penalty (R17)",
    "tricks": "one row per completed trick of a game (a trick cut short by an early end, "
              "R17, is not one)",
    "auction": "one row per call of the auction (bid, hold or pass), in order",
    "sessions": "one row per session (12 hands, R2), derived from games: always consistent "
                "with them",
    "rejects": "one row per distinct invalid record (quarantined with its raw text and every "
               "diagnostic)",
    "ingests": "one row per ingest or simulation run that committed",
    "analysis": "one row per game analysed by skatlog analyze: its result with best play "
                "by both sides (every card known) and the first card that changed it",
}

_SEAT = "(0 Forehand, 1 Middlehand, 2 Rearhand)"
_MASK = ("32-bit mask of {who} (bit c set when card c is held; "
         "e.g. bit_count({col} & 0x10101010) counts its jacks)")

#: view -> column -> description, in the views' column order.
COLUMN_DOCS: dict[str, dict[str, str]] = {
    "games": {
        "game_id": "signed 64-bit content id: a hash of deal, moves, players, time, record id "
                   "and session for a logged game, the run's base + hand index for a "
                   "simulated one; a game ingested twice has one id and is stored once",
        "origin": "'log' (read from a log file) or 'simulated' (skatlog simulate)",
        "source": "the file the game was read from ('simulated' for simulated hands)",
        "source_line": "1-based line of the source where the record starts",
        "source_format": "'iss' or 'jsonl' (skatlog/1); null for simulated hands",
        "record_id": "the log's own game id (ISS ID[...], skatlog id); null when it has none",
        "session_id": "the session the hand belongs to (ISS series SE[...], skatlog session, "
                      "simulate --sessions); null when unknown",
        "hand_no": "1..12: the hand's place in its session (R2), when known",
        "played_at": "when the hand was played (UTC), when the log says",
        "club": "the club the log names (skatlog format), else null",
        "table": "the table the log names (skatlog format), else null",
        "forehand": "player name in the Forehand seat of this hand (seats rotate, R2)",
        "middlehand": "player name in the Middlehand seat of this hand",
        "rearhand": "player name in the Rearhand seat of this hand (the dealer of a "
                    "three-player table)",
        "dealer": f"the dealer's seat {_SEAT}, when known",
        "deal": "the 32 dealt cards (integers, card_name(c) names them) in ISS order: "
                "Forehand's ten (deal[1:10]), Middlehand's (deal[11:20]), Rearhand's "
                "(deal[21:30]), the skat (deal[31:32])",
        "forehand_cards": _MASK.format(who="Forehand's ten dealt cards", col="forehand_cards"),
        "middlehand_cards": _MASK.format(who="Middlehand's ten dealt cards",
                                         col="middlehand_cards"),
        "rearhand_cards": _MASK.format(who="Rearhand's ten dealt cards", col="rearhand_cards"),
        "skat_cards": "32-bit mask of the two skat cards as dealt (computed: the cards no "
                      "hand holds)",
        "passed": "true when everyone passed (R4): no game, value 0",
        "outcome": "'played', 'passed' (everyone passed), 'penalty' (a time-out or leave "
                   "before any game was declared, R17) or 'aborted' (reserved)",
        "ending": "how the hand ended: ten_tricks, null_trick (R9), defenders_trick or "
                  "defenders_31 (an announced game decided early, R17), declarer_resigned, "
                  "defenders_resigned, declarer_absent, defender_absent, penalty, all_passed",
        "declarer": f"the declarer's seat {_SEAT}; null when nobody declared",
        "declarer_name": "the declarer's player name; null when nobody declared",
        "contract": "diamonds, hearts, spades, clubs, grand or null (R5); null when nobody "
                    "declared",
        "hand": "a hand game: the declarer did not pick up the skat (R5)",
        "schneider_announced": "schneider announced (hand games only, R6)",
        "schwarz_announced": "schwarz announced (hand games only, implies schneider "
                             "announced, R6)",
        "ouvert": "played open (R6; a suit or grand ouvert is also hand, schneider and schwarz "
                  "announced)",
        "skat_taken": "the declarer picked up the skat",
        "discard": "the two cards the declarer laid away (integers); null for hand games",
        "bid": "the auction's final bid, on the 63-value ladder (R3); 0 when everyone passed",
        "matadors": "signed matadors (R12): +n 'with n', -n 'without n', counted over the "
                    "declarer's dealt ten plus the skat; 0 in null games",
        "declarer_points": "the declarer's card points: tricks plus the skat (R10), plus "
                           "cards credited on an early end (R17)",
        "defender_points": "the defenders' card points",
        "declarer_tricks": "tricks the declarer took (credited ones included, R17)",
        "defender_tricks": "tricks the defenders took",
        "schneider": "schneider reached by either party: 30 points or fewer (R11)",
        "schwarz": "schwarz reached by either party: no trick at all (R11)",
        "won": "the declarer won (R14); null when nobody declared",
        "overbid": "the game's value did not reach the bid (R15), or a null game was "
                   "declared below the bid (R7): lost whatever the points",
        "game_value": "the unsigned game value: base x multiplier, a null game's fixed value "
                      "(R13), or the overbid value (R15); the signed list value is 'value'",
        "multiplier": "the multiplier (R13): matadors + 1 + hand + schneider + schneider "
                      "announced + schwarz + schwarz announced + ouvert; 1 for null games",
        "value": "the declarer's signed list value (R14-R16): +game_value won, "
                 "-2 x game_value lost; 0 when no game was played. Not game_value",
        "recorded_value": "the signed list value the log claims (ISS v:, skatlog result), "
                          "null when it claims none",
        "value_check": "recomputed value against recorded_value: ok, iss_convention (a "
                       "difference ISS's own counting explains, R18), score_mismatch or "
                       "not_recorded",
        "recorded_result": "the result exactly as the log recorded it (passed, penalty, "
                           "declarer, won, value, matadors, overbid, points, tricks, "
                           "schneider, schwarz, raw text), kept for lossless export",
        "warnings": "warning codes from validation: off_ladder_bid (R18), implied_resign, "
                    "bad_date, not_reproduced (a record claiming a simulated hand that does "
                    "not replay as one)",
        "moves": "the whole move list in skatlog's compact notation ('1p 2p 018 0s 0dST.H8 "
                 "0=C 0CJ ...'); null when the auction, games and tricks rows hold every "
                 "move (simulated hands): skatlog export rebuilds it",
        "rules": "the rule set the game was replayed under, spelled NAME[+OPTION...]: "
                 "'isko' (skatlog's own games) or 'isko+iss' (ISS records: R17 endings, R18 "
                 "off-ladder bids, R7); see docs/rules.md, Rule sets",
        "recorded_rules": "true when the game was replayed under the ISS record conventions "
                          "(rule set isko+iss: R17 endings, R18 off-ladder bids, R7); false "
                          "for skatlog's own games (isko)",
        "extra_bids": "off-ladder bids (171, 189, 190) admitted in this game's replay (R18)",
        "kontra": "a defender said Kontra (option kontra_re, R19): the list value doubled",
        "re": "the declarer answered the Kontra with Re (R19): the list value doubled again",
        "bock": "the hand was played in a Bock round (option bock, R21): every list value "
                "doubled",
        "ramsch_points": "a Ramsch hand (option ramsch, R20): card points by seat (Forehand, "
                         "Middlehand, Rearhand), the skat with the last trick; else null",
        "ramsch_values": "a Ramsch hand (R20): each seat's list value (most points lose them, "
                         "doubled for a Jungfrau, +120 for a Durchmarsch; Bock doubled); "
                         "else null",
        "extra": "the log's fields no column holds (as JSON), kept for lossless export",
        "seed": "simulated hands: the run's seed (skatlog simulate --seed)",
        "bots": "simulated hands: the run's bots at table positions 1-3, comma-separated",
        "ingest_id": "the run that stored the row (ingests.ingest_id)",
    },
    "tricks": {
        "game_id": "the game (games.game_id)",
        "trick_no": "1..10: the trick's place in the game",
        "leader": f"the seat that led the trick {_SEAT} (R8)",
        "card1": "the card led (an integer, card_name(c) names it)",
        "card2": "the second card played",
        "card3": "the third card played",
        "seat1": "the seat that played card1: the leader (computed)",
        "seat2": "the seat that played card2: (leader + 1) mod 3, play goes clockwise "
                 "(computed)",
        "seat3": "the seat that played card3: (leader + 2) mod 3 (computed)",
        "winner": f"the seat that took the trick {_SEAT} (R8)",
        "points": "the card points of the trick's three cards (R1; computed)",
    },
    "auction": {
        "game_id": "the game (games.game_id)",
        "call_no": "1-based order of the call within the auction",
        "seat": f"the seat that called {_SEAT}",
        "kind": "'bid' (names a value), 'hold' (yes to the value bid) or 'pass' (R4)",
        "value": "the value bid or held; null for a pass",
    },
    "sessions": {
        "session_id": "the session (games.session_id)",
        "origin": "'log' or 'simulated' (of the session's games)",
        "hands": "hands stored for the session (12 for a complete one, R2)",
        "passed_hands": "hands of the session everyone passed (they count, R2)",
        "first_played_at": "the session's first played_at (UTC)",
        "last_played_at": "the session's last played_at (UTC)",
        "players": "the session's players, sorted by name",
        "totals": "each player's total, in the order of players, under the view's scoring: "
                  "list points by default (only declarers score, R16), Seeger-Fabian with "
                  "--scoring seeger-fabian (null at a table of other than 3 or 4)",
        "winners": "every player on the top total (ties shared, R2)",
        "table_size": "players at the session's table: 3, or 4 when the dealer sits out "
                      "each hand",
        "scoring": "what totals and winners follow: 'list' or 'seeger-fabian'",
    },
    "rejects": {
        "reject_id": "signed 64-bit hash of the raw text: one row per distinct record",
        "source": "the file the record was read from",
        "line": "1-based line where the record starts",
        "source_format": "'iss' or 'jsonl'",
        "record_id": "the record's own id when it could be read, else null",
        "code": "the first error's stable code (syntax, truncated, bad_deal, illegal_bid, "
                "wrong_player, wrong_phase, illegal_declaration, card_not_in_hand, revoke, "
                "play_after_end, corrupt_card, score_mismatch)",
        "message": "the first error, in words",
        "move": "the move the first error is at (the deal is move 0); null when none",
        "rule": "the rule the first error cites (e.g. R8), or empty",
        "errors": "every diagnostic: code, message, line, move, rule",
        "raw": "the record's text as read",
        "ingest_id": "the run that quarantined it (ingests.ingest_id)",
    },
    "ingests": {
        "ingest_id": "the run's id: its UTC start time and 8 random hex digits",
        "kind": "'ingest' (log files), 'simulate' or 'append' (tables from the Python API)",
        "started_at": "when the run started (UTC)",
        "finished_at": "when the run committed (UTC); for an interrupted run, its last "
                       "commit (the row is replaced at each commit)",
        "seconds": "the run's duration in seconds",
        "format": "the --format of an ingest (auto, iss, jsonl); null for simulations",
        "files": "the files read: path, sha256 of the bytes as stored, size in bytes",
        "seen": "games (records) the run read or simulated",
        "stored": "games it stored (new to the archive)",
        "duplicates": "games already stored, or seen earlier in the run: not stored again",
        "rejected": "records that failed validation",
        "rejects_stored": "rejected records new to rejects (a record already quarantined is "
                          "kept once)",
        "rejected_by_code": "rejected records per error code: code, count",
        "skatlog_version": "the skatlog version that wrote the run",
        "schema_version": "the archive schema version the run's partitions use",
    },
    "analysis": {
        "game_id": "the analysed game (games.game_id)",
        "dd_declarer_points": "suit and grand: the declarer's card points (skat included) "
                              "with best play by both sides and every card known, from the "
                              "position after the discard; null in null games",
        "dd_declarer_tricks": "null games: the tricks the declarer cannot avoid with best "
                              "play (0 or 1: a null ends at his first trick, R9); null "
                              "otherwise",
        "dd_won": "whether best play by both sides wins the game as declared (its bid, "
                  "announcements and matadors), from the position after the discard",
        "dd_won_after": "dd_won again after each card played, in play order",
        "changed": "per card played: true when that card changed the best-play result "
                   "(dd_won before it differs from after it)",
        "first_change_card_no": "the first such card's number in the play (1-based); null "
                                "when no card changed the result",
        "first_change_trick": "its trick (1-10)",
        "first_change_seat": f"the seat that played it {_SEAT}",
        "first_change_card": "the card (card_name(c) gives its ISS name)",
        "first_change_keep": "a card the same seat could have played instead that kept the "
                             "result",
        "ingest_id": "the analyze run that wrote the row",
    },
}


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def comment_sql(view: str, columns: Iterable[str] | None = None) -> list[str]:
    """The ``COMMENT ON`` statements for ``view`` and its documented columns (those of
    ``columns`` only, when given: the columns the view has)."""
    docs = COLUMN_DOCS[view]
    names = list(docs) if columns is None else [c for c in columns if c in docs]
    out = [f"COMMENT ON VIEW {view} IS {_quote(VIEW_DOCS[view])}"]
    out += [f'COMMENT ON COLUMN {view}."{column}" IS {_quote(docs[column])}'
            for column in names]
    return out


def comment_views(con: duckdb.DuckDBPyConnection) -> None:
    """Attach the descriptions to the views on ``con`` (see the module docstring), to the
    columns each view has (a column the docs do not know stays without one; the test
    catches it): one batch of statements, about 25 ms in all."""
    present: dict[str, list[str]] = {}
    for view, column in con.execute(
            "SELECT table_name, column_name FROM duckdb_columns() WHERE table_name IN "
            "(SELECT unnest(?::VARCHAR[])) ORDER BY table_name, column_index",
            [list(COLUMN_DOCS)]).fetchall():
        present.setdefault(view, []).append(column)
    statements = [s for view, columns in present.items() for s in comment_sql(view, columns)]
    if statements:
        con.execute(";\n".join(statements))
