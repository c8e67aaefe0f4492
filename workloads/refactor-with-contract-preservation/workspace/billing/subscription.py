from billing.fees import apply_fee


def monthly(price):
    return apply_fee(price, 1)


def yearly(price):
    return apply_fee(price * 12, 1, 500)
