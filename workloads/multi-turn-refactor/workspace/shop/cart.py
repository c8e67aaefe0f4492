"""A shopping cart: items by SKU with quantities and weights."""
from shop.pricing import calc_total


class Cart:
    """Items keyed by SKU, each (unit_cents, quantity, grams), plus an order-wide discount."""

    def __init__(self, discount_pct=0):
        self.discount_pct = discount_pct
        self.items = {}

    def add(self, sku, unit_cents, quantity=1, grams=0):
        """Adds quantity of an item; adding a SKU again increases its quantity."""
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        _unit, held, _grams = self.items.get(sku, (unit_cents, 0, grams))
        self.items[sku] = (unit_cents, held + quantity, grams)

    def lines(self):
        """(unit_cents, quantity) per item, in SKU order."""
        return [(unit, quantity) for _sku, (unit, quantity, _grams) in sorted(self.items.items())]

    def total(self):
        """Goods total in cents after the cart's discount (shipping not included)."""
        return calc_total(self.lines(), self.discount_pct)
