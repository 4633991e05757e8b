"""Strict values for the model's pydantic classes: numbers are numbers, limits say why.

* :class:`StrictNumbers` is the base of every model value: a numeric field refuses ``true`` /
  ``false`` and numeric text such as ``"12"`` (pydantic's lax mode would take them), while
  whole-valued floats still fill integer fields.  Fields with their own input parser (a
  ``BeforeValidator``, e.g. sizes written ``"256MiB"``) are left to it.
* :data:`LIMIT_REASONS` gives the physical reason behind a field's range; the validation
  message (``format_validation_error``) appends it when a value is out of range, so the user
  reads why, not only that.
"""

from __future__ import annotations

import functools
import types
import typing
from typing import Any

from pydantic import BaseModel, BeforeValidator, model_validator
from pydantic_core import PydanticCustomError

#: Why a field's range is what it is (by field name; shown after the range error).
LIMIT_REASONS: dict[str, str] = {
    "speed_gbps": "10 Mb/s is the slowest Ethernet; 100 Tb/s is far beyond any link",
    "nic_speed_gbps": "10 Mb/s is the slowest Ethernet; 100 Tb/s is far beyond any NIC",
    "storage_nic_speed_gbps": "10 Mb/s is the slowest Ethernet; 100 Tb/s is beyond any NIC",
    "mgmt_speed_gbps": "10 Mb/s is the slowest Ethernet; 100 Tb/s is beyond any port",
    "port_speed_gbps": "10 Mb/s is the slowest Ethernet; 100 Tb/s is beyond any port",
    "nvlink_gbps": "10 Mb/s to 100 Tb/s per GPU",
    "length_m": "no cable is shorter than 10 cm; beyond 100 km a link is a wide-area network",
    "x": "canvas positions stay within +-10,000,000 px so every exporter can draw them",
    "y": "canvas positions stay within +-10,000,000 px so every exporter can draw them",
    "capacity_tb": "at most 1,000,000 TB (an exabyte) per storage server",
    "propagation_ns_per_m": "light in vacuum needs 3.34 ns per metre; nothing is faster",
    "min_rto_us": "a retransmission timeout shorter than 1 us is below any round trip "
                  "through a NIC and a switch and only floods the engine with timer events",
    "alpha_update_us": "NIC DCQCN timers count whole microseconds; a shorter period only "
                       "floods the engine with timer events",
    "rate_increase_timer_us": "NIC DCQCN timers count whole microseconds; a shorter period "
                              "only floods the engine with timer events",
    "min_rate_mbps": "a rate floor below 1 Mb/s would stretch one packet over seconds",
    "until_s": "a horizon shorter than 100 ns holds not one packet; 10,000 s is ~3 hours "
               "of simulated time",
    "sample_period_s": "a frame shorter than 100 ns is shorter than one packet on the wire; "
                       "longer than 10 s says nothing about microsecond dynamics",
}


def _is_number_type(annotation: Any) -> bool:
    if annotation in (int, float):
        return True
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return bool(args) and all(a in (int, float) for a in args)
    return False


@functools.cache
def _number_fields(model: type[BaseModel]) -> tuple[str, ...]:
    """Names of ``model``'s int/float fields that have no input parser of their own."""
    return tuple(
        name for name, field in model.model_fields.items()
        if _is_number_type(field.annotation)
        and not any(isinstance(m, BeforeValidator) for m in field.metadata)
    )


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    text = repr(value) if len(repr(value)) <= 30 else repr(value)[:30] + "..."
    return f"text ({text})"


class StrictNumbers(BaseModel):
    """Base model whose int/float fields accept numbers only (not booleans, not text).

    The error (type ``number_type``) is raised for the model, with the field's name in its
    context; :func:`~fabricstudio.model.design.format_validation_error` appends it to the
    location."""

    @model_validator(mode="before")
    @classmethod
    def _numbers_are_numbers(cls, data: Any) -> Any:
        if type(data) is dict:
            fields = _NUMBER_FIELDS.get(cls)
            if fields is None:
                fields = _NUMBER_FIELDS[cls] = _number_fields(cls)
            # One pass in C over the field values; only a value that is not plainly a
            # number (or absent) takes the exact check below.
            if not _PLAIN_NUMBER_TYPES.issuperset(map(type, map(data.get, fields))):
                _refuse_non_numbers(fields, data)
        elif isinstance(data, dict):
            _refuse_non_numbers(_number_fields(cls), data)
        return data


#: Types a number field's value may have without a closer look (None: absent or null).
_PLAIN_NUMBER_TYPES = frozenset({int, float, type(None)})
#: Number fields by model class (a plain dict: faster than the cache for 100k objects).
_NUMBER_FIELDS: dict[type[BaseModel], tuple[str, ...]] = {}


def _refuse_non_numbers(fields: tuple[str, ...], data: dict[Any, Any]) -> None:
    """Raise the ``number_type`` error for the first field holding a boolean or text."""
    for name in fields:
        value = data.get(name)
        if isinstance(value, (bool, str, bytes)):
            raise PydanticCustomError("number_type", "expected a number, found {found}",
                                      {"found": _json_type(value), "field": name})
