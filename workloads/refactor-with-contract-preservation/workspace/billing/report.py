"""Statement lines for the monthly customer statement."""
from billing.rates import apply_rate
from billing.tax import TAX_PCT


def _money(cents):
    return "%d.%02d" % divmod(cents, 100)


def statement_line(label, net_cents):
    """`label net tax gross`, with tax at the standard rate."""
    tax = apply_rate(amount_cents=net_cents, rate_pct=TAX_PCT)
    return "%-12s %9s %8s %9s" % (label, _money(net_cents), _money(tax), _money(net_cents + tax))
