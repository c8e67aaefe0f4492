"""Interest on overdue balances."""
from functools import partial

from billing.rates import apply_rate

MONTHLY_PCT = 2

# The bank's convention for interest is half-to-even rounding.
_bankers = partial(apply_rate, rounding="half_even")


def monthly_interest(balance_cents):
    """One month's interest on an overdue balance."""
    return _bankers(balance_cents, MONTHLY_PCT)
