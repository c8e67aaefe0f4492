from inventory.models import StockItem, StockItemSummary

__all__ = ["StockItem", "StockItemSummary"]
