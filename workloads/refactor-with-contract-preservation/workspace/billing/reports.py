from billing import fees


def fee_only(amount, rate):
    return fees.apply_fee(amount, rate) - amount
