"""Percentage rates applied to integer-cent amounts, with an explicit rounding mode."""

ROUNDING_MODES = ("half_up", "half_even", "down")


def apply_rate(amount_cents, rate_pct, rounding="half_up"):
    """rate_pct percent of amount_cents, in whole cents.

    rounding: "half_up" rounds halves up, "half_even" rounds halves to the even cent, and "down"
    drops the fraction (towards minus infinity, like `//`).
    """
    if rounding not in ROUNDING_MODES:
        raise ValueError("unknown rounding mode: %r" % (rounding,))
    whole, rest = divmod(amount_cents * rate_pct, 100)
    if rounding == "down" or rest * 2 < 100:
        return whole
    if rest * 2 > 100 or rounding == "half_up":
        return whole + 1
    return whole + whole % 2  # an exact half under half_even: go to the even neighbour
