import unittest

from billing.invoice import invoice_total, rush_invoice_total
from billing.refund import refund_amount
from billing.subscription import monthly, yearly


class BillingTest(unittest.TestCase):
    def test_invoice(self):
        self.assertEqual(invoice_total([1000, 2050]), 1030 + 2112)

    def test_rush_minimum(self):
        self.assertEqual(rush_invoice_total([100]), 200)

    def test_refund(self):
        self.assertEqual(refund_amount(1049), 1029)

    def test_subscription(self):
        self.assertEqual(monthly(999), 1009)
        self.assertEqual(yearly(100), 1700)


if __name__ == "__main__":
    unittest.main()
