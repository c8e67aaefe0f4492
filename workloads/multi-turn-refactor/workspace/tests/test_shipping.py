import unittest

from shop import Cart, calc_total_weight, shipping_cost


class ShippingTest(unittest.TestCase):
    def test_weight_counts_quantities(self):
        cart = Cart()
        cart.add("mug", 1250, 2, grams=400)
        cart.add("tea", 499, grams=250)
        self.assertEqual(calc_total_weight(cart), 1050)

    def test_each_started_extra_kilogram_costs_more(self):
        cart = Cart()
        cart.add("mug", 1250, 2, grams=400)
        cart.add("tea", 499, grams=250)
        self.assertEqual(shipping_cost(cart), 599)

    def test_empty_cart_ships_free(self):
        self.assertEqual(shipping_cost(Cart()), 0)


if __name__ == "__main__":
    unittest.main()
