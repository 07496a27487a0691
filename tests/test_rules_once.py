"""The rules exist once, in ``engine/core.py``: no other module restates a rule's formula.

Each pattern below is the signature of one rule's implementation (the trick-winner keys, the
follow masks, the auction's duel steps, the matador sequence, the overbid value, the 61 and
90 point objectives, R17's "defenders passed 30"). A copy of a rule elsewhere -- the way the
batch kernel, the ISS kernel and the row builders each had one -- makes this test fail with
the file and line. Comments and docstrings do not count.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "engine" / "core.py"
LAYERS = ("engine", "ingest", "simulation", "analytics", "reports", "web", "src")
RULE_SIGNATURES = {
    "trick winner (R8)": r"TRICK_KEY|np\.argmax\(key",
    "follow suit (R8)": r"LED_FOLLOW|FOLLOW_T\[[^]]*EFFECTIVE",
    "auction steps (R4)": r"survivor\s*=|stage\s*=\s*3",
    "matadors (R12)": r"TRUMP_SEQ\w*\[[^]]*\]\s*\)\s*&\s*1|top\s*=\s*\(held",
    "overbid value (R7, R15)": r"-\(-bid\s*//",
    "objectives (R14)": r">=\s*61\b|>=\s*90\b",
    "early ending (R17)": r">\s*30\b",
}


def _code_lines(path: Path) -> list[tuple[int, str]]:
    """The source lines of ``path`` without comments and string literals, their tokens
    joined without spaces (``top=(held>>TRUMP_SEQ[k,0])&1``), so spacing cannot hide a copy."""
    text = path.read_text()
    kept: dict[int, list[str]] = {}
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type in (tokenize.COMMENT, tokenize.STRING):
            continue
        kept.setdefault(tok.start[0], []).append(tok.string)
    return sorted((line, "".join(parts)) for line, parts in kept.items())


def test_no_rule_is_written_outside_the_core() -> None:
    found = []
    for layer in LAYERS:
        for path in sorted((ROOT / layer).rglob("*.py")):
            if path == CORE or ".venv" in path.parts:
                continue
            for number, line in _code_lines(path):
                for rule, pattern in RULE_SIGNATURES.items():
                    if re.search(pattern, line):
                        found.append(f"{path.relative_to(ROOT)}:{number}: {rule}: {line}")
    assert not found, "a rule outside engine/core.py:\n" + "\n".join(found)


def test_the_signatures_find_the_core_itself() -> None:
    """Every pattern matches the core's own implementation, so none of them is dead."""
    lines = [line for _, line in _code_lines(CORE)]
    for rule, pattern in RULE_SIGNATURES.items():
        assert any(re.search(pattern, line) for line in lines), rule
