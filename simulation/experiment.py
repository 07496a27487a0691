"""Paired (duplicate) experiments: the same deals under two or more bot configurations.

An experiment seats one *test* bot per arm (a ``rules`` configuration, :mod:`skatlog.engine.
batch.config`) beside two opponents, at each of the three table positions in turn, and
plays the same deals for every arm and position: the deal of hand ``i`` depends only on the
seed and ``i`` (:mod:`skatlog.engine.batch.kernel`), so arms differ only in what the test
bot does (common random numbers, the duplicate method of bridge). Each (arm, position) is an
ordinary simulation run (:func:`.to_archive.simulate_to_archive`) into the archive, so every
query works on its games; it is seeded, reproducible and resumable like ``simulate`` (a
rerun skips the hands already stored), and line-ups shared by several experiments (the
default arm against default opponents) are stored once. The experiment itself is a small
manifest, ``experiments/<id>.json`` in the archive, that names each arm and the run
(seed, bots, id base) of each of its positions, so analytics can give every game its
experiment id and arm (:mod:`skatlog.analytics.experiments`).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from skatlog.engine.batch.config import ADVICE_SWITCHES, Advice
from skatlog.ingest.archive import archive_path

from .options import Progress, SimulationError, SimulationOptions, SimulationSummary, parse_bots
from .to_archive import simulate_to_archive

#: Folder of the archive that holds the experiment manifests.
EXPERIMENTS = "experiments"


@dataclass(frozen=True)
class ExperimentOptions:
    """``deals`` deals of ``seed``, each played by every arm's bot at every position."""

    deals: int
    seed: int
    arms: tuple[str, ...]
    opponents: str = "rules"
    label: str = ""  # what is tested (an advice key), for the manifest and the report

    def __post_init__(self) -> None:
        if self.deals <= 0:
            raise SimulationError("an experiment needs at least one deal")
        if len(self.arms) < 2:
            raise SimulationError("an experiment compares two or more arms")
        if len(set(self.arms)) != len(self.arms):
            raise SimulationError("the arms of an experiment must differ")
        for bot in (*self.arms, self.opponents):
            if "," in bot:
                raise SimulationError(f"one bot per arm, not {bot!r}")
            parse_bots(bot)  # one clear line for an unknown bot or setting

    @property
    def experiment_id(self) -> str:
        """Names the experiment by what decides its games (seed, arms, opponents), not by
        the number of deals: a longer rerun extends the same experiment."""
        key = "\x1f".join([str(self.seed), self.opponents, *self.arms])
        return "exp-" + hashlib.blake2b(key.encode(), digest_size=6).hexdigest()

    def line_up(self, arm: int, position: int) -> tuple[str, str, str]:
        """The bots at table positions 0-2 when arm ``arm``'s bot sits at ``position``."""
        bots = [self.opponents] * 3
        bots[position] = self.arms[arm]
        return (bots[0], bots[1], bots[2])

    def runs(self) -> list[SimulationOptions]:
        """The distinct simulation runs of the experiment, in arm and position order."""
        seen: dict[tuple[str, str, str], SimulationOptions] = {}
        for arm in range(len(self.arms)):
            for position in range(3):
                bots = self.line_up(arm, position)
                if bots not in seen:
                    seen[bots] = SimulationOptions(hands=self.deals, seed=self.seed,
                                                   bots=bots).resolved()
        return list(seen.values())


def advice_experiment(advice: Advice, deals: int, seed: int, opponents: str = "rules"
                      ) -> ExperimentOptions:
    """The experiment of one piece of advice: arm 0 follows it, arm 1 does not."""
    return ExperimentOptions(deals, seed, (advice.follow_bot, advice.contrast_bot),
                             opponents, advice.key)


def advice_by_key(keys: Sequence[str]) -> list[Advice]:
    """The advice named by ``keys`` (``all``: every one); SimulationError for another."""
    known = {a.key: a for a in ADVICE_SWITCHES}
    if list(keys) == ["all"]:
        return list(ADVICE_SWITCHES)
    unknown = [k for k in keys if k not in known]
    if unknown:
        raise SimulationError(f"unknown advice {unknown[0]!r}; choose from all, "
                              + ", ".join(known))
    return [known[k] for k in keys]


def manifest(options: ExperimentOptions) -> dict[str, object]:
    """The experiment's manifest: its id and options, and the run of every arm/position."""
    arms = []
    for arm, bot in enumerate(options.arms):
        positions = []
        for position in range(3):
            run = SimulationOptions(hands=options.deals, seed=options.seed,
                                    bots=options.line_up(arm, position)).resolved()
            positions.append({"position": position, "bots": list(run.bots),
                              "id_base": run.id_base})
        arms.append({"arm": arm, "bot": bot, "runs": positions})
    return {"experiment_id": options.experiment_id, "label": options.label,
            "seed": options.seed, "deals": options.deals, "opponents": options.opponents,
            "arms": arms, "written_at": datetime.now(UTC).isoformat(timespec="seconds")}


def write_manifest(root: Path, options: ExperimentOptions) -> Path:
    """Write (atomically) the manifest into ``root/experiments``; keeps the larger deal
    count when the experiment is already recorded with more deals."""
    folder = root / EXPERIMENTS
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{options.experiment_id}.json"
    record = manifest(options)
    if path.exists():
        try:
            old = json.loads(path.read_text())
            if int(old.get("deals", 0)) > options.deals:
                return path  # a shorter rerun: the stored runs are longer
        except (ValueError, OSError):
            pass  # an unreadable manifest is replaced
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(record, indent=1) + "\n")
    tmp.replace(path)
    return path


def read_manifests(root: Path) -> list[dict[str, object]]:
    """Every experiment manifest of the archive at ``root``, by id."""
    folder = root / EXPERIMENTS
    if not folder.is_dir():
        return []
    return [json.loads(p.read_text()) for p in sorted(folder.glob("exp-*.json"))]


@dataclass
class ExperimentSummary:
    """What a run of :func:`run_experiment` did."""

    experiment_id: str
    manifest: Path
    hands: int = 0
    stored: int = 0
    duplicates: int = 0
    seconds: float = 0.0


def run_experiment(archive: str | os.PathLike[str] | None, options: ExperimentOptions,
                   on_progress: Progress | None = None, workers: int | None = None
                   ) -> ExperimentSummary:
    """Play every run of the experiment into the archive, then record its manifest (a run
    already stored is skipped hand by hand, so an interrupted experiment resumes)."""
    root = archive_path(archive)
    summary = ExperimentSummary(options.experiment_id, root / EXPERIMENTS)
    for run in options.runs():
        done: SimulationSummary = simulate_to_archive(root, run, on_progress=on_progress,
                                                      workers=workers)
        summary.hands += run.hands
        summary.stored += done.stored
        summary.duplicates += done.duplicates
        summary.seconds += done.seconds
    summary.manifest = write_manifest(root, options)
    return summary


__all__ = [
    "EXPERIMENTS", "ExperimentOptions", "ExperimentSummary", "advice_by_key",
    "advice_experiment", "manifest", "read_manifests", "run_experiment", "write_manifest",
]
