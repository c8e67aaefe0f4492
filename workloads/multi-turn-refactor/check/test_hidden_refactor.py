"""Hidden check for multi-turn-refactor: calc_total is now order_total everywhere, with no alias left
behind, calc_total_weight (a different function) keeps its name, and behaviour is unchanged.

Copied to <workspace>/.bench-check/ after the last turn; run from the workspace root.
"""
import inspect
import os
import re
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.dont_write_bytecode = True
OLD_NAME = re.compile(r"\bcalc_total\b")


def _python_files():
    for folder in ("shop", "tests"):
        for dirpath, _dirs, files in os.walk(os.path.join(ROOT, folder)):
            for name in sorted(files):
                if name.endswith(".py"):
                    yield os.path.join(dirpath, name)


class RenamedTest(unittest.TestCase):
    def test_new_name_is_defined_and_exported(self):
        import shop
        from shop import pricing

        self.assertTrue(callable(getattr(pricing, "order_total", None)), "shop.pricing.order_total missing")
        self.assertIs(shop.order_total, pricing.order_total)
        self.assertIn("order_total", shop.__all__)

    def test_signature_is_unchanged(self):
        from shop import pricing

        params = inspect.signature(pricing.order_total).parameters
        self.assertEqual(list(params), ["lines", "discount_pct"])
        self.assertEqual(params["discount_pct"].default, 0)

    def test_old_name_is_gone_without_an_alias(self):
        import shop
        from shop import pricing

        self.assertFalse(hasattr(pricing, "calc_total"), "a calc_total alias is still defined")
        self.assertFalse(hasattr(shop, "calc_total"), "shop still exports calc_total")
        self.assertNotIn("calc_total", shop.__all__)

    def test_no_source_file_mentions_the_old_name(self):
        leftovers = []
        for path in _python_files():
            with open(path, encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    if OLD_NAME.search(line):
                        leftovers.append("%s:%d" % (os.path.relpath(path, ROOT), number))
        self.assertEqual(leftovers, [])


class UntouchedTest(unittest.TestCase):
    def test_calc_total_weight_keeps_its_name(self):
        import shop
        from shop import shipping

        self.assertTrue(callable(getattr(shipping, "calc_total_weight", None)), "calc_total_weight was renamed")
        self.assertIn("calc_total_weight", shop.__all__)
        self.assertFalse(hasattr(shipping, "order_total_weight"))


class BehaviourTest(unittest.TestCase):
    def _cart(self, discount_pct):
        from shop import Cart

        cart = Cart(discount_pct=discount_pct)
        cart.add("mug", 1250, 2, grams=400)
        cart.add("tea", 499, grams=250)
        cart.add("beans", 1575, 3, grams=1000)
        return cart

    def test_order_total(self):
        from shop.pricing import order_total

        self.assertEqual(order_total([(1250, 2), (499, 1)]), 2999)
        self.assertEqual(order_total([(1250, 2), (499, 1)], 10), 2699)
        self.assertEqual(order_total([]), 0)
        with self.assertRaises(ValueError):
            order_total([(100, 1)], 101)

    def test_cart_and_invoice(self):
        from shop import render_invoice

        cart = self._cart(20)
        self.assertEqual(cart.total(), 6179)
        self.assertEqual(
            render_invoice(cart),
            "beans          3 x    15.75\n"
            "mug            2 x    12.50\n"
            "tea            1 x     4.99\n"
            "goods                 61.79\n"
            "shipping               8.99\n"
            "due                   70.78\n",
        )


class VisibleSuiteTest(unittest.TestCase):
    def test_workspace_tests_pass(self):
        proc = subprocess.run(
            [sys.executable, "-B", "-m", "unittest", "discover", "-s", "tests", "-t", "."],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
        )
        self.assertEqual(proc.returncode, 0, proc.stdout)


if __name__ == "__main__":
    unittest.main()
