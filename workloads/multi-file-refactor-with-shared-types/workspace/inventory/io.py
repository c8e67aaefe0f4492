import csv

from inventory.models import StockItem


def read_items(path) -> list[StockItem]:
    with open(path, newline="", encoding="utf-8") as f:
        return [StockItem(r["sku"], int(r["qty"]), int(r["price_cents"])) for r in csv.DictReader(f)]
