"""Sales tax at the standard rate."""
from billing.rates import apply_rate

TAX_PCT = 20


def tax_due(net_cents):
    """Tax on a net amount, rounded half up."""
    return apply_rate(net_cents, TAX_PCT)


def gross(net_cents):
    """Net amount plus its tax."""
    return net_cents + tax_due(net_cents)
