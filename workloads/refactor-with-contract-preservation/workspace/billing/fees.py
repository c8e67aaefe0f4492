def apply_fee(amount, rate, minimum=0, rounding="half_up"):
    """`amount` cents plus a fee of `rate` percent, at least `minimum` cents; `rounding` is half_up or down."""
    raw = amount * rate
    fee = (raw + 50) // 100 if rounding == "half_up" else raw // 100
    return amount + max(fee, minimum)
