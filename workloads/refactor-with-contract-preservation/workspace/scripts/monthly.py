from billing.fees import apply_fee


def run(prices):
    return [apply_fee(p, 4, rounding="down") for p in prices]
