"""Put the "Strategy: what to bid on" advice of the rule text to the test on simulated games.

Each :class:`Advice` turns one piece of advice into hand patterns over the declarer's ten
dealt cards (the hand the bid was made on, from the archived deal and declarer seat, see
:mod:`.hands`) and an outcome (won, or not overbid). Two kinds of test:

* ``threshold``: the matching games should be won more often than not (win probability
  with its Wilson interval against 50 %);
* ``comparison``: the matching games should do better than a contrast group (Newcombe's
  interval for the difference of the two rates).

The verdict is plain: *supported* when the interval lies on the advice's side, *not
supported* when it lies on the other side (or, for a comparison, pins the difference within
±3 points of zero), otherwise *inconclusive* with the reason; groups under 30 games, and
comparisons where every game in both groups was won (or lost), are inconclusive too. Games
come from whatever bots played them (the report runs it once per bot line-up, never on a
pool of several): a verdict is about how the advice fares under that play, not a proof
about human Skat. :func:`evaluate` measures all the advice in one scan of the games.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import duckdb
import pyarrow as pa

from skatlog.engine import Card, Contract, Rank
from skatlog.engine.contract import BASE_VALUES
from skatlog.engine.tricks import matadors, trump_sequence

from .connect import where_clause
from .hands import ACES, JACKS, SUITS, count, holds, register_hands, suit_mask
from .stats import Proportion, difference_interval, proportion

#: Fewest matching games for a verdict.
MIN_N = 30
#: A comparison whose interval sits within this distance of 0 shows "no real difference".
NEGLIGIBLE = 0.03

SUIT_GAME = "contract IN ('diamonds', 'hearts', 'spades', 'clubs')"


def _trump_suit_sql(condition: str) -> str:
    """SQL: ``condition`` (with ``{s}`` for a suit mask) holds for the declared trump suit."""
    cases = " ".join(
        f"WHEN '{Contract(int(s)).label}' THEN {condition.format(s=suit_mask(s), ace=1 << Card.of(s, Rank.ACE))}"  # noqa: E501
        for s in SUITS)
    return f"(CASE contract {cases} ELSE FALSE END)"


def _any_suit_sql(condition: str, *, with_jack: bool = False) -> str:
    """SQL: ``condition`` (with ``{s}``, ``{seven}``, ``{eight}``) holds for some suit."""
    parts = [condition.format(s=suit_mask(s, with_jack=with_jack),
                              seven=1 << Card.of(s, Rank.SEVEN),
                              eight=1 << Card.of(s, Rank.EIGHT)) for s in SUITS]
    return "(" + " OR ".join(parts) + ")"


#: Two jacks and, in the declared trump suit, five or more other cards including the ace.
TWO_JACKS_LONG_ACE = (f"{count('hand_mask', JACKS)} = 2 AND " + _trump_suit_sql(
    "bit_count(hand_mask & {s}::BIGINT) >= 5 AND (hand_mask & {ace}::BIGINT) <> 0"))
#: Null: a suit the declarer holds whose lowest card is the 9 or higher (no 7, no 8).
NULL_HOLE = _any_suit_sql("((hand_mask & {s}::BIGINT) <> 0 AND "
                          "(hand_mask & ({seven} | {eight})::BIGINT) = 0)", with_jack=True)
#: Null: every suit the declarer holds contains its 7.
NULL_ALL_SEVENS = "NOT " + _any_suit_sql(
    "((hand_mask & {s}::BIGINT) <> 0 AND (hand_mask & {seven}::BIGINT) = 0)", with_jack=True)
#: A side suit of five or more cards (jacks are not part of any suit in a grand, R8).
LONG_SUIT = _any_suit_sql("bit_count(hand_mask & {s}::BIGINT) >= 5")
#: The value the dealt cards promise: base value x (matadors of the dealt ten + 1), R12/R13;
#: ``dealt`` is the column of :data:`STRATEGY_HANDS` (the matadors of the dealt ten).
DEALT_VALUE = "base_value(contract) * (abs(dealt) + 1)"


@dataclass(frozen=True, slots=True)
class Advice:
    """One piece of advice as a testable claim."""

    key: str
    label: str  # a short human name for charts and tables
    quote: str  # the advice, as the rule text gives it
    claim: str  # what is measured
    population: str  # SQL over strategy_hands: the games the claim is about
    pattern: str  # SQL: the games the advice recommends / describes
    contrast: str | None = None  # SQL: the comparison group (comparison tests only)
    success: str = "won"  # SQL: what counts as a success
    descriptive: str | None = None  # reason why only a description is possible


ADVICE: tuple[Advice, ...] = (
    Advice(
        "two_jacks_suit", "Two jacks + five trumps with the ace",
        "Two jacks and a five-card suit headed by the ace is a normal suit game.",
        "suit games on two jacks plus five or more cards of trumps headed by the ace are won "
        "more often than not",
        SUIT_GAME, TWO_JACKS_LONG_ACE),
    Advice(
        "club_jack", "J♣ among two jacks",
        "The J♣ specifically is worth more than any other card because it anchors the "
        "\"with\" count.",
        "among suit games on exactly two jacks, holding the J♣ wins more often than not "
        "holding it",
        f"{SUIT_GAME} AND {count('hand_mask', JACKS)} = 2",
        holds("hand_mask", Card.CJ), "NOT " + holds("hand_mask", Card.CJ)),
    Advice(
        "textbook_grand", "Grand on J♣ J♠ + two aces",
        "J♣ + J♠ plus two side aces is a textbook Grand.",
        "grands on J♣, J♠ and at least two aces are won more often than not",
        "contract = 'grand'",
        f"{holds('hand_mask', Card.CJ)} AND {holds('hand_mask', Card.SJ)} AND "
        f"{count('hand_mask', ACES)} >= 2"),
    Advice(
        "grand_aces_not_length", "Grand: aces rather than length",
        "Grand needs jacks and aces, not length.",
        "among grands on two or more jacks, two or more aces without a five-card suit win "
        "more often than a five-card suit with at most one ace",
        f"contract = 'grand' AND {count('hand_mask', JACKS)} >= 2",
        f"{count('hand_mask', ACES)} >= 2 AND NOT {LONG_SUIT}",
        f"{count('hand_mask', ACES)} <= 1 AND {LONG_SUIT}"),
    Advice(
        "null_sevens", "Null with every seven",
        "Null wants sevens.",
        "null games where every suit held contains its 7 win more often than null games "
        "with a suit lacking its 7",
        "contract = 'null'", NULL_ALL_SEVENS, "NOT " + NULL_ALL_SEVENS),
    Advice(
        "null_nine_hole", "Null without a 9-high suit",
        "A suit whose lowest card is a 9 is a hole the defenders will find.",
        "null games without a suit whose lowest card is the 9 or higher win more often than "
        "null games with such a suit",
        "contract = 'null'", "NOT " + NULL_HOLE, NULL_HOLE),
    Advice(
        "bid_below_matadors", "Bid one multiplier below the matadors",
        "Bid below your matadors ... leave one multiplier of slack.",
        "suit games and grands bid on a 'without 2' or longer hand with the skat picked up "
        "are won more often when the bid leaves one multiplier of slack below the dealt "
        "cards' value than when it does not",
        # Only "without 2" and longer: "without 1" plus the J♣ from the skat is "with 1",
        # the same multiplier, so the skat cannot sink such a bid. Success is the game won,
        # not merely "not overbid": a declarer whose count shrank may dodge the automatic
        # overbid loss (R15) by switching to a dearer contract (a grand) that he then loses.
        "contract IN ('diamonds', 'hearts', 'spades', 'clubs', 'grand') AND NOT hand AND "
        "dealt <= -2",
        f"bid <= {DEALT_VALUE} - base_value(contract)",
        f"bid > {DEALT_VALUE} - base_value(contract)"),
    Advice(
        "defenders_points", "Defence: points beat tricks",
        "As a defender, points beat tricks. You need 60, not trick count.",
        "share of defences won (declarer lost on card points) in which the defenders took "
        "at most half the tricks",
        "contract IN ('diamonds', 'hearts', 'spades', 'clubs', 'grand') AND NOT won AND "
        "NOT overbid AND NOT schneider_announced AND NOT schwarz_announced",
        "TRUE", success="declarer_tricks >= 5",
        descriptive="the archive holds the play that happened, not the alternatives; "
                    "judging defender play needs paired simulations of the same deals"),
)


@dataclass(frozen=True, slots=True)
class Verdict:
    """The measured outcome of one :class:`Advice`."""

    advice: Advice
    matching: Proportion
    contrast: Proportion | None
    difference: tuple[float, float, float] | None
    verdict: str  # "supported", "not supported", "inconclusive"
    reason: str

    def summary(self) -> str:
        """One line: the advice key, the figures and the verdict."""
        text = f"{self.advice.key}: {self.matching.format()}"
        if self.contrast is not None and self.difference is not None:
            d, lo, hi = self.difference
            text += (f" vs {self.contrast.format()}, difference {100 * d:+.1f} points"
                     f" [{100 * lo:+.1f}, {100 * hi:+.1f}]")
        return f"{text} -> {self.verdict} ({self.reason})"


#: ``declarer_hands`` plus ``dealt``, the signed matadors of the declarer's ten dealt cards
#: for the declared contract, joined from :func:`matador_lookup` by the trumps held.
STRATEGY_HANDS = """
    CREATE OR REPLACE TEMP VIEW strategy_hands AS
    SELECT d.*, m.dealt FROM declarer_hands d LEFT JOIN matador_lookup m
        ON m.contract = d.contract AND m.held = d.hand_mask & trump_mask(d.contract)
