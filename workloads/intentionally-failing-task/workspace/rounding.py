"""Price rounding for invoices."""


def round_price(cents_times_ten):
    """Round a price given in tenths of a cent to whole cents."""
    return cents_times_ten // 10
