import unittest

from ledger import EntryKind, balances, parse_line, render_balances, turnover

LINES = ["debit cash 100", "credit sales 100", "debit cash 25.50", "credit sales 20", "credit fees 5.50"]


class BalanceTest(unittest.TestCase):
    def setUp(self):
        self.entries = [parse_line(line) for line in LINES]

    def test_balances(self):
        self.assertEqual(balances(self.entries), {"cash": 12550, "fees": -550, "sales": -12000})

    def test_turnover(self):
        self.assertEqual(turnover(self.entries, EntryKind.DEBIT), 12550)
        self.assertEqual(turnover(self.entries, EntryKind.CREDIT), 12550)

    def test_report(self):
        self.assertEqual(
            render_balances(self.entries),
            "cash             125.50\n"
            "fees              -5.50\n"
            "sales           -120.00\n"
            "total              0.00\n",
        )


if __name__ == "__main__":
    unittest.main()