"""


def register_helpers(con: duckdb.DuckDBPyConnection) -> None:
    """The ``declarer_hands`` and ``strategy_hands`` views plus the functions of
    :func:`register_helpers_functions`."""
    register_hands(con)
    register_helpers_functions(con)
    con.execute(STRATEGY_HANDS)


@functools.cache
def matador_lookup() -> pa.Table:
    """The engine's matadors (R12) for every contract and every set of its trump sequence's
    cards a hand can hold: columns ``contract`` (label), ``held`` (the mask of the sequence
    cards held) and ``dealt`` (signed matadors). A hand's matadors depend on nothing else,
    so a join with this table answers for a million hands without calling Python per row."""
    contracts, held, values = [], [], []
    for contract in Contract:
        sequence = [int(card) for card in trump_sequence(contract)]
        for subset in range(1 << len(sequence)):
            cards = sum(1 << c for j, c in enumerate(sequence) if subset >> j & 1)
            contracts.append(contract.label)
            held.append(cards)
            values.append(matadors(cards, contract))
    return pa.table({"contract": contracts, "held": pa.array(held, pa.int64()),
                     "dealt": pa.array(values, pa.int32())})


def register_helpers_functions(con: duckdb.DuckDBPyConnection) -> None:
    """SQL macros ``base_value(contract)``, ``trump_mask(contract)`` and
    ``dealt_matadors(mask, contract)`` and the table ``matador_lookup``, all answered by the
    engine's tables (R5, R8, R12) so the rules stay there."""
    base = " ".join(f"WHEN '{c.label}' THEN {BASE_VALUES[c]}" for c in Contract
                    if c is not Contract.NULL)
    trumps = " ".join(f"WHEN '{c.label}' THEN {sum(1 << int(x) for x in trump_sequence(c))}"
                      for c in Contract)
    con.register("matador_lookup", matador_lookup())
    con.execute(f"""
        CREATE OR REPLACE TEMP MACRO base_value(contract) AS CASE contract {base} END;
        CREATE OR REPLACE TEMP MACRO trump_mask(contract) AS
            (CASE contract {trumps} END)::BIGINT;
        CREATE OR REPLACE TEMP MACRO dealt_matadors(mask, declared) AS (
            SELECT m.dealt FROM matador_lookup m
            WHERE m.contract = declared AND m.held = mask & trump_mask(declared));
    """)


