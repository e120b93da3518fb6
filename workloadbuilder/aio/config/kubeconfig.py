"""Reading kubeconfig files and checking the chosen context before the client's loader runs.

kubernetes-asyncio's loader builds its error messages from the entries' reprs (a user entry
with a missing key prints its token), so every problem it would meet is found here first and
told by file, context, entry and key only. ``redact`` scrubs what the loader may still say.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from ..errors import KubeconfigError

__all__ = ["Kubeconfig", "kubeconfig_paths", "read_kubeconfig"]

_CREDENTIAL_KEYS = frozenset(
    ("token", "password", "client-key-data", "id-token", "refresh-token", "client-secret",
     "access-token", "value")
)  # fmt: skip
_SECTIONS = (("clusters", "cluster"), ("contexts", "context"), ("users", "user"))


def kubeconfig_paths(config_file: str | os.PathLike[str] | None) -> tuple[list[str], str]:
    """The files to read (``config_file``, else ``$KUBECONFIG``, else ``~/.kube/config``) and
    where that list came from, for messages."""
    if config_file is not None:
        return [os.path.expanduser(os.fspath(config_file))], "the kubeconfig"
    env = os.environ.get("KUBECONFIG")
    if env:
        paths = [os.path.expanduser(p) for p in env.split(os.pathsep) if p]
        return paths, "$KUBECONFIG"
    return [os.path.expanduser("~/.kube/config")], "~/.kube/config"


@dataclass
class Kubeconfig:
    """The merged kubeconfig as kubernetes-asyncio merges it: the first entry of a name wins,
    the last file's ``current-context`` counts. ``sources`` says which file each entry is from."""

    files: list[str]
    current_context: str = ""
    entries: dict[str, dict[str, Mapping[str, Any]]] = field(default_factory=dict)
    sources: dict[tuple[str, str], str] = field(default_factory=dict)
    secrets: list[str] = field(default_factory=list)

    def where(self, context: str | None = None) -> str:
        text = ", ".join(self.files)
        return f"kubeconfig {text}" + (f', context "{context}"' if context else "")

    def check(self, context: str | None) -> str:
        """The context to load, after checking that it, its cluster and its user are usable."""
        name = context or self.current_context
        if not name:
            raise KubeconfigError(
                f"{self.where()}: no current-context is set; pass a context"
                f" (one of: {_names(self.entries['contexts'])})"
            )
        ctx = self.entries["contexts"].get(name)
        if ctx is None:
            raise KubeconfigError(
                f'{self.where()}: context "{name}" not found'
                f" (contexts: {_names(self.entries['contexts'])})"
            )
        where = self.where(name)
        body = _mapping(ctx.get("context"), f"{where}: contexts[name={name}].context")
        cluster_name = body.get("cluster")
        if not isinstance(cluster_name, str) or not cluster_name:
            raise KubeconfigError(f'{where}: contexts[name={name}].context: missing key "cluster"')
        cluster = self.entries["clusters"].get(cluster_name)
        if cluster is None:
            raise KubeconfigError(f'{where}: cluster "{cluster_name}" not found')
        at = f"{where}: clusters[name={cluster_name}].cluster"
        server = _mapping(cluster.get("cluster"), at).get("server")
        if not isinstance(server, str) or not server:
            raise KubeconfigError(f'{at}: missing key "server"')
        user_name = body.get("user")
        if user_name:
            user = self.entries["users"].get(str(user_name))
            if user is None:
                raise KubeconfigError(f'{where}: user "{user_name}" not found')
            _check_user(user.get("user"), f"{where}: users[name={user_name}].user")
        return name

    def redact(self, text: str) -> str:
        """``text`` with every value of the users' entries replaced, and the loader's entry
        reprs (``{...}``) cut out."""
        for secret in self.secrets:
            text = text.replace(secret, "<redacted>")
        return re.sub(r"\{[^{}]*\}?", "{...}", text)


