"""The rule set a game is played under, as one immutable value spelled ``NAME[+OPTION...]``.

``isko`` is skatlog's default: the International Skat Order as docs/rules.md decides it, every
game played to ten tricks (R9), only ladder bids (R3). ``isko+iss`` adds the conventions of the
ISS server's records: games may stop at their decisive trick (R17), ISS's off-ladder bids are
accepted (R18) and a null below the bid is scored as an overbid (R7). The house options
``kontra_re`` (R19), ``ramsch`` (R20) and ``bock`` (R21) combine with either. The same spelling is
used by the CLI's ``--rules``, skatlog/1's ``rules`` field and the archive's ``rules`` column.

A rule set is data: its options, and the ``RULE_*`` flags of :mod:`.core` each one sets; the
compiled primitives read the flags. Options and rule sets that are decided but not built yet
(``docs/rules.md``) are listed so that their names are refused with a clear reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import core


class UnknownRules(ValueError):
    """A rule-set spelling that names no rule set or option skatlog plays."""


@dataclass(frozen=True, slots=True)
class RuleOption:
    """One option of a rule set: what it means and the core flags it sets."""

    description: str
    flags: int = 0
    built: bool = True


@dataclass(frozen=True, slots=True)
class RuleSet:
    """A named rule set: its options in their spelling order."""

    description: str
    options: dict[str, RuleOption] = field(default_factory=dict)
    built: bool = True


RULE_SETS: dict[str, RuleSet] = {
    "isko": RuleSet(
        "the International Skat Order as skatlog decides it (docs/rules.md R1-R16)",
        {
            "iss": RuleOption(
                "the ISS server's record conventions: games may stop at their decisive "
                "trick (R17), off-ladder bids 171/189/190 (R18), a null below the bid "
                "scored as an overbid (R7)",
                core.RULE_EARLY_ENDINGS | core.RULE_ISS_BIDS | core.RULE_NULL_BELOW_BID),
            "kontra_re": RuleOption(
                "Kontra and Re: a defender may double the list value before his first "
                "card, the declarer redouble (R19)", core.RULE_KONTRA_RE),
            "ramsch": RuleOption(
                "Ramsch when all pass: each for himself, most card points lose (R20)",
                core.RULE_RAMSCH),
            "bock": RuleOption(
                "Bock rounds: the round after a 60:60, a lost game with Kontra or a list "
                "value of 100 or more counts double (R21)", core.RULE_BOCK),
        },
    ),
    # foster: its scoring, tables and settlement (engine/foster.py), its hands move by move
    # (engine/foster_game.py); no options (Foster's "if played" games are not built).
    "foster": RuleSet("R. F. Foster's laws of Skat (1890s), docs/rules.md F1-F13"),
}


@dataclass(frozen=True, slots=True)
class Rules:
    """A rule set and its options; build it with :meth:`parse` or from :data:`RULE_SETS`."""

    name: str = "isko"
    options: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        rule_set = RULE_SETS.get(self.name)
        if rule_set is None:
            known = ", ".join(RULE_SETS)
            raise UnknownRules(f"unknown rule set {self.name!r} (known: {known})")
        if not rule_set.built:
            raise UnknownRules(f"rule set {self.name!r} is not built yet")
        for option in self.options:
            spec = rule_set.options.get(option)
            if spec is None:
                known = ", ".join(rule_set.options) or "none"
                raise UnknownRules(
                    f"rule set {self.name!r} has no option {option!r} (options: {known})")
            if not spec.built:
                raise UnknownRules(f"option {option!r} of {self.name!r} is not built yet")

    @classmethod
    def parse(cls, text: str) -> Rules:
        """Read ``NAME[+OPTION...]`` (``isko``, ``isko+iss``); options in any order, once each."""
        parts = text.strip().split("+")
        name, options = parts[0], parts[1:]
        if not name or any(not option for option in options):
            raise UnknownRules(f"not a rule-set spelling: {text!r} (NAME[+OPTION...])")
        if len(set(options)) != len(options):
            raise UnknownRules(f"an option is named twice in {text!r}")
        return cls(name, frozenset(options))

    @property
    def flags(self) -> int:
        """The ``core.RULE_*`` bits the compiled primitives read."""
        spec = RULE_SETS[self.name].options
        flags = 0
        for option in self.options:
            flags |= spec[option].flags
        return flags

    @property
    def early_endings(self) -> bool:
        """R17: a suit or grand game may stop at its decisive trick (recorded logs)."""
        return bool(self.flags & core.RULE_EARLY_ENDINGS)

    @property
    def iss_bids(self) -> bool:
        """R18: ISS's off-ladder bids are accepted."""
        return bool(self.flags & core.RULE_ISS_BIDS)

    @property
    def foster(self) -> bool:
        """F1-F13: R. F. Foster's game, played by :class:`~.foster_game.FosterHand`."""
        return self.name == "foster"

    @property
    def kontra_re(self) -> bool:
        """R19: defenders may say Kontra, the declarer Re."""
        return bool(self.flags & core.RULE_KONTRA_RE)

    @property
    def ramsch(self) -> bool:
        """R20: an all-pass hand is played as Ramsch."""
        return bool(self.flags & core.RULE_RAMSCH)

    @property
    def bock(self) -> bool:
        """R21: Bock rounds follow certain hands in a session."""
        return bool(self.flags & core.RULE_BOCK)

    def __str__(self) -> str:
        ordered = [o for o in RULE_SETS[self.name].options if o in self.options]
        return "+".join([self.name, *ordered])


#: skatlog's own games.
ISKO = Rules()
#: Games read from ISS records.
ISKO_ISS = Rules("isko", frozenset({"iss"}))
#: R. F. Foster's Skat (F1-F13).
FOSTER = Rules("foster")

__all__ = ["FOSTER", "ISKO", "ISKO_ISS", "RULE_SETS", "RuleOption", "RuleSet", "Rules",
           "UnknownRules"]
