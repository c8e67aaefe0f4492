import unittest

from billing import card_fee, gross, member_price, tax_due


class CallersTest(unittest.TestCase):
    def test_tax(self):
        self.assertEqual(tax_due(1000), 200)
        self.assertEqual(gross(1000), 1200)

    def test_member_price(self):
        self.assertEqual(member_price(2000), 1700)

    def test_card_fee(self):
        self.assertEqual(card_fee(5000), 150)


if __name__ == "__main__":
    unittest.main()
