"""Jobs the worker knows how to run."""

import abc
import functools
import logging
from datetime import datetime, timezone

log = logging.getLogger(__name__)


def retry(times):
    """Retry the decorated function up to times attempts on I/O errors."""

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            for attempt in range(1, times + 1):
                try:
                    return fn(*args, **kwargs)
                except OSError as err:
                    log.warning("attempt %d/%d failed: %s", attempt, times, err)
            raise RuntimeError(f"{fn.__name__} failed {times} times")

        return wrapper

    return decorate


class Job(abc.ABC):
    """A unit of work for one user."""

    kind = "job"

    def __init__(self, user_id):
        self.user_id = user_id
        self.created_at = datetime.now(timezone.utc)

    @property
    def key(self):
        """Identifies the job in logs and results."""
        return f"{self.kind}:{self.user_id}"

    @abc.abstractmethod
    def run(self, client):
        """Do the work, loading users through client."""

    @staticmethod
    def describe(job):
        return f"{job.key} queued at {job.created_at.isoformat()}"


# Mixed into jobs that log their start and end.
class LoggingMixin:
    def log_start(self):
        log.info("starting %s", self.key)

    def log_done(self):
        log.info("done %s", self.key)


class EmailJob(LoggingMixin, Job):
    """Sends a notification e-mail to a user."""

    kind = "email"

    def __init__(self, user_id, subject):
        super().__init__(user_id)
        self.subject = subject

    @retry(times=3)
    def run(self, client):
        self.log_start()
        user = client.fetch_user(self.user_id)
        send_mail(user.email, self.subject)
        self.log_done()
        return user.email


class ReportJob(Job):
    """Summarises a set of users: how many and their domains."""

    kind = "report"

    def __init__(self, user_ids):
        super().__init__(",".join(user_ids))
        self.user_ids = list(user_ids)

    def run(self, client):
        users = [client.fetch_user(uid) for uid in self.user_ids]
        # Count e-mail domains, most common first.
        domains = {}
        for user in users:
            domain = user.email.rpartition("@")[2]
            domains[domain] = domains.get(domain, 0) + 1
        return {"count": len(users), "domains": sorted(domains, key=domains.get, reverse=True)}


def send_mail(address, subject):
    """Pretend to send an e-mail: the sample app has no mail server."""
    log.info("mail to %s: %s", address, subject)
