import unittest

from ledger import EntryKind, Posting, parse_line


class ParseTest(unittest.TestCase):
    def test_debit_with_memo(self):
        entry = parse_line("debit cash 12.50 coffee beans")
        self.assertEqual((entry.account, entry.amount_cents, entry.kind, entry.memo), ("cash", 1250, EntryKind.DEBIT, "coffee beans"))

    def test_credit_without_memo(self):
        entry = parse_line("credit sales 7")
        self.assertEqual((entry.account, entry.amount_cents, entry.kind, entry.memo), ("sales", 700, EntryKind.CREDIT, ""))

    def test_returns_a_posting(self):
        self.assertEqual(parse_line("credit fees 5.50 card fee"), Posting("fees", 550, EntryKind.CREDIT, "card fee"))

    def test_bad_amount(self):
        with self.assertRaises(ValueError):
            parse_line("debit cash 1.234")


if __name__ == "__main__":
    unittest.main()
