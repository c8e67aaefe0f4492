"""Sales commission by tier."""
from billing.rates import apply_rate

# (monthly sales from, commission percent), lowest tier first.
TIERS = ((0, 5), (100000, 7), (500000, 10))


def _tier(sales_cents):
    """The sales and the commission percent of the highest tier they reach."""
    pct = 0
    for start, tier_pct in TIERS:
        if sales_cents >= start:
            pct = tier_pct
    return sales_cents, pct


def commission(sales_cents):
    """Commission on a month's sales at the tier they reach, rounded half up."""
    return apply_rate(*_tier(sales_cents))
