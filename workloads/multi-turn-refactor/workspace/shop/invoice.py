"""Plain-text invoices."""
from shop import pricing
from shop.shipping import shipping_cost


def _money(cents):
    return "%d.%02d" % divmod(cents, 100)


def render_invoice(cart):
    """The invoice for a cart: one row per SKU, then goods, shipping and the amount due."""
    rows = []
    for sku, (unit, quantity, _grams) in sorted(cart.items.items()):
        rows.append("%-12s %3d x %8s" % (sku, quantity, _money(unit)))
    goods = pricing.calc_total(cart.lines(), cart.discount_pct)
    shipping = shipping_cost(cart)
    rows.append("%-18s %8s" % ("goods", _money(goods)))
    rows.append("%-18s %8s" % ("shipping", _money(shipping)))
    rows.append("%-18s %8s" % ("due", _money(goods + shipping)))
    return "\n".join(rows) + "\n"
