import unittest

from rounding import round_price


class RoundingTest(unittest.TestCase):
    # Finance requires half-up rounding: 12.5 cents is billed as 13.
    def test_half_rounds_up_for_finance(self):
        self.assertEqual(round_price(125), 13)

    # Legal requires that a customer is never billed more than the exact price: 12.5 cents is 12.
    def test_never_bill_above_exact_price_for_legal(self):
        self.assertEqual(round_price(125), 12)


if __name__ == "__main__":
    unittest.main()
