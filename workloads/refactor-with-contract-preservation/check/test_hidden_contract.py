import inspect
import os
import re
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from billing import fees  # noqa: E402
from billing.invoice import invoice_total, rush_invoice_total  # noqa: E402
from billing.refund import refund_amount  # noqa: E402
from billing.reports import fee_only  # noqa: E402
from billing.subscription import monthly, yearly  # noqa: E402
from scripts.monthly import run  # noqa: E402


class SignatureTest(unittest.TestCase):
    def test_rate_minimum_rounding_are_keyword_only(self):
        params = inspect.signature(fees.apply_fee).parameters
        self.assertEqual(list(params), ["amount", "rate", "minimum", "rounding"])
        self.assertEqual(params["amount"].kind, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        for name in ["rate", "minimum", "rounding"]:
            self.assertEqual(params[name].kind, inspect.Parameter.KEYWORD_ONLY, name)
        self.assertEqual(params["minimum"].default, 0)
        self.assertEqual(params["rounding"].default, "half_up")

    def test_positional_rate_is_rejected(self):
        with self.assertRaises(TypeError):
            fees.apply_fee(1000, 3)


class CallersKeepWorkingTest(unittest.TestCase):
    """All seven call sites, with the values they gave before the change."""

    def test_every_caller(self):
        self.assertEqual(invoice_total([1000, 2050]), 3142)
        self.assertEqual(rush_invoice_total([100, 5000]), 200 + 5250)
        self.assertEqual(refund_amount(1049), 1029)
        self.assertEqual(monthly(999), 1009)
        self.assertEqual(yearly(100), 1700)
        self.assertEqual(fee_only(1000, 7), 70)
        self.assertEqual(run([1000, 1999]), [1040, 2078])

    def test_no_compatibility_shim(self):
        with open(os.path.join(ROOT, "billing", "fees.py"), encoding="utf-8") as f:
            self.assertIsNone(re.search(r"\*args|\*\*kwargs", f.read()))

    def test_workspace_tests_pass(self):
        proc = subprocess.run([sys.executable, "-B", "run_tests.py"], cwd=ROOT, capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stdout)


if __name__ == "__main__":
    unittest.main()
