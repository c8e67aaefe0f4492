from inventory.models import StockItem


def value_cents(thing) -> int:
    if not isinstance(thing, StockItem):
        raise TypeError("value_cents needs a StockItem")
    return thing.qty * thing.price_cents