def read_kubeconfig(paths: Sequence[str]) -> Kubeconfig:
    """Read and merge ``paths`` (those that exist); raise ``KubeconfigError`` naming the file
    and entry of the first structural problem."""
    config = Kubeconfig(files=list(paths))
    for section, _ in _SECTIONS:
        config.entries[section] = {}
    for path in paths:
        document = _load(path)
        if "current-context" in document:
            config.current_context = str(document.get("current-context") or "")
        for section, inner in _SECTIONS:
            listed = document.get(section)
            if listed is None:
                continue
            if not isinstance(listed, list):
                raise KubeconfigError(
                    f"kubeconfig {path}: {section} is {_a(listed)}, not a list of entries"
                )
            for i, entry in enumerate(listed):
                if not isinstance(entry, Mapping):
                    raise KubeconfigError(
                        f"kubeconfig {path}: {section}[{i}] is {_a(entry)}, not a mapping"
                    )
                name = entry.get("name")
                if not isinstance(name, str) or not name:
                    raise KubeconfigError(f'kubeconfig {path}: {section}[{i}]: missing key "name"')
                if inner not in entry:
                    raise KubeconfigError(
                        f'kubeconfig {path}: {section}[name={name}]: missing key "{inner}"'
                    )
                if section == "users":
                    config.secrets += _strings(entry.get(inner))
                if name not in config.entries[section]:
                    config.entries[section][name] = entry
                    config.sources[(section, name)] = path
    config.secrets = sorted({s for s in config.secrets if len(s) >= 3}, key=len, reverse=True)
    return config


def _load(path: str) -> Mapping[str, Any]:
    try:
        with open(path, encoding="utf-8") as f:
            document = yaml.safe_load(f)
    except OSError as exc:
        raise KubeconfigError(f"kubeconfig {path} cannot be read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise KubeconfigError(f"kubeconfig {path} is not UTF-8 text") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "not valid YAML"
        raise KubeconfigError(f"kubeconfig {path} is not valid YAML{at}: {problem}") from None
    if document is None:
        raise KubeconfigError(f"kubeconfig {path} is empty")
    if not isinstance(document, Mapping):
        raise KubeconfigError(
            f"kubeconfig {path} holds {_a(document)}, not a mapping (apiVersion: v1, kind: Config)"
        )
    return document


def _check_user(user: Any, at: str) -> None:
    user = _mapping(user, at)
    exec_config = user.get("exec")
    if exec_config is None:
        return
    exec_config = _mapping(exec_config, f"{at}.exec")
    for key in ("command", "apiVersion"):
        if not isinstance(exec_config.get(key), str) or not exec_config.get(key):
            raise KubeconfigError(f'{at}.exec: missing key "{key}"')
    args = exec_config.get("args")
    if args is not None and not isinstance(args, list):
        raise KubeconfigError(f"{at}.exec.args is {_a(args)}, not a list")
    env = exec_config.get("env")
    if env is not None:
        if not isinstance(env, list):
            raise KubeconfigError(f"{at}.exec.env is {_a(env)}, not a list")
        for i, item in enumerate(env):
            if not isinstance(item, Mapping) or "name" not in item or "value" not in item:
                raise KubeconfigError(f"{at}.exec.env[{i}] needs a name and a value")


def _mapping(value: Any, at: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise KubeconfigError(f"{at} is {_a(value)}, not a mapping")
    return value


def _strings(value: Any, key: str = "") -> Iterator[str]:
    """The values below ``value`` that may be credentials: those of the credential keys, and
    every other one of 8 characters or more."""
    if isinstance(value, Mapping):
        for k, v in value.items():
            yield from _strings(v, str(k))
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v, key)
    elif value is not None and (key in _CREDENTIAL_KEYS or len(str(value)) >= 8):
        yield str(value)


def _names(entries: Mapping[str, Any]) -> str:
    return ", ".join(entries) or "none"


def _a(value: Any) -> str:
    """``a list``, ``a string``, ...: the YAML type of ``value``, never the value."""
    names = {list: "a list", dict: "a mapping", str: "a string", bool: "a boolean", int: "a number"}
    return names.get(type(value), f"a {type(value).__name__}")
