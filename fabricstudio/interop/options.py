"""Format options: ``-O KEY=VALUE`` pairs checked against the keys a format declares."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from fabricstudio.interop.registry import InteropError, Option


@dataclass(frozen=True)
class Options:
    """Option values (defaults filled in) and the subset of the design to export."""

    values: Mapping[str, str] = field(default_factory=dict)
    subset: str | None = None

    def get(self, key: str, default: str = "") -> str:
        """The value of ``key`` (``default`` when unset)."""
        return self.values.get(key, default)

    def prefixed(self, prefix: str) -> dict[str, str]:
        """Values whose key starts with ``prefix``, keyed by the rest of the key."""
        return {k[len(prefix):]: v for k, v in self.values.items() if k.startswith(prefix)}


def parse_options(pairs: Iterable[str], declared: Iterable[Option], fmt: str,
                  subset: str | None = None) -> Options:
    """Options from ``KEY=VALUE`` strings; keys ending in ``.`` in ``declared`` take any
    suffix (``interface.arista_ceos=eth{n}``).  InteropError for unknown keys."""
    declared = tuple(declared)
    values = {o.key: o.default for o in declared if not o.key.endswith(".") and o.default}
    exact = {o.key for o in declared if not o.key.endswith(".")}
    prefixes = tuple(o.key for o in declared if o.key.endswith("."))
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise InteropError(f"option {pair!r}: write KEY=VALUE")
        if key not in exact and not (prefixes and key.startswith(prefixes)):
            known = ", ".join(o.key + ("KIND" if o.key.endswith(".") else "")
                              for o in declared) or "none"
            raise InteropError(f"unknown option {key!r} for {fmt} (known: {known})")
        values[key] = value.strip()
    return Options(MappingProxyType(values), subset)
