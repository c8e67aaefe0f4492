import unittest

from tree import Node, shortest_chain


class ShortestChainTest(unittest.TestCase):
    def test_direct_report(self):
        root = Node("ceo", [Node("cto"), Node("cfo")])
        self.assertEqual(shortest_chain(root, "cfo"), ["ceo", "cfo"])

    def test_missing_name(self):
        self.assertIsNone(shortest_chain(Node("ceo", [Node("cto")]), "coo"))

    def test_nearest_match_wins(self):
        root = Node("ceo", [Node("cto", [Node("eng", [Node("lead")])]), Node("ops", [Node("lead")])])
        self.assertEqual(shortest_chain(root, "lead"), ["ceo", "ops", "lead"])

    def test_tombstoned_target_is_skipped(self):
        root = Node("ceo", [Node("lead", tombstoned=True), Node("ops", [Node("lead")])])
        self.assertEqual(shortest_chain(root, "lead"), ["ceo", "ops", "lead"])


if __name__ == "__main__":
    unittest.main()