def _flags_sql(item: Advice, index: int) -> str:
    """One piece of advice as boolean columns: in the population and the pattern (``m``),
    in the contrast group (``c``), and a success (``s``)."""
    flags = [f"(({item.population}) AND ({item.pattern})) AS m{index}",
             f"({item.success}) AS s{index}"]
    if item.contrast:
        flags.append(f"(({item.population}) AND ({item.contrast})) AS c{index}")
    return ", ".join(flags)


def judge(advice: Advice, matching: Proportion, contrast: Proportion | None
          ) -> tuple[tuple[float, float, float] | None, str, str]:
    """(difference, verdict, reason) for measured groups, by the rules in the module doc."""
    if matching.n < MIN_N or (contrast is not None and contrast.n < MIN_N):
        smallest = min(matching.n, contrast.n if contrast else matching.n)
        return None, "inconclusive", f"only {smallest} games in a group (need {MIN_N})"
    if advice.descriptive:
        return None, "inconclusive", f"descriptive only: {advice.descriptive}"
    if contrast is None:
        if matching.lo > 0.5:
            return None, "supported", "won more often than not: the interval lies above 50 %"
        if matching.hi < 0.5:
            return None, "not supported", "lost more often than won: interval below 50 %"
        return None, "inconclusive", "the interval includes 50 %"
    diff = difference_interval(matching, contrast)
    _, lo, hi = diff
    for edge, word in ((0, "lost"), (1, "won")):
        if matching.k == edge * matching.n and contrast.k == edge * contrast.n:
            return diff, "inconclusive", (f"every game in both groups was {word}: the bots "
                                          "only play such games where the outcome is certain")
    small = f", by less than {100 * NEGLIGIBLE:.0f} points"
    if lo > 0:
        return diff, "supported", "the difference interval lies above 0" + (
            small if hi < NEGLIGIBLE else "")
    if hi < 0:
        return diff, "not supported", "the opposite holds: the difference interval is below 0" \
            + (small if lo > -NEGLIGIBLE else "")
    if lo > -NEGLIGIBLE and hi < NEGLIGIBLE:
        return diff, "not supported", (f"no difference beyond ±{100 * NEGLIGIBLE:.0f} points"
                                       " (interval includes 0)")
    return diff, "inconclusive", "the difference interval includes 0"


