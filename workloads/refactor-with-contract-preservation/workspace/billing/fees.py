"""Card processing fees."""
from billing import rates

CARD_FEE_PCT = 3


def card_fee(amount_cents, rounding="half_even"):
    """The processor's fee on a card payment; the processor rounds half to even unless told otherwise."""
    return rates.apply_rate(amount_cents, CARD_FEE_PCT, rounding=rounding)
