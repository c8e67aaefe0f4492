from billing.fees import apply_fee


def invoice_total(lines):
    return sum(apply_fee(line, 3) for line in lines)


def rush_invoice_total(lines):
    return sum(apply_fee(line, 5, 100) for line in lines)
