from inventory.models import StockItem


class Store:
    def __init__(self):
        self.items: dict[str, StockItem] = {}

    def receive(self, sku: str, qty: int, price_cents: int) -> StockItem:
        old = self.items.get(sku)
        item = StockItem(sku, (old.qty if old else 0) + qty, price_cents)
        self.items[sku] = item
        return item
