"""Products: what the shop sells."""


def add_product(conn, sku, name, price_cents):
    conn.execute("INSERT INTO products (sku, name, price_cents) VALUES (?, ?, ?)", (sku, name, price_cents))
    conn.commit()


def get_product(conn, sku):
    """The product as a dict, or KeyError when no product has this SKU."""
    row = conn.execute("SELECT sku, name, price_cents FROM products WHERE sku = ?", (sku,)).fetchone()
    if row is None:
        raise KeyError(sku)
    return {"sku": row[0], "name": row[1], "price_cents": row[2]}


def list_active(conn):
    """SKUs of the products on sale, in SKU order."""
    return [row[0] for row in conn.execute("SELECT sku FROM products ORDER BY sku")]


def discontinue(conn, sku):
    """Takes a product off sale for good; KeyError when no product has this SKU."""
    raise NotImplementedError("needs a discontinued flag on products")
