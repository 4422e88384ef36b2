"""The runs a cache folder has seen: each run's id, what identifies its model, and whether it
finished, one JSON file per run under ``<cache>/runs/``.

A model's answers are cached under the run that asked for them, so a new run never replays
another's: a new checkpoint served under the same id is asked again. ``--audiobench-resume``
continues the latest run with the same settings that left samples undone, killed or ended with
errors (its answers count as its own), and no two processes run one run at once (a lock per
run id); ``--audiobench-reuse RUN`` lets a run take an earlier run's answers, when the model is the
same by everything that identifies it.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from pydantic import BaseModel, ValidationError

from pytest_audiobench.config import declarations
from pytest_audiobench.config.options import (
    CacheOptions,
    OutputOptions,
    PacingOptions,
    RequestOptions,
)
from pytest_audiobench.config.settings import Settings
from pytest_audiobench.errors import AudiobenchError
from pytest_audiobench.files import replacing
from pytest_audiobench.gate.drift import JudgeComparison
from pytest_audiobench.gate.scope import LastWhole
from pytest_audiobench.transport.types import ModelIdentity


class RunRecord(BaseModel):
    """One run as its cache folder remembers it."""

    run_id: str
    started: str
    """When it started, ISO 8601 in UTC."""
    fingerprint: str
    """A hash of the settings its answers depend on (``answer_fingerprint``)."""
    identity: ModelIdentity
    finished: bool = False
    """Every selected sample ended with an outcome of its own: none errored, none was left
    not run (a resume would have nothing to do)."""
    undone: int | None = None
    """When it ended: the selected samples it left with an error, not run or without any
    record; None while it runs, or when it was killed."""
    comparisons: dict[str, JudgeComparison] = {}
    """Per benchmark, what its gate pairs against (``gate/drift.py``), decided before its
    first item: a resume holds to it."""
    held: bool | None = None
    """A whole run's verdict once it ended (``gate/scope.py``): whether its gate held; None
    for a partial run (a rerun, stopped early), a shard, or one that has not ended."""


class Claim:
    """The lock a run holds on its id while a process runs it, released when that process
    ends however it ends: a second process can neither resume nor run it at the same time."""

    def __init__(self, handle: IO[bytes] | None) -> None:
        self._handle = handle

    def release(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None


@dataclass(frozen=True)
class RunStart:
    """The run this session is, and what it takes from earlier ones."""

    record: RunRecord
    resumed: bool = False
    reused: str | None = None
    """The run whose answers may serve this one (``--audiobench-reuse``)."""
    notes: list[str] = field(default_factory=list)
    claim: Claim = field(default_factory=lambda: Claim(None))


def answer_fingerprint(settings: Settings) -> str:
    """What the model's answers depend on: the endpoint and its sampling, the in-process provider,
    the revision, how audio is sent, the benchmarks, their data and their own settings, and
    the live baseline model asked beside it."""
    parts = settings.model_dump(mode="json", include={
        "endpoint", "model_provider", "model_revision", "audio_mode", "benchmarks", "data",
        "benchmark_settings", "runs",
        *(["baseline_endpoint"] if settings.baseline_endpoint else [])})
    for option in declarations.declared(RequestOptions):  # how, not what, is asked
        for endpoint in ("endpoint", "baseline_endpoint"):
            parts.get(endpoint, {}).pop(option.attr, None)
    text = json.dumps(parts, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


_HOW = frozenset({*(option.attr for group in (CacheOptions, PacingOptions, OutputOptions)
                     for option in declarations.declared(group)),
                   "tasks", "limit", "shard", "cache_dir"})
"""The settings that say how and where a run goes, or which samples it takes, not what any
sample's record holds."""


