"""Where a benchmark's data is, and which of its samples a run takes.

The same for every benchmark: ``--audiobench-data`` names a local release root, ``mini`` (the
bundled mini benchmark, ``data/mini/<benchmark>/``) or a download source the benchmark's spec
declares; ``--audiobench-tasks`` and ``--audiobench-limit`` select from the release's order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_audiobench.config.names import MINI, bundled
from pytest_audiobench.errors import DataError, DownloadError
from pytest_audiobench.untrusted import brief, one_line, plain

if TYPE_CHECKING:
    from pytest_audiobench.benchmarks.base import Benchmark, Release
    from pytest_audiobench.benchmarks.sample import Sample
    from pytest_audiobench.config.declarations import BenchmarkSpec, Catalog


def mini_root(benchmark: str) -> Path:
    """The release root of ``benchmark``'s mini data, in the official layout."""
    return bundled(MINI, benchmark)


def locate(bench: Benchmark, value: str, catalog: Catalog) -> Path:
    """The local release root ``value`` names for ``bench``, downloading it first when it
    names a source of the benchmark's."""
    spec = catalog.specs[bench.name]
    if value == MINI:
        root = mini_root(bench.name)
        if not root.is_dir():
            raise DataError(f"--audiobench-data {MINI}: {bench.name} has no mini data bundled "
                            "with the plugin; give its release root")
        return root
    if value in spec.sources:
        try:
            return bench.download(value)
        except DownloadError as exc:
            raise DataError(f"--audiobench-data {value}: {exc}") from exc
    if value in catalog.sources:
        theirs = ", ".join(repr(s) for s in spec.sources)
        raise DataError(f"--audiobench-data {value}: {bench.name} is not downloaded from "
                        f"there; use {theirs + ' or ' if theirs else ''}a local release root")
    root = Path(value)
    if not root.exists():
        sources = ", ".join(repr(source) for source in spec.sources)
        layout = f" ({spec.layout})" if spec.layout else ""
        raise DataError(f"--audiobench-data {value}: no such folder; give the release root of "
                        f"{bench.name}{layout}, {MINI!r} (the bundled mini benchmark)"
                        + (f" or a download source: {sources}" if sources else ""))
    return root


def check_names(release: Release, root: Path) -> None:
    """Every sample's id and task, the parts of its node id that pytest prints as they are
    (the failure's header, the ``FAILED`` line, ``-v``), must show as they are on one line
    (``untrusted.plain``): an id holding a control character, a newline or a CI workflow
    command is a DataError naming the record, shown safe, before the release is used."""
    for sample in release.samples:
        for what, name in (("id", sample.id), ("task", sample.task)):
            if not plain(name):
                raise DataError(
                    f"--audiobench-data {root}: {sample.benchmark} record "
                    f"{one_line(brief(sample.id))}: its {what} {one_line(brief(name))} holds a "
                    "control character, a newline, a tab or a CI workflow command; expected "
                    "text that shows as it is on one line (pytest prints it in the item's name)")


def check_inside(release: Release, root: Path) -> None:
    """Every sample's audio, symlinks followed, must lie inside the folder the release was
    read from (``Release.inside``: the data root `root`, which may itself be a link, or the
    copy in the cache a local snapshot was converted into): a path with ``..``, an absolute
    one or a link that leaves it is a DataError naming the record, and the file is never
    opened."""
    inside = release.inside(root).resolve()
    where_read = "the data root" if inside == root.resolve() else "the folder it was read from"
    folders: dict[Path, Path] = {}  # a release keeps its clips in a few folders
    for sample in release.samples:
        audio = sample.audio
        folder = folders.get(audio.parent)
        if folder is None:
            folder = folders[audio.parent] = audio.parent.resolve()
        where = audio.resolve() if audio.is_symlink() else folder / audio.name
        if not where.is_relative_to(inside):
            raise DataError(
                f"--audiobench-data {root}: {sample.benchmark} record {sample.id}: its audio "
                f"{sample.audio} resolves to {where}, outside {where_read} {inside}; it is "
                "not read (expected a file inside the release)")


def select(samples: Sequence[Sample], spec: BenchmarkSpec, tasks: Sequence[str],
           limit: int | None) -> list[Sample]:
    """The samples of the wanted tasks (all when none of the benchmark's is named), at most
    ``limit`` per task, the first ones in the release's order: the same on every run. A
    benchmark whose release names its tasks (``spec.tasks`` empty) has the samples' ones."""
    known = set(spec.tasks) or {sample.task for sample in samples}
    wanted = set(tasks) & known or known
    taken: Counter[str] = Counter()
    kept = []
    for sample in samples:
        if sample.task in wanted:
            taken[sample.task] += 1
            if limit is None or taken[sample.task] <= limit:
                kept.append(sample)
    return kept
