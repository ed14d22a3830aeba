"""Queues jobs and runs them one after the other."""

import collections
import time

from . import jobs
from .client import ApiError, UsersClient


class Runner:
    """Runs queued jobs against the users API."""

    def __init__(self, client: UsersClient, delay: float = 0.0):
        self.client = client
        self.delay = delay
        self._queue = collections.deque()
        self.results = {}

    def submit(self, job: jobs.Job) -> None:
        """Queue job to run later."""
        jobs.log.debug(jobs.Job.describe(job))
        self._queue.append(job)

    @property
    def pending(self) -> int:
        """How many jobs wait in the queue."""
        return len(self._queue)

    def run_all(self) -> list:
        """Run every queued job; return the keys of the jobs that failed."""
        failed = []
        while self._queue:
            job = self._queue.popleft()
            if not self._run_one(job):
                failed.append(job.key)
            time.sleep(self.delay)
        return failed

    def _run_one(self, job):
        started = time.monotonic()

        def elapsed():
            return f"{time.monotonic() - started:.3f}s"

        try:
            self.results[job.key] = job.run(self.client)
        except (ApiError, RuntimeError) as err:
            jobs.log.error("%s failed after %s: %s", job.key, elapsed(), err)
            return False
        jobs.log.info("%s took %s", job.key, elapsed())
        return True

    def drain(self):
        """Drop the queued jobs without running them and return them."""
        dropped = list(self._queue)
        self._queue.clear()
        return dropped
