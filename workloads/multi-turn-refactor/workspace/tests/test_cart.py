import unittest

from shop import Cart


class CartTest(unittest.TestCase):
    def test_total_without_discount(self):
        cart = Cart()
        cart.add("mug", 1250, 2)
        cart.add("tea", 499)
        self.assertEqual(cart.total(), 2999)

    def test_total_with_discount(self):
        cart = Cart(discount_pct=15)
        cart.add("mug", 1250, 2)
        cart.add("tea", 499)
        self.assertEqual(cart.total(), 2549)

    def test_adding_again_increases_quantity(self):
        cart = Cart()
        cart.add("tea", 499)
        cart.add("tea", 499, 2)
        self.assertEqual(cart.total(), 1497)


if __name__ == "__main__":
    unittest.main()
