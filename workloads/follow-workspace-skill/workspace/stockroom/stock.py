"""Stock levels per product and location."""


def set_level(conn, sku, location, quantity):
    if quantity < 0:
        raise ValueError("quantity must not be negative")
    conn.execute(
        "INSERT INTO stock_levels (sku, location, quantity) VALUES (?, ?, ?) "
        "ON CONFLICT (sku, location) DO UPDATE SET quantity = excluded.quantity",
        (sku, location, quantity),
    )
    conn.commit()


def total(conn, sku):
    row = conn.execute("SELECT COALESCE(SUM(quantity), 0) FROM stock_levels WHERE sku = ?", (sku,)).fetchone()
    return row[0]
