"""Member discounts."""
from billing.rates import apply_rate

MEMBER_PCT = 15


def member_discount(price_cents):
    """The member discount on a price, rounded down so we never give away a part of a cent."""
    return apply_rate(price_cents, MEMBER_PCT, "down")


def member_price(price_cents):
    """What a member pays."""
    return price_cents - member_discount(price_cents)
