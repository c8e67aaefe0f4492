import unittest

from ledger import Journal, parse_line


class JournalTest(unittest.TestCase):
    def test_keeps_posting_order(self):
        journal = Journal()
        for line in ("debit cash 10", "credit sales 10", "debit cash 2.50"):
            journal.post(parse_line(line))
        self.assertEqual(len(journal), 3)
        self.assertEqual([e.amount_cents for e in journal.for_account("cash")], [1000, 250])

    def test_rejects_other_objects(self):
        with self.assertRaises(TypeError):
            Journal().post(("cash", 1000))


if __name__ == "__main__":
    unittest.main()
