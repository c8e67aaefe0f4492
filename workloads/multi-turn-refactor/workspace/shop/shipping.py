"""Shipping is priced by parcel weight."""

FIRST_KG_CENTS = 499
EXTRA_KG_CENTS = 100


def calc_total_weight(cart):
    """Weight of everything in the cart, in grams."""
    return sum(quantity * grams for _unit_cents, quantity, grams in cart.items.values())


def shipping_cost(cart):
    """Cents to ship the cart: the first kilogram, then each started extra kilogram; nothing when empty."""
    grams = calc_total_weight(cart)
    if grams == 0:
        return 0
    return FIRST_KG_CENTS + EXTRA_KG_CENTS * ((grams - 1) // 1000)
