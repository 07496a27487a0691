"""The ``--rules NAME[+OPTION...]`` option shared by validate, ingest and simulate."""

from __future__ import annotations

import typer

from skatlog.engine.rules import RULE_SETS, Rules, UnknownRules


def _known() -> str:
    built = [name for name, spec in RULE_SETS.items() if spec.built]
    options = [f"{name}+{option}" for name in built
               for option, spec in RULE_SETS[name].options.items() if spec.built]
    return ", ".join(built + options)


RULES_HELP = ("Rule set of records that do not name their own, NAME[+OPTION...] (docs/rules.md,"
              f" 'Rule sets'): {_known()}. Default: each format's own (ISS records isko+iss, "
              "skatlog/1 isko).")


def parse_rules(text: str | None) -> Rules | None:
    """The ``Rules`` value of ``--rules``, or None when not given; a usage error (exit 2, one
    line) for a spelling that names no rule set skatlog plays."""
    if text is None:
        return None
    try:
        return Rules.parse(text)
    except UnknownRules as err:
        raise typer.BadParameter(str(err), param_hint="--rules") from None
