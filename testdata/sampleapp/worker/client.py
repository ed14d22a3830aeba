"""A small client for the Go users API served by cmd/server."""

import json
import urllib.parse
import urllib.request
from dataclasses import dataclass
from urllib.error import HTTPError, URLError


class ApiError(Exception):
    """The users API answered with an error or could not be reached."""

    def __init__(self, path, status, message):
        super().__init__(f"{path}: {status} {message}")
        self.status = status


@dataclass(frozen=True)
class User:
    """A user as GET /users/{id} returns it (users.User in Go)."""

    id: str
    email: str
    name: str

    @classmethod
    def from_json(cls, data):
        """Build a user from the API's JSON object."""
        return cls(id=data["ID"], email=data["Email"], name=data["Name"])


class UsersClient:
    """Reads users from the API at base_url."""

    def __init__(self, base_url, timeout=5.0):
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout

    def fetch_user(self, user_id):
        """GET /users/{id}: the user with that id."""
        data = self._get("/users/" + urllib.parse.quote(user_id))
        return User.from_json(data)

    def _get(self, path):
        try:
            with urllib.request.urlopen(self.base_url + path, timeout=self.timeout) as resp:
                return json.load(resp)
        except HTTPError as err:
            raise ApiError(path, err.code, err.read().decode().strip()) from err
        except URLError as err:
            raise ApiError(path, 0, str(err.reason)) from err


def fetch_user(user_id, base_url="http://localhost:8080"):
    """Load one user with a throwaway client."""
    return UsersClient(base_url).fetch_user(user_id)