def evaluate(con: duckdb.DuckDBPyConnection, where: str | None = None,
             advice: tuple[Advice, ...] = ADVICE) -> list[Verdict]:
    """Measure every piece of ``advice`` on the games selected by ``where``.

    One scan: every condition is computed once per game as a boolean column, the games are
    counted per combination of those columns (a few dozen), and the groups are added up.
    """
    register_helpers(con)
    flags = ", ".join(_flags_sql(item, i) for i, item in enumerate(advice))
    cursor = con.execute(f"""
        SELECT *, count(*) AS games FROM (
            SELECT {flags} FROM strategy_hands
            WHERE outcome = 'played' AND {where_clause(where)}
        ) GROUP BY ALL
    """)
    names = [d[0] for d in cursor.description]
    groups = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def measured(group: str, i: int) -> Proportion:
        rows = [g for g in groups if g[f"{group}{i}"]]
        return proportion(sum(g["games"] for g in rows if g[f"s{i}"]),
                          sum(g["games"] for g in rows))

    verdicts = []
    for i, item in enumerate(advice):
        matching = measured("m", i)
        contrast = measured("c", i) if item.contrast else None
        diff, verdict, reason = judge(item, matching, contrast)
        verdicts.append(Verdict(item, matching, contrast, diff, verdict, reason))
    return verdicts


def is_defined(value: float) -> bool:
    """Whether a rate or bound is a number (NaN for empty groups)."""
    return not math.isnan(value)


#: Human play, the reference the ``rules`` bot is tuned to (issue 18: 17,967,106 online
#: tournament games): the share of games the declarer won, by kind of game.
HUMAN_SUCCESS = {"grand": 0.914, "null": 0.707, "suit": 0.775}


def bot_rates(con: duckdb.DuckDBPyConnection, where: str | None = None) -> pa.Table:
    """The games ``where`` selects, by kind (suit, grand, null, all): the share of played
    games of that kind, the share the declarer won (with its Wilson interval), and the
    share of hands all passed (kind ``passed``) -- the bots' rates to set beside
    :data:`HUMAN_SUCCESS`."""
    kind = ("CASE WHEN contract = 'grand' THEN 'grand' WHEN contract = 'null' THEN 'null' "
            "ELSE 'suit' END")
    rows = con.execute(f"""
        WITH g AS (SELECT passed, {kind} AS kind, coalesce(won, FALSE) AS won FROM games
                   WHERE {where_clause(where)})
        SELECT kind, count(*) AS n, sum(won::INT) AS k,
               count(*) / (SELECT count(*) FROM g WHERE NOT passed) AS share
        FROM g WHERE NOT passed GROUP BY kind
        UNION ALL
        SELECT 'all', count(*), sum(won::INT), 1.0 FROM g WHERE NOT passed
        UNION ALL
        SELECT 'passed', (SELECT count(*) FROM g), sum(passed::INT),
               sum(passed::INT) / count(*) FROM g
    """).fetchall()
    out: dict[str, list[object]] = {k: [] for k in ("kind", "n", "k", "share", "rate", "lo",
                                                    "hi", "human")}
    order = {"suit": 0, "grand": 1, "null": 2, "all": 3, "passed": 4}
    for name, n, k, share in sorted(rows, key=lambda r: order.get(str(r[0]), 9)):
        n, k = int(n or 0), int(k or 0)
        p = proportion(k, n)
        out["kind"].append(name)
        out["n"].append(n)
        out["k"].append(k)
        out["share"].append(float(share or 0.0))
        out["rate"].append(p.rate)
        out["lo"].append(p.lo)
        out["hi"].append(p.hi)
        out["human"].append(HUMAN_SUCCESS.get(str(name)))
    return pa.table(out)
