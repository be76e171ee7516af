"""How the whole suite's modules are handed to xdist's workers (tests/conftest.py sets it up).

xdist's ``--dist loadscope`` gives each module to one worker, in the queue's order, to whichever worker asks next.
With three workers on two cores, that would run three machines at once (VMs under TCG, the booted system), whose
waits are measured for a starved guest on two. Here a machine's module goes only to the first few workers, so at
most that many run at once; a spare worker takes the first other module, and waits while only machines are left.
"""

from __future__ import annotations

import sys
from collections.abc import Collection

import pytest
from xdist.remote import Producer
from xdist.scheduler import LoadScopeScheduling
from xdist.workermanage import WorkerController


def worker_number(name: str) -> int:
    """``gw2`` → 2, xdist's name for its third worker (``PYTEST_XDIST_WORKER`` too); a name of another shape (an
    ``id=`` of ``--tx``) sorts after them all. A worker started again after a crash is given the next number."""
    number = name.removeprefix("gw")
    return int(number) if number.isdecimal() else sys.maxsize


class HeavyScopesOnTwo(LoadScopeScheduling):  # type: ignore[misc]  # xdist ships no py.typed: Any to mypy
    """``--dist loadscope``, in the queue's order, except that a module in ``heavy`` goes only to one of the first
    ``heavy_workers`` workers (``gw0``, ``gw1``), each running one module at a time."""

    def __init__(self, config: pytest.Config, log: Producer | None = None, *, heavy: Collection[str],
                 heavy_workers: int) -> None:
        super().__init__(config, log)
        self.heavy = frozenset(heavy)
        self.heavy_workers = heavy_workers

    def _first(self, node: WorkerController) -> bool:
        return worker_number(node.gateway.id) < self.heavy_workers

    def _takes_machines(self, node: WorkerController) -> bool:
        """One of the first workers, or any worker once none of those is left: xdist shuts down the workers a run
        has no module for (``-n 3`` on one module), whichever they are, and the module must still run."""
        return self._first(node) or not any(self._first(other) and not other.shutting_down for other in self.nodes)

    def _assign_work_unit(self, node: WorkerController) -> None:
        """The first module in the queue this worker may take, if any (xdist's takes the first, always). Not yet to a
        worker whose collection has not come in: a replacement for a crashed one (``--max-worker-restart``) is a
        node from its start, and :meth:`mark_test_complete` offers work to every node."""
        if node not in self.registered_collections:
            return
        machines = self._takes_machines(node)
        scope = next((scope for scope in self.workqueue if machines or scope not in self.heavy), None)
        if scope is None:
            return
        work_unit = self.workqueue.pop(scope)
        self.assigned_work.setdefault(node, {})[scope] = work_unit
        collection = self.registered_collections[node]
        node.send_runtest_some([collection.index(nodeid) for nodeid, done in work_unit.items() if not done])

    def mark_test_complete(self, node: WorkerController, item_index: int, duration: float = 0) -> None:
        """Also offers work to the other workers: a spare one left waiting while only machines were queued gets the
        module that came free, or is shut down once the queue is empty."""
        super().mark_test_complete(node, item_index, duration)
        for other in self.nodes:
            if other is not node:
                self._reschedule(other)
