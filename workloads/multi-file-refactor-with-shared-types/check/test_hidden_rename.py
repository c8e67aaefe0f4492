import dataclasses
import os
import re
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import inventory  # noqa: E402
from inventory import models  # noqa: E402


def sources():
    for folder in ["inventory", "tests"]:
        for name in sorted(os.listdir(os.path.join(ROOT, folder))):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                    yield path, f.read()


class RenameTest(unittest.TestCase):
    def test_new_type_with_the_same_fields(self):
        self.assertEqual([f.name for f in dataclasses.fields(models.InventoryItem)], ["sku", "qty", "price_cents"])
        self.assertEqual(inventory.__all__, ["InventoryItem", "StockItemSummary"])

    def test_old_name_is_gone_everywhere(self):
        left = [p for p, text in sources() if re.search(r"\bStockItem\b", text)]
        self.assertEqual(left, [])
        self.assertFalse(hasattr(models, "StockItem"), "no alias left behind")

    def test_the_decoy_keeps_its_name(self):
        self.assertTrue(hasattr(models, "StockItemSummary"))
        self.assertFalse(any("InventoryItemSummary" in text for _, text in sources()))

    def test_behaviour_unchanged(self):
        proc = subprocess.run([sys.executable, "-B", "run_tests.py"], cwd=ROOT, capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stdout)


if __name__ == "__main__":
    unittest.main()
