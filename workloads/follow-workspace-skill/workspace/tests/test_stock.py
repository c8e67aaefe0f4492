import sqlite3
import unittest

from stockroom.db import connect, migrate
from stockroom.products import add_product
from stockroom.stock import set_level, total


class StockTest(unittest.TestCase):
    def setUp(self):
        self.conn = migrate(connect())
        add_product(self.conn, "A-100", "Anchor", 240)

    def test_levels_add_up_across_locations(self):
        set_level(self.conn, "A-100", "north", 3)
        set_level(self.conn, "A-100", "south", 4)
        set_level(self.conn, "A-100", "north", 5)
        self.assertEqual(total(self.conn, "A-100"), 9)

    def test_unknown_product_is_rejected(self):
        with self.assertRaises(sqlite3.IntegrityError):
            set_level(self.conn, "Z-999", "north", 1)


if __name__ == "__main__":
    unittest.main()
