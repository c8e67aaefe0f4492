import unittest

from stockroom.db import connect, migrate
from stockroom.products import add_product, discontinue, get_product, list_active


class ProductsTest(unittest.TestCase):
    def setUp(self):
        self.conn = migrate(connect())
        add_product(self.conn, "B-200", "Bolt", 15)
        add_product(self.conn, "A-100", "Anchor", 240)
        add_product(self.conn, "C-300", "Clamp", 90)

    def test_get_product(self):
        self.assertEqual(get_product(self.conn, "A-100"), {"sku": "A-100", "name": "Anchor", "price_cents": 240})
        with self.assertRaises(KeyError):
            get_product(self.conn, "Z-999")

    def test_new_products_are_active(self):
        self.assertEqual(list_active(self.conn), ["A-100", "B-200", "C-300"])

    def test_discontinued_products_are_not_listed(self):
        discontinue(self.conn, "B-200")
        self.assertEqual(list_active(self.conn), ["A-100", "C-300"])
        # A discontinued product still exists: old orders refer to it.
        self.assertEqual(get_product(self.conn, "B-200")["name"], "Bolt")

    def test_discontinue_is_idempotent(self):
        discontinue(self.conn, "C-300")
        discontinue(self.conn, "C-300")
        self.assertEqual(list_active(self.conn), ["A-100", "B-200"])

    def test_discontinue_unknown_sku_raises(self):
        with self.assertRaises(KeyError):
            discontinue(self.conn, "Z-999")
        self.assertEqual(list_active(self.conn), ["A-100", "B-200", "C-300"])


if __name__ == "__main__":
    unittest.main()
