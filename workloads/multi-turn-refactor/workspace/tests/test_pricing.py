import unittest

from shop import apply_discount, order_total


class PricingTest(unittest.TestCase):
    def test_order_total_sums_lines_then_discounts(self):
        self.assertEqual(order_total([(1250, 2), (499, 1)]), 2999)
        self.assertEqual(order_total([(1250, 2), (499, 1)], 15), 2549)

    def test_discount_rounds_half_up(self):
        self.assertEqual(apply_discount(1005, 50), 503)


if __name__ == "__main__":
    unittest.main()
