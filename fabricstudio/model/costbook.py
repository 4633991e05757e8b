"""The cost and power book: a price, power draw and rack height per class of part, each with
its source, date and confidence.

File layout (``resources/costbook.json``; docs/cost.md lists every default)::

    {"format": "fabricstudio-costbook", "version": 1, "currency": "USD",
     "items": [{"class": "switch-ib-ndr-64x400g", "price": 43000, "power_w": 750,
                "rack_units": 1, "source": "...", "date": "2024-08",
                "confidence": "sourced"}, ...]}

``confidence`` is ``sourced`` (a dated public price), ``weak`` (indirect, derived or an
unofficial source) or ``placeholder`` (no public source found: override it).  Optional fields:
``label``, ``price_range`` [low, high], ``unit`` (``each`` or ``hour``) and
``power_confidence`` (when the power figure is less certain than the price).

A user's book overrides the default item by item (:meth:`CostBook.merged`): an override item
may give only the fields it changes.  Loading files is :mod:`fabricstudio.formats.costbook`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any, Final, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from fabricstudio.model.strict import StrictNumbers

COSTBOOK_FORMAT: Final = "fabricstudio-costbook"
COSTBOOK_VERSION: Final = 1
Confidence = Literal["sourced", "weak", "placeholder"]
#: Lowest first.
CONFIDENCE_ORDER: tuple[str, ...] = ("placeholder", "weak", "sourced")
#: Largest price or power a book may state (anything larger is a typo or an attack).
MAX_PRICE = 1e10
MAX_POWER_W = 1e7
MAX_ITEMS = 10_000
#: The class of the GPU-hour price used for GPU-idle money.
GPU_HOUR = "gpu-hour"


def lowest_confidence(values: Iterable[str]) -> str:
    """The lowest of ``values`` (``sourced`` when there are none)."""
    ranks = [CONFIDENCE_ORDER.index(v) for v in values if v in CONFIDENCE_ORDER]
    return CONFIDENCE_ORDER[min(ranks)] if ranks else "sourced"


def _finite(value: float, what: str) -> float:
    if not math.isfinite(value):
        raise ValueError(f"{what} must be a finite number")
    return value


class CostItem(StrictNumbers):
    """Price, power and height of one class of part (numbers are numbers: no ``true``, no
    ``"12"``)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    part: str = Field(alias="class", min_length=1, max_length=100,
                      pattern=r"^[a-z0-9][a-z0-9+._-]*$")
    label: str = Field(default="", max_length=300)
    price: float = Field(ge=0, le=MAX_PRICE, description="Per unit (per hour for unit 'hour')")
    price_range: tuple[float, float] | None = None
    power_w: float = Field(default=0.0, ge=0, le=MAX_POWER_W)
    rack_units: float = Field(default=0.0, ge=0, le=100)
    unit: Literal["each", "hour"] = "each"
    source: str = Field(default="", max_length=2000)
    date: str = Field(default="", max_length=40)
    confidence: Confidence = "placeholder"
    power_confidence: Confidence | None = None

    @field_validator("price", "power_w", "rack_units")
    @classmethod
    def _is_finite(cls, value: float) -> float:
        return _finite(value, "value")

    @field_validator("price_range", mode="before")
    @classmethod
    def _range_numbers(cls, value: Any) -> Any:
        if isinstance(value, (list, tuple)) and any(isinstance(v, (bool, str)) for v in value):
            raise ValueError("expected two numbers [low, high], found a boolean or text")
        return value

    @model_validator(mode="after")
    def _range(self) -> CostItem:
        if self.price_range is not None:
            low, high = self.price_range
            for v in (low, high):
                _finite(v, "price_range")
                if not 0 <= v <= MAX_PRICE:
                    raise ValueError(f"price_range values must be between 0 and {MAX_PRICE:g}")
            if low > high:
                raise ValueError("price_range must be [low, high] with low <= high")
        return self

    @property
    def lowest_confidence(self) -> str:
        """The lower of the price and power confidence."""
        return lowest_confidence([self.confidence, self.power_confidence or self.confidence])

    def to_json(self) -> dict[str, Any]:
        """The item as it appears in a file."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class CostBook(BaseModel):
    """A versioned set of cost items in one currency."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: Literal["fabricstudio-costbook"] = COSTBOOK_FORMAT
    version: Literal[1] = COSTBOOK_VERSION
    currency: str = Field(default="USD", pattern=r"^[A-Z]{3}$")
    items: tuple[CostItem, ...] = Field(default=(), max_length=MAX_ITEMS)
    _by_part: dict[str, CostItem] = PrivateAttr(default_factory=dict)

    def model_post_init(self, _context: Any) -> None:
        self._by_part = {item.part: item for item in self.items}

    @model_validator(mode="after")
    def _unique(self) -> CostBook:
        seen: set[str] = set()
        for item in self.items:
            if item.part in seen:
                raise ValueError(f"class {item.part!r} is listed twice")
            seen.add(item.part)
        return self

    def item(self, part: str) -> CostItem | None:
        """The item of class ``part`` (None when the book has none)."""
        return self._by_part.get(part)

    def merged(self, overrides: Iterable[Mapping[str, Any]], currency: str | None = None,
               source: str = "override") -> CostBook:
        """This book with ``overrides`` (item dicts as in a file, possibly partial) applied.

        A partial item keeps the fields it does not give; a new class needs a price.  A
        changed price without its own ``source`` is credited to ``source`` as ``sourced`` (the
        user's own figure).  ``currency`` other than this book's is refused unless every class
        is given again, since prices in two currencies cannot be added up.
        """
        items = {item.part: item for item in self.items}
        changed: list[str] = []
        for raw in overrides:
            data = dict(raw)
            part = data.get("class")
            base = items.get(part) if isinstance(part, str) else None
            if base is not None:
                merged = base.to_json()
                merged.update(data)
                if "price" in data and "source" not in data:
                    merged["source"] = source
                    merged["confidence"] = data.get("confidence", "sourced")
                    if "price_range" not in data:
                        merged.pop("price_range", None)
                data = merged
            elif "source" not in data:
                data["source"] = source
                data.setdefault("confidence", "sourced")
            try:
                item = CostItem.model_validate(data)
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first["loc"])
                if first["type"] == "number_type":
                    where = str(first.get("ctx", {}).get("field", where))
                name = part if isinstance(part, str) else "?"
                raise ValueError(f"class {name}: {where + ': ' if where else ''}"
                                 f"{first['msg']}") from None
            items[item.part] = item
            changed.append(item.part)
        book_currency = currency or self.currency
        if book_currency != self.currency:
            missing = [p for p in items if p not in changed]
            if missing:
                raise ValueError(
                    f"currency {book_currency} differs from the default book's {self.currency}: "
                    f"give every class again ({len(missing)} missing, e.g. {missing[0]})")
        return CostBook(currency=book_currency, items=tuple(items.values()))

    def to_json(self) -> dict[str, Any]:
        """The book as a file's JSON document."""
        return {"format": self.format, "version": self.version, "currency": self.currency,
                "items": [item.to_json() for item in self.items]}
