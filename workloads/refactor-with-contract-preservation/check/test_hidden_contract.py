"""Hidden check for refactor-with-contract-preservation: apply_rate's rate_pct and rounding are
keyword-only, amount_cents is unchanged, the arithmetic is unchanged, and all seven callers still give
the results they gave before (compared with a copy of the original apply_rate over a grid of inputs).

Copied to <workspace>/.bench-check/ after the last turn; run from the workspace root.
"""
import importlib
import inspect
import os
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.dont_write_bytecode = True

P = inspect.Parameter
AMOUNTS = list(range(-250, 2600, 7)) + [0, 1, 49, 50, 99999, 123457]
PCTS = [0, 1, 2, 3, 5, 7, 10, 12, 15, 20, 33, 50, 99, 100]


def original_apply_rate(amount_cents, rate_pct, rounding="half_up"):
    """apply_rate as it was before the refactor."""
    whole, rest = divmod(amount_cents * rate_pct, 100)
    if rounding == "down" or rest * 2 < 100:
        return whole
    if rest * 2 > 100 or rounding == "half_up":
        return whole + 1
    return whole + whole % 2


class SignatureTest(unittest.TestCase):
    def test_rate_and_rounding_are_keyword_only(self):
        from billing.rates import apply_rate

        params = inspect.signature(apply_rate).parameters
        self.assertEqual(
            [(p.name, p.kind, p.default) for p in params.values()],
            [
                ("amount_cents", P.POSITIONAL_OR_KEYWORD, P.empty),
                ("rate_pct", P.KEYWORD_ONLY, P.empty),
                ("rounding", P.KEYWORD_ONLY, "half_up"),
            ],
        )

    def test_positional_rate_is_refused(self):
        from billing.rates import apply_rate

        with self.assertRaises(TypeError):
            apply_rate(1000, 5)
        with self.assertRaises(TypeError):
            apply_rate(1000, 5, "down")

    def test_amount_by_keyword_still_works(self):
        from billing.rates import apply_rate

        self.assertEqual(apply_rate(amount_cents=1000, rate_pct=5), 50)

    def test_package_exports_the_same_function(self):
        import billing
        from billing import rates

        self.assertIs(billing.apply_rate, rates.apply_rate)


class ArithmeticTest(unittest.TestCase):
    def test_unchanged_over_a_grid(self):
        from billing.rates import ROUNDING_MODES, apply_rate

        self.assertEqual(ROUNDING_MODES, ("half_up", "half_even", "down"))
        wrong = []
        for amount in AMOUNTS:
            for pct in PCTS:
                if apply_rate(amount, rate_pct=pct) != original_apply_rate(amount, pct):
                    wrong.append((amount, pct, "default"))
                for mode in ROUNDING_MODES:
                    if apply_rate(amount, rate_pct=pct, rounding=mode) != original_apply_rate(amount, pct, mode):
                        wrong.append((amount, pct, mode))
        self.assertEqual(wrong[:5], [], "%d results changed" % len(wrong))

    def test_unknown_mode_still_rejected(self):
        from billing.rates import apply_rate

        with self.assertRaises(ValueError):
            apply_rate(100, rate_pct=5, rounding="up")


class CallersTest(unittest.TestCase):
    """Each of the seven callers, with the results it gave before the change."""

    def test_tax(self):
        from billing.tax import gross, tax_due

        for net in AMOUNTS:
            self.assertEqual(tax_due(net), original_apply_rate(net, 20), net)
            self.assertEqual(gross(net), net + original_apply_rate(net, 20), net)

    def test_member_discount_rounds_down(self):
        from billing.discount import member_discount, member_price

        for price in AMOUNTS:
            self.assertEqual(member_discount(price), original_apply_rate(price, 15, "down"), price)
            self.assertEqual(member_price(price), price - original_apply_rate(price, 15, "down"), price)

    def test_card_fee(self):
        from billing.fees import card_fee

        for amount in AMOUNTS:
            self.assertEqual(card_fee(amount), original_apply_rate(amount, 3, "half_even"), amount)
            for mode in ("half_up", "down"):
                self.assertEqual(card_fee(amount, mode), original_apply_rate(amount, 3, mode), (amount, mode))
                self.assertEqual(card_fee(amount, rounding=mode), original_apply_rate(amount, 3, mode), (amount, mode))

    def test_batch(self):
        from billing.batch import apply_rates

        pcts = [PCTS[i % len(PCTS)] for i in range(len(AMOUNTS))]
        self.assertEqual(apply_rates(AMOUNTS, pcts), [original_apply_rate(a, p) for a, p in zip(AMOUNTS, pcts)])
        self.assertEqual(apply_rates([], []), [])
        self.assertEqual(apply_rates((1275, 1225, 999), iter([2, 2])), [26, 25])

    def test_commission_by_tier(self):
        from billing.commission import commission

        for sales, pct in [(0, 5), (1, 5), (99999, 5), (100000, 7), (123457, 7), (499999, 7), (500000, 10), (987654, 10)]:
            self.assertEqual(commission(sales), original_apply_rate(sales, pct), sales)

    def test_monthly_interest_rounds_half_even(self):
        from billing.interest import monthly_interest

        for balance in range(0, 5000, 25):
            self.assertEqual(monthly_interest(balance), original_apply_rate(balance, 2, "half_even"), balance)

    def test_statement_line(self):
        from billing.report import statement_line

        self.assertEqual(statement_line("March", 12345), "March           123.45    24.69    148.14")
        self.assertEqual(statement_line("April", 2), "April             0.02     0.00      0.02")

    def test_callers_keep_their_own_signatures(self):
        expected = {
            "tax.tax_due": ["net_cents"],
            "tax.gross": ["net_cents"],
            "discount.member_discount": ["price_cents"],
            "discount.member_price": ["price_cents"],
            "fees.card_fee": ["amount_cents", "rounding"],
            "batch.apply_rates": ["amounts", "pcts"],
            "commission.commission": ["sales_cents"],
            "interest.monthly_interest": ["balance_cents"],
            "report.statement_line": ["label", "net_cents"],
        }
        for dotted, names in expected.items():
            module, name = dotted.split(".")
            # import_module: the package re-exports functions named like their modules (commission).
            function = getattr(importlib.import_module("billing." + module), name)
            self.assertEqual(list(inspect.signature(function).parameters), names, dotted)
        from billing.fees import card_fee

        self.assertEqual(inspect.signature(card_fee).parameters["rounding"].default, "half_even")


class VisibleSuiteTest(unittest.TestCase):
    def test_workspace_tests_pass(self):
        proc = subprocess.run(
            [sys.executable, "-B", "-m", "unittest", "discover", "-s", "tests", "-t", "."],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
        )
        self.assertEqual(proc.returncode, 0, proc.stdout)


if __name__ == "__main__":
    unittest.main()
