"""Provides AuthMethodInfo: a login method an agent offers, whatever the protocol version.

Three kinds are run: ``agent`` (the agent logs in by itself when asked, `authenticate`),
``terminal`` (the agent's own command, run in the terminal) and ``env_var`` (the user gives
the values of environment variables the agent reads; the agent is started with them set and
asked to `authenticate`). A method of any other type is shown, never run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from acp_tui.protocol.capabilities import AuthEnvVar as WireEnvVar
from acp_tui.protocol.capabilities import AuthMethodAgent, AuthMethodEnvVar, AuthMethodTerminal
from acp_tui.protocol.v2 import initialize as v2

__all__ = [
    "AuthMethodInfo",
    "EnvVarSpec",
    "auth_methods_in_error",
    "v1_auth_methods",
    "v2_auth_methods",
]


@dataclass(frozen=True, slots=True)
class EnvVarSpec:
    """An environment variable an ``env_var`` login sets: ``secret`` ones are asked masked."""

    name: str
    label: str | None = None
    secret: bool = True
    optional: bool = False


@dataclass(frozen=True, slots=True)
class AuthMethodInfo:
    """An authentication method the agent offers, in a version-neutral form.

    ``terminal``: a login run in the terminal: the agent's own command with ``args`` and
    ``env``, or, for the older ``_meta["terminal-auth"]`` form (kimi, copilot), the explicit
    ``command`` (program and arguments) it gives. ``env_vars``: an ``env_var`` login, the
    variables the agent reads (``link``: where to get the values). ``unknown_type``: a method
    of a type this client does not know; it is shown, never run.
    """

    id: str
    name: str
    description: str | None = None
    terminal: bool = False
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    command: tuple[str, ...] = ()
    unknown_type: str | None = None
    env_vars: tuple[EnvVarSpec, ...] = ()
    link: str | None = None
    env_var: bool = False
    """An ``env_var`` login (even one that names no variable: it only authenticates)."""

    @property
    def usable(self) -> bool:
        return self.unknown_type is None

    @property
    def kind(self) -> str:
        """The method's type as the agent spells it: ``agent``, ``terminal``, ``env_var`` or
        the unknown type it gave."""
        if self.unknown_type is not None:
            return self.unknown_type
        if self.terminal:
            return "terminal"
        return "env_var" if self.env_var else "agent"

    @property
    def variables(self) -> str:
        """The names of the variables it sets, for messages: ``A``, ``A and B``."""
        names = [v.name for v in self.env_vars]
        return " and ".join(names) if len(names) < 3 else ", ".join(names)


def _meta_terminal_auth(meta: dict[str, object] | None) -> dict[str, object] | None:
    """The ``_meta["terminal-auth"]`` block of a method, when it is a usable one."""
    block = (meta or {}).get("terminal-auth")
    if not isinstance(block, dict) or not isinstance(block.get("command"), str):
        return None
    return block


def _strings(value: object) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def _env_pairs(value: object) -> tuple[tuple[str, str], ...]:
    if isinstance(value, dict):
        return tuple(sorted((k, v) for k, v in value.items() if isinstance(v, str)))
    return ()


def _env_var_method(
    method_id: str,
    name: str,
    description: str | None,
    variables: Sequence[WireEnvVar],
    link: str | None,
    var_name: str | None = None,
) -> AuthMethodInfo:
    specs = [EnvVarSpec(v.name, v.label, v.secret, v.optional) for v in variables if v.name]
    if var_name and not any(s.name == var_name for s in specs):
        specs.insert(0, EnvVarSpec(var_name))  # the older draft: one ``varName``
    unique = {spec.name: spec for spec in specs}  # names are unique; the last one stands
    return AuthMethodInfo(
        method_id,
        name,
        description,
        env_vars=tuple(unique.values()),
        link=link,
        env_var=True,
    )


def v1_auth_methods(
    methods: list[AuthMethodTerminal | AuthMethodEnvVar | AuthMethodAgent],
) -> tuple[AuthMethodInfo, ...]:
    """The v1 methods (``initialize`` or an error's data) as the client offers them."""
    infos: list[AuthMethodInfo] = []
    for method in methods:
        if isinstance(method, AuthMethodTerminal):
            infos.append(
                AuthMethodInfo(
                    method.id,
                    method.name,
                    method.description,
                    terminal=True,
                    args=tuple(method.args),
                    env=tuple(sorted(method.env.items())),
                )
            )
            continue
        if isinstance(method, AuthMethodEnvVar):
            infos.append(
                _env_var_method(
                    method.id,
                    method.name,
                    method.description,
                    method.vars,
                    method.link,
                    method.var_name,
                )
            )
            continue
        legacy = _meta_terminal_auth(method.meta)
        if legacy is not None:
            command = (str(legacy["command"]), *_strings(legacy.get("args")))
            label = legacy.get("label")
            infos.append(
                AuthMethodInfo(
                    method.id,
                    label if isinstance(label, str) and label else method.name,
                    method.description,
                    terminal=True,
                    env=_env_pairs(legacy.get("env")),
                    command=command,
                )
            )
        elif method.type not in (None, "agent"):
            infos.append(
                AuthMethodInfo(
                    method.id, method.name, method.description, unknown_type=str(method.type)
                )
            )
        else:
            infos.append(AuthMethodInfo(method.id, method.name, method.description))
    return tuple(infos)


def v2_auth_methods(auth_methods: Sequence[object]) -> tuple[AuthMethodInfo, ...]:
    """The v2 methods as the client offers them."""
    methods: list[AuthMethodInfo] = []
    for method in auth_methods:
        if isinstance(method, v2.AuthMethodTerminal):
            methods.append(
                AuthMethodInfo(
                    method.method_id,
                    method.name,
                    method.description,
                    terminal=True,
                    args=tuple(method.args),
                    env=tuple(sorted((v.name, v.value) for v in method.env)),
                )
            )
        elif isinstance(method, v2.AuthMethodEnvVar):
            methods.append(
                _env_var_method(
                    method.method_id, method.name, method.description, method.vars, method.link
                )
            )
        elif isinstance(method, v2.AuthMethodAgent):
            methods.append(AuthMethodInfo(method.method_id, method.name, method.description))
        elif isinstance(method, v2.UnknownAuthMethod):
            methods.append(
                AuthMethodInfo(
                    method.method_id,
                    method.name,
                    method.description,
                    unknown_type=method.type,
                )
            )
    return tuple(methods)


def auth_methods_in_error(data: object, protocol_version: int) -> tuple[AuthMethodInfo, ...]:
    """Login methods an agent put in an "authentication required" error's ``data``
    (``{"authMethods": [...]}``, in the protocol version's own shape); invalid ones skipped."""
    from pydantic import TypeAdapter, ValidationError

    from acp_tui.protocol.capabilities import AuthMethod

    raw = data.get("authMethods") if isinstance(data, dict) else None
    if not isinstance(raw, list):
        return ()
    if protocol_version >= 2:
        adapter2: TypeAdapter[v2.AuthMethod] = TypeAdapter(v2.AuthMethod)
        parsed2 = []
        for item in raw:
            try:
                parsed2.append(adapter2.validate_python(item))
            except ValidationError:
                continue
        return v2_auth_methods(parsed2)
    adapter: TypeAdapter[AuthMethodTerminal | AuthMethodEnvVar | AuthMethodAgent] = TypeAdapter(
        AuthMethod
    )
    parsed = []
    for item in raw:
        try:
            parsed.append(adapter.validate_python(item))
        except ValidationError:
            continue
    return v1_auth_methods(parsed)
