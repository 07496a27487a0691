"""The ``rules`` bot's configuration as data: one switch per piece of advice, a few dials.

A configuration is a small float64 vector (:data:`N_CFG` entries) that the compiled
heuristics read (:mod:`.heuristics`); the batch kernel gets one per table position. A bot is
named ``rules`` (the defaults) or ``rules:SETTING+SETTING...`` where a setting is
``name=value``, ``no-name`` (a switch off) or ``name`` (a switch on), e.g.
``rules:no-trumps_first`` or ``rules:bid_slack=0+no-smear`` (``+``, since commas separate
the three bots of a line-up). The name is what the archive stores as the bot, so games of
different configurations never share an id.

Each switch is one piece of advice of the user's rule texts (the "Strategy" section of the
modern rules, Foster's "Suggestions for good play"); :data:`ADVICE_SWITCHES` says which.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Index, name, default and what each entry means. Switches are 1.0 (follow) or 0.0.
_FIELDS: tuple[tuple[str, float, str], ...] = (
    ("count_jacks", 1.0, "value trumps by the higher trumps held, jacks first (a flat "
     "count of trumps when off)"),
    ("grand_jacks_aces", 1.0, "judge a grand by jacks and aces (by suit length when off)"),
    ("null_sevens", 1.0, "judge a null by the low cards under each card, sevens first "
     "(by the count of high cards when off)"),
    ("bid_slack", 3.0, "multipliers of slack below a 'without' count when bidding"),
    ("smear", 1.0, "defenders fatten the partner's winning tricks with tens and aces"),
    ("trumps_first", 1.0, "the declarer draws trumps before cashing side aces"),
    ("through_long", 1.0, "defenders lead a long suit through the declarer, a short suit "
     "up to him (the suit of their cheapest card when off)"),
    ("aces_behind_tens", 1.0, "a defender behind the declarer keeps his ace for the "
     "declarer's ten and covers a led jack"),
    ("null_long_seven", 1.0, "no null without the seven of the longest suit"),
    ("grand_two_wenzels", 1.0, "a grand on two jacks and two good side suits is safe"),
    ("lead_void", 1.0, "defenders keep leading a suit the declarer is void in"),
    ("open_defence", 1.0, "defenders of an open game play against the open hand"),
    ("suit_margin", 0.2, "tricks' worth added to the suit-game threshold"),
    ("grand_margin", 0.0, "tricks' worth added to the grand threshold"),
    ("null_risk", 2.0, "risky cards a null taken with the skat may keep"),
    ("hand_margin", 0.0, "tricks' worth added to the margin a hand game needs"),
    ("skat_bonus", 1.0, "tricks' worth a suit game expects from the skat when bidding"),
    ("grand_declare", 0.0, "tricks' worth a grand must clear, beyond the other games, to "
     "be declared after the skat"),
)
NAMES: tuple[str, ...] = tuple(f[0] for f in _FIELDS)
DEFAULTS = np.array([f[1] for f in _FIELDS], dtype=np.float64)
HELP: dict[str, str] = {f[0]: f[2] for f in _FIELDS}
N_CFG = len(_FIELDS)
SWITCHES = frozenset(n for n in NAMES[:12] if n != "bid_slack")

(COUNT_JACKS, GRAND_JACKS_ACES, NULL_SEVENS, BID_SLACK, SMEAR, TRUMPS_FIRST, THROUGH_LONG,
 ACES_BEHIND_TENS, NULL_LONG_SEVEN, GRAND_TWO_WENZELS, LEAD_VOID, OPEN_DEFENCE,
 SUIT_MARGIN, GRAND_MARGIN, NULL_RISK, HAND_MARGIN, SKAT_BONUS, GRAND_DECLARE) = range(N_CFG)


@dataclass(frozen=True)
class Advice:
    """A piece of advice and the settings of the bot that does not follow it."""

    key: str
    source: str
    quote: str
    without: tuple[tuple[str, float], ...]
    follow: tuple[tuple[str, float], ...] = ()
    #: What the bot that follows the advice does, and what the other one does instead.
    does: str = ""
    instead: str = ""

    @property
    def follow_bot(self) -> str:
        """The bot name of the arm that follows this advice (the defaults, mostly)."""
        return bot_name(dict(self.follow))

    @property
    def contrast_bot(self) -> str:
        """The bot name of the arm that ignores this advice."""
        return bot_name({**dict(self.follow), **dict(self.without)})


#: Every piece of advice the experiments test: the five "Strategy" points of the modern
#: rules and six of Foster's suggestions, each with the settings that switch it off.
ADVICE_SWITCHES: tuple[Advice, ...] = (
    Advice("count_jacks", "modern rules", "Count jacks first. Two jacks and a five-card "
           "suit headed by the ace is a normal suit game.", (("count_jacks", 0.0),),
           does="values its trumps jacks first, by the higher trumps it holds",
           instead="counts every trump alike"),
    Advice("grand_jacks_aces", "modern rules", "Grand needs jacks and aces, not length.",
           (("grand_jacks_aces", 0.0),),
           does="judges a grand by its jacks and the losers of its side suits",
           instead="judges a grand by aces, tens and the length of its suits"),
    Advice("null_sevens", "modern rules", "Null wants sevens.", (("null_sevens", 0.0),),
           does="judges a null by the low cards under each card, sevens first",
           instead="judges a null by its count of queens, kings and aces"),
    Advice("bid_slack", "modern rules", "Bid below your matadors: leave one multiplier of "
           "slack.", (("bid_slack", 0.0),), (("bid_slack", 1.0),),
           does="bids a 'without' hand one multiplier below its count",
           instead="bids a 'without' hand to its full count"),
    Advice("points_beat_tricks", "modern rules", "As a defender, points beat tricks: smear "
           "tens and aces onto your partner's winning tricks.", (("smear", 0.0),),
           does="smears tens and aces onto its partner's winning tricks as a defender",
           instead="gives its partner's tricks its cheapest card"),
    Advice("trumps_first", "Foster", "The single player should almost always begin with "
           "the trumps.", (("trumps_first", 0.0),),
           does="draws trumps first as declarer", instead="cashes its side aces first"),
    Advice("through_long", "Foster", "Lead a long suit through the player, a short suit "
           "up to him.", (("through_long", 0.0),),
           does="leads long suits through the declarer and short ones up to him",
           instead="leads its cheapest side card"),
    Advice("fatten_keep_aces", "Foster", "Fatten your partner's tricks, and keep aces "
           "behind the player's tens.", (("smear", 0.0), ("aces_behind_tens", 0.0)),
           does="smears onto its partner's tricks and keeps its aces for the declarer's tens",
           instead="does neither"),
    Advice("null_long_seven", "Foster", "Never bid a nullo without the seven of the long "
           "suit.", (("null_long_seven", 0.0),),
           does="never plays a null without the seven of its longest suit",
           instead="may play a null without it"),
    Advice("grand_two_wenzels", "Foster", "A grand with any two Wenzels is safe with two "
           "good suits.", (("grand_two_wenzels", 0.0),),
           does="counts two jacks and two good side suits a grand",
           instead="gives two good suits no extra weight in a grand"),
    Advice("lead_void", "Foster", "Keep leading a suit the player is void in.",
           (("lead_void", 0.0),),
           does="keeps leading a suit the declarer is void in, to draw his trumps",
           instead="leads by its other rules"),
    Advice("open_defence", "issue 18", "Defenders of an open game play against the open "
           "hand.", (("open_defence", 0.0),),
           does="defends an open game against the declarer's open cards",
           instead="defends it as if the cards were hidden"),
)


class BadBotConfig(ValueError):
    """A bot configuration that names an unknown setting or gives a bad value."""


def parse_settings(text: str) -> dict[str, float]:
    """The settings of ``name=value+no-name+name`` (empty: none)."""
    settings: dict[str, float] = {}
    for part in (p.strip() for p in text.split("+")):
        if not part:
            continue
        if "=" in part:
            name, _, raw = part.partition("=")
            name = name.strip()
            try:
                value = float(raw)
            except ValueError:
                raise BadBotConfig(f"setting {name!r}: {raw!r} is not a number") from None
        elif part.startswith("no-"):
            name, value = part[3:], 0.0
        else:
            name, value = part, 1.0
        if name not in HELP:
            raise BadBotConfig(f"unknown rules-bot setting {name!r}; choose from "
                               + ", ".join(NAMES))
        if name in SWITCHES and value not in (0.0, 1.0):
            raise BadBotConfig(f"setting {name!r} is a switch: 0 or 1, not {value:g}")
        settings[name] = value
    return settings


def config_vector(settings: dict[str, float]) -> np.ndarray:
    """The float64 vector the heuristics read, defaults overridden by ``settings``."""
    vector = DEFAULTS.copy()
    for name, value in settings.items():
        vector[NAMES.index(name)] = value
    return vector


def bot_name(settings: dict[str, float]) -> str:
    """The canonical name of a ``rules`` bot with ``settings`` (defaults dropped, in the
    order of :data:`NAMES`), so that equal configurations get equal names."""
    parts = []
    for i, name in enumerate(NAMES):
        if name not in settings or settings[name] == DEFAULTS[i]:
            continue
        value = settings[name]
        if name in SWITCHES:
            parts.append(name if value else f"no-{name}")
        else:
            parts.append(f"{name}={value:g}")
    return "rules:" + "+".join(parts) if parts else "rules"


def split_bot(name: str) -> tuple[str, np.ndarray]:
    """A bot name's kind (``random`` or ``rules``) and its configuration vector;
    BadBotConfig for an unknown setting, ValueError for an unknown kind."""
    kind, sep, rest = name.partition(":")
    if kind != "rules" and sep:
        raise BadBotConfig(f"only the rules bot takes settings, not {kind!r}")
    return kind, config_vector(parse_settings(rest)) if sep else DEFAULTS.copy()


__all__ = [
    "ADVICE_SWITCHES",
    "DEFAULTS",
    "HELP",
    "NAMES",
    "N_CFG",
    "Advice",
    "BadBotConfig",
    "bot_name",
    "config_vector",
    "parse_settings",
    "split_bot",
]
