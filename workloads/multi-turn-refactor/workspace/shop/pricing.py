"""Prices are integer cents throughout, so totals never pick up float rounding errors."""


def apply_discount(cents, discount_pct):
    """Cents left after taking discount_pct percent off, rounded half up to a whole cent."""
    if not 0 <= discount_pct <= 100:
        raise ValueError("discount_pct must be between 0 and 100")
    return (cents * (100 - discount_pct) + 50) // 100


def calc_total(lines, discount_pct=0):
    """Total in cents of (unit_cents, quantity) lines, after an order-wide discount."""
    subtotal = sum(unit_cents * quantity for unit_cents, quantity in lines)
    return apply_discount(subtotal, discount_pct)
