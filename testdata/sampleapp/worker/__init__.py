"""Background worker for the sample app.

It loads users from the Go users API (cmd/server) and runs jobs for them:
notification e-mails and reports.
"""

import logging
import os
import sys

from . import jobs
from .client import UsersClient
from .runner import Runner

__all__ = ["Runner", "UsersClient", "create_runner", "jobs", "main"]

DEFAULT_API_URL = "http://localhost:8080"


def create_runner(base_url=None, delay=0.0):
    """Return a runner wired to the users API at base_url.

    The URL defaults to $USERS_API_URL, then to the local server.
    """
    base_url = base_url or os.environ.get("USERS_API_URL", DEFAULT_API_URL)
    return Runner(UsersClient(base_url), delay=delay)


def main(argv=None):
    """Queue an e-mail job per user id given on the command line, run them."""
    logging.basicConfig(level=logging.INFO)
    user_ids = (argv if argv is not None else sys.argv)[1:]
    runner = create_runner()
    for user_id in user_ids:
        runner.submit(jobs.EmailJob(user_id, subject="Welcome!"))
    failed = runner.run_all()
    if failed:
        logging.error("%d jobs failed: %s", len(failed), ", ".join(failed))
        return 1
    return 0
