import unittest

from shop import Cart, render_invoice


class InvoiceTest(unittest.TestCase):
    def test_invoice_rows_and_totals(self):
        cart = Cart(discount_pct=10)
        cart.add("mug", 1250, 2, grams=400)
        cart.add("tea", 499, grams=250)
        self.assertEqual(
            render_invoice(cart),
            "mug            2 x    12.50\n"
            "tea            1 x     4.99\n"
            "goods                 26.99\n"
            "shipping               5.99\n"
            "due                   32.98\n",
        )


if __name__ == "__main__":
    unittest.main()
