"""Rates over many amounts at once, for the nightly run."""
from billing.rates import apply_rate


def apply_rates(amounts, pcts):
    """apply_rate (rounded half up) for each amount with the percentage at the same position."""
    return list(map(apply_rate, amounts, pcts))
