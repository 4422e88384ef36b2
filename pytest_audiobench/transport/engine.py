"""An event loop on a background thread that runs each sample's flow (answer, then grade).

Test items run one by one on pytest's thread; their requests run here, so many can be in
flight while pytest reports items in order. A sample's grading starts the moment its answer
arrives, without waiting for its item to come up.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Coroutine
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pytest_audiobench.transport.pacing import Pacer

A = TypeVar("A")
G = TypeVar("G")
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Flow(Generic[A, G]):
    """The two results of one sample, each available as soon as it is known."""

    answer: Future[A]
    grade: Future[G]


class Engine:
    """Owns the loop thread and the in-flight limit of this process."""

    def __init__(self, pacing: Callable[[], Pacer]) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="audiobench-engine",
                                        daemon=True)
        self._thread.start()
        self.pacer: Pacer = self.call(_on_loop(pacing))
        self._flows: dict[str, Flow[Any, Any]] = {}

    def call(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run one coroutine on the loop and wait for it."""
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    def start(self, key: str, answer: Callable[[], Awaitable[A]],
              grade: Callable[[A], Awaitable[G]]) -> Flow[A, G]:
        """Start the flow of ``key`` unless it already runs; return its futures."""
        flow = self._flows.get(key)
        if flow is None:
            flow = Flow(Future(), Future())
            self._flows[key] = flow
            asyncio.run_coroutine_threadsafe(_run(answer, grade, flow), self._loop)
        return flow

    def running(self, key: str) -> bool:
        return key in self._flows

    def forget(self, key: str) -> None:
        """Drop a finished flow so that a long run does not keep every result."""
        self._flows.pop(key, None)

    def close(self, cleanup: Callable[[], Coroutine[Any, Any, None]] | None = None) -> None:
        """Stop the loop: the flows still running (a run stopped early, -x or a deadline,
        had started the next items') are cancelled first, then ``cleanup`` runs."""
        self.call(_cancel_pending())
        if cleanup is not None:
            self.call(cleanup())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()


async def _cancel_pending() -> None:
    pending = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)


async def _on_loop(make: Callable[[], T]) -> T:
    # asyncio primitives belong to the loop they are made on.
    return make()


async def _run(answer: Callable[[], Awaitable[A]], grade: Callable[[A], Awaitable[G]],
               flow: Flow[A, G]) -> None:
    try:
        result = await answer()
    except BaseException as exc:  # handed to the item, which reports it
        flow.answer.set_exception(exc)
        flow.grade.set_exception(exc)
        return
    flow.answer.set_result(result)
    try:
        flow.grade.set_result(await grade(result))
    except BaseException as exc:
        flow.grade.set_exception(exc)
