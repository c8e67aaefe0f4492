from billing.fees import apply_fee


def refund_amount(paid):
    """What goes back to the customer: the payment minus the (rounded-down) processing fee."""
    return paid - (apply_fee(paid, 2, 0, "down") - paid)
