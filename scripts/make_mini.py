#!/usr/bin/env python
"""Write the bundled mini benchmark: the mini part of every built-in benchmark that has one,
with synthesized audio.

    python scripts/make_mini.py [--out DIR]

A benchmark has a mini part when its package holds a ``mini`` module; its
``write(out, tts)`` writes the part's layout into ``<out>/<name>`` and returns how many items
it wrote, and its ``README`` is its item in the list of the README.md, after
``- `<name>/`: `` (``{count}``: its number of items). This script finds the parts by the
registry, runs them in its order and writes the README.md and MANIFEST.json beside them, so
that a new benchmark's mini part needs no line here. Every clip is made with
``pytest_audiobench/benchmarks/mini_making.py``: speech with espeak-ng, tones, chords, beats
and noise with numpy (fixed seeds). Nothing comes from the real releases. Running it twice
writes byte-identical files, given the same espeak-ng version (recorded in MANIFEST.json). See
the README.md it writes next to the data.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import importlib.util
import json
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # this checkout's package, installed or not

from pytest_audiobench.benchmarks import registry  # noqa: E402
from pytest_audiobench.benchmarks.mini_making import SIZE_LIMIT, Espeak, write_text  # noqa: E402

DEFAULT_OUT = REPO / "pytest_audiobench" / "data" / "mini"
BENCHMARKS = "pytest_audiobench.benchmarks"
"""The package of the built-in benchmarks, each one's folder named as the benchmark."""


def mini_parts() -> dict[str, ModuleType]:
    """The ``mini`` module of each built-in benchmark that has one, by name, in the registry's
    order: the order of the README's list."""
    parts = {}
    for name in registry.built_in():
        module = f"{BENCHMARKS}.{name}.mini"
        if importlib.util.find_spec(module) is not None:
            parts[name] = importlib.import_module(module)
    return parts


PARTS = mini_parts()
# What the script owns inside --out: removed before writing, so no stale file survives.
OWNED = (*PARTS, "MANIFEST.json", "README.md")


def build(out: Path) -> dict[str, int]:
    """Write every part, then the README.md and the MANIFEST.json that hashes them all; how
    many items each part wrote."""
    tts = Espeak()
    try:
        clear(out)
        counts = {name: part.write(out / name, tts) for name, part in PARTS.items()}
        write_text(out / "README.md", readme(counts))
        write_text(out / "MANIFEST.json", json.dumps(
            {"espeak_ng": tts.version, "files": hashes(out)}, indent=2) + "\n")
    finally:
        tts.close()
    return counts


def clear(out: Path) -> None:
    """Remove what the script owns in ``out``, whatever its parts wrote there before."""
    for name in OWNED:
        target = out / name
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()


def readme(counts: Mapping[str, int]) -> str:
    """README.md: each part's list item (its module's ``README``) with its count."""
    parts = "".join(f"- `{name}/`: {PARTS[name].README.format(count=count)}\n"
                    for name, count in counts.items())
    return README.format(parts=parts, first=next(iter(counts)))


def hashes(out: Path) -> dict[str, str]:
    """sha256 of every file the script owns under ``out``, by POSIX relative path."""
    files = sorted(p for name in OWNED if name != "MANIFEST.json"
                   for p in ([out / name] if (out / name).is_file()
                             else (out / name).rglob("*")) if p.is_file())
    return {p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in files}


def total_size(out: Path) -> int:
    return sum(p.stat().st_size for p in out.rglob("*") if p.is_file())


README = """\
# The mini benchmark

A tiny benchmark bundled with pytest-audiobench, in the release layouts the plugin reads:

{parts}
`--audiobench-data mini` runs them all (or `{first}=mini`, ...) to try a model
end to end in seconds. The numbers it gives say nothing about the real benchmarks.
The committed baselines of the built-in models on it are bundled beside it, in
`pytest_audiobench/data/baselines/mini/`, so that an installed plugin gates its own mini run
(a project's own `baselines/mini/` wins over them); they are written by runs
(`--audiobench-update-baseline --audiobench-baselines=pytest_audiobench/data/baselines`), not
by the script, and must be rewritten when the data changes.

Everything here was written and synthesized by this project: the questions, answers,
reasoning and rubrics were written for it, speech was synthesized with espeak-ng and every
other sound (tones, chords, beats, noise) was generated with numpy from fixed seeds. It holds
no text and no audio from the real AIR-Bench, MMAR or MMAU releases. Every question can be answered
from its clip; items without speech are expected to defeat a transcription-only model.

All audio is 16 kHz mono, 1.5 to 4 seconds long (Big Bench Audio's and VoiceBench's spoken
questions up to 8): 16-bit PCM WAV, FLAC where a release ships FLAC (LibriSpeech, one
AIR-Bench Foundation clip), MP3 where it ships MP3 (Big Bench Audio, Common Voice) and where
a part of many clips must stay small (VoiceBench).

## Regenerating

    python scripts/make_mini.py

It needs espeak-ng (`apt-get install espeak-ng`), numpy and soundfile, rewrites this folder
and prints its total size. The output is byte-identical from run to
run with the espeak-ng version recorded in `MANIFEST.json`, which also holds the sha256 of
every file; `tests/test_mini_data.py` checks both.

## License

Apache-2.0, the license of pytest-audiobench.
"""


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help=f"folder to write into (default: {DEFAULT_OUT})")
    args = parser.parse_args(argv)
    out: Path = args.out
    counts = build(out)
    size = total_size(out)
    written = ", ".join(f"{count} {name}" for name, count in counts.items())
    print(f"wrote {written} items to {out}: {size:,} bytes ({size / 1e6:.2f} MB)")
    if size >= SIZE_LIMIT:
        print(f"error: {out} is over the {SIZE_LIMIT / 1e6:g} MB limit", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
