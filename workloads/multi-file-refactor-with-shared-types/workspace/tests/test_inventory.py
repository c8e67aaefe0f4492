import os
import tempfile
import unittest

from inventory import StockItem
from inventory.io import read_items
from inventory.report import summarise
from inventory.store import Store


class InventoryTest(unittest.TestCase):
    def test_receive_accumulates(self):
        store = Store()
        store.receive("a", 2, 100)
        self.assertEqual(store.receive("a", 3, 120), StockItem("a", 5, 120))

    def test_summary(self):
        s = summarise([StockItem("a", 2, 100), StockItem("b", 1, 50)])
        self.assertEqual((s.skus, s.units, s.value_cents), (2, 3, 250))

    def test_read_items(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "items.csv")
            with open(p, "w", encoding="utf-8") as f:
                f.write("sku,qty,price_cents\na,2,100\n")
            self.assertEqual(read_items(p), [StockItem("a", 2, 100)])


if __name__ == "__main__":
    unittest.main()
