from dataclasses import dataclass


@dataclass(frozen=True)
class StockItem:
    """One SKU held in stock."""

    sku: str
    qty: int
    price_cents: int


@dataclass(frozen=True)
class StockItemSummary:
    """Totals over many items; a different type that only shares a prefix."""

    skus: int
    units: int
    value_cents: int