def settled_fingerprint(settings: Settings, baselines: Mapping[str, str | None]) -> str:
    """What a sample's record depends on beyond its answers: every setting but those of how
    and where the run goes (``_HOW``; the requests' timeouts and retries), and the content of
    each baseline (``LoadedBaseline.digest``). A resume takes whole only the records an
    earlier session of its run made with the same (``run/spool.py``): with another judge or
    another baseline it grades its samples again."""
    parts = settings.model_dump(mode="json", exclude=set(_HOW))
    endpoints = [parts.get("endpoint"), parts.get("baseline_endpoint"),
                 (parts.get("judge") or {}).get("endpoint")]
    for endpoint in (e for e in endpoints if e):
        for option in declarations.declared(RequestOptions):
            endpoint.pop(option.attr, None)
    text = json.dumps({"settings": parts, "baselines": dict(baselines)}, sort_keys=True,
                      ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def model_identity(settings: Settings, served: dict[str, Any] | None = None) -> ModelIdentity:
    """What identifies the run's model: its endpoint, id, revision and extra body, the names
    of its extra headers, and what its server says it serves (``served``, once asked)."""
    endpoint = settings.endpoint
    return ModelIdentity(url=endpoint.url, model=endpoint.model,
                         revision=settings.model_revision, served=served,
                         extra_body=endpoint.extra_body,
                         headers=list(endpoint.headers.names) if endpoint.headers else [])


class RunBook:
    """The run records of one cache folder; with ``keep`` False (the cache is off) it neither
    reads nor writes any."""

    def __init__(self, folder: Path, keep: bool = True) -> None:
        self.folder = folder
        self.keep = keep

    def records(self) -> list[RunRecord]:
        """Every readable record, oldest first (an unreadable one is not a run to resume)."""
        found = []
        kept = self.keep and self.folder.is_dir()
        for path in sorted(self.folder.glob("*.json")) if kept else []:
            try:
                found.append(RunRecord.model_validate_json(path.read_bytes()))
            except (OSError, ValueError, ValidationError):
                continue
        return sorted(found, key=lambda record: (record.started, record.run_id))

    def save(self, record: RunRecord) -> str | None:
        """Keep the record; what could not be kept, in one line (the run goes on without)."""
        if not self.keep:
            return None
        try:
            with replacing(self.folder / f"{record.run_id}.json") as out:
                out.write(record.model_dump_json(indent=1))
        except OSError as exc:
            return (f"run {record.run_id}: its record could not be saved in {self.folder} "
                    f"({exc.strerror or exc}): it cannot be resumed")
        return None

    def records_path(self, run_id: str, fingerprint: str) -> Path:
        """The file of the records of run ``run_id`` made with the settings of
        ``settled_fingerprint`` (``run/spool.py``)."""
        return self.folder / f"{run_id}.records-{fingerprint}.jsonl"

    def claim(self, run_id: str) -> Claim:
        """Hold the lock on ``run_id``; AudiobenchError when another process holds it. Without
        a writable folder there is no lock to hold (nor a record to resume from)."""
        if not self.keep:
            return Claim(None)
        path = self.folder / f"{run_id}.lock"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            handle = path.open("ab")
        except OSError:
            return Claim(None)
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            raise AudiobenchError(
                f"run {run_id} is being run by another process right now (it holds {path}): "
                "two processes would pay for the same samples; wait for it to end, or start a "
                "new run without --audiobench-resume") from None
        return Claim(handle)

    def begin(self, settings: Settings) -> RunStart:
        """This session's run: the interrupted one it resumes, or a new one; and the run whose
        answers it may reuse (checked against the model once it is known, in ``confirm``).
        AudiobenchError when --audiobench-reuse names no run that is there."""
        fingerprint = answer_fingerprint(settings)
        earlier = self.records()
        notes = []
        resumed = None
        if settings.resume:
            open_runs = [r for r in earlier if r.fingerprint == fingerprint and not r.finished]
            resumed = open_runs[-1] if open_runs else None
            notes.append(_resuming(resumed) if resumed else
                         "--audiobench-resume: no run with these settings left samples undone "
                         f"in {self.folder}: this is a new run")
        identity = model_identity(settings)
        record = RunRecord(
            run_id=resumed.run_id if resumed else _new_run_id(),
            started=resumed.started if resumed else datetime.now(UTC).isoformat(),
            fingerprint=fingerprint, identity=identity,
            comparisons=resumed.comparisons if resumed else {})
        reused = None
        if settings.reuse is not None:
            reused = self._named(settings.reuse, record, earlier).run_id
            notes.append(f"answers of run {reused} may serve this one (--audiobench-reuse)")
        return RunStart(record, resumed is not None, reused, notes, self.claim(record.run_id))

    def earlier(self, record: RunRecord, most: int = 3) -> tuple[str, ...]:
        """The latest runs before ``record`` asked with the same settings (a
        ``--audiobench-limit`` run among them), newest first: a dry run measures the tokens of
        the calls it would send on their answers."""
        same = [r.run_id for r in self.records()
                if r.fingerprint == record.fingerprint and r.run_id != record.run_id]
        return tuple(reversed(same[-most:]))

    def confirm(self, start: RunStart, identity: ModelIdentity) -> RunStart:
        """Record the run with what identifies its model; AudiobenchError when the reused run
        asked another model (another revision, other weights)."""
        if start.reused is not None:
            found = next(r for r in self.records() if r.run_id == start.reused)
            differs = identity.differs_from(found.identity)
            if differs is not None:
                raise AudiobenchError(
                    f"--audiobench-reuse: run {found.run_id} asked {found.identity.model} "
                    f"with {differs}; its answers are not this model's")
        record = start.record.model_copy(update={"identity": identity, "undone": None})
        unsaved = self.save(record)
        notes = [*start.notes, unsaved] if unsaved else start.notes
        return RunStart(record, start.resumed, start.reused, notes, start.claim)

    def decided(self, start: RunStart, comparisons: dict[str, JudgeComparison]) -> RunStart:
        """Record what each benchmark's gate pairs against."""
        record = start.record.model_copy(update={"comparisons": comparisons})
        unsaved = self.save(record)
        notes = [*start.notes, unsaved] if unsaved else start.notes
        return RunStart(record, start.resumed, start.reused, notes, start.claim)

    def end(self, record: RunRecord, undone: int, written: bool = True,
            held: bool | None = None) -> str | None:
        """Record how the run ended: finished when it left nothing undone and wrote what it
        was asked to, else a resume continues it (paying for what is undone only); a whole
        run's verdict (``held``; None for a partial run, which has none). What could not be
        kept, in one line."""
        finished = undone == 0 and written
        return self.save(record.model_copy(update={"finished": finished, "undone": undone,
                                                   "held": held}))

    def last_whole(self, record: RunRecord) -> LastWhole | None:
        """The latest other run of ``record``'s settings that ended whole with a verdict: what
        a rerun of its failures is held to."""
        whole = [r for r in self.records() if r.fingerprint == record.fingerprint
                 and r.run_id != record.run_id and r.held is not None]
        if not whole:
            return None
        last = whole[-1]
        return LastWhole(run_id=last.run_id, started=last.started, held=bool(last.held))

    def _named(self, wanted: str, record: RunRecord, earlier: list[RunRecord]) -> RunRecord:
        others = [r for r in earlier if r.run_id != record.run_id]
        if wanted == "last":
            same = [r for r in others if r.identity.model == record.identity.model]
            if not same:
                raise AudiobenchError(f"--audiobench-reuse last: no earlier run of model "
                                      f"{record.identity.model} in {self.folder}")
            return same[-1]
        named = [r for r in others if r.run_id == wanted]
        if not named:
            known = ", ".join(r.run_id for r in others[-5:]) or "none"
            raise AudiobenchError(f"--audiobench-reuse {wanted}: no such run in {self.folder} "
                                  f"(the latest: {known})")
        if named[0].identity.model != record.identity.model:
            raise AudiobenchError(f"--audiobench-reuse {wanted}: run {wanted} asked model "
                                  f"{named[0].identity.model}, not {record.identity.model}")
        return named[0]


def _resuming(record: RunRecord) -> str:
    if record.undone:
        return (f"resuming run {record.run_id}: it left {record.undone} samples undone "
                "(errors, not run); only what they lack is asked")
    if record.undone == 0:
        return (f"resuming run {record.run_id}: it could not write all its outputs; its "
                "answers serve again, and nothing is asked")
    return f"resuming run {record.run_id}, interrupted"


def _new_run_id() -> str:
    return f"{datetime.now(UTC):%Y%m%dT%H%M%S}-{secrets.token_hex(3)}"
