from inventory.models import StockItem, StockItemSummary
from inventory.pricing import value_cents


def summarise(items: list[StockItem]) -> StockItemSummary:
    return StockItemSummary(len(items), sum(i.qty for i in items), sum(value_cents(i) for i in items))
