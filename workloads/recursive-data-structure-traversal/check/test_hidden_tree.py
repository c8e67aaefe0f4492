import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tree import Node, shortest_chain  # noqa: E402


class HiddenChainTest(unittest.TestCase):
    def test_prefers_the_shallowest_match(self):
        deep = Node("a", [Node("b", [Node("lead")])])
        root = Node("ceo", [deep, Node("lead")])
        self.assertEqual(shortest_chain(root, "lead"), ["ceo", "lead"])

    def test_tombstone_in_the_middle_prunes_its_subtree(self):
        root = Node("ceo", [Node("vp", [Node("lead")], tombstoned=True), Node("x", [Node("y", [Node("lead")])])])
        self.assertEqual(shortest_chain(root, "lead"), ["ceo", "x", "y", "lead"])

    def test_only_match_under_a_tombstone_is_unreachable(self):
        root = Node("ceo", [Node("vp", [Node("lead")], tombstoned=True)])
        self.assertIsNone(shortest_chain(root, "lead"))

    def test_tombstoned_target_is_skipped(self):
        root = Node("ceo", [Node("lead", tombstoned=True), Node("x", [Node("lead")])])
        self.assertEqual(shortest_chain(root, "lead"), ["ceo", "x", "lead"])

    def test_tombstoned_root(self):
        self.assertIsNone(shortest_chain(Node("ceo", [Node("lead")], tombstoned=True), "lead"))

    def test_visible_cases_still_hold(self):
        root = Node("ceo", [Node("cto"), Node("cfo")])
        self.assertEqual(shortest_chain(root, "cfo"), ["ceo", "cfo"])
        self.assertIsNone(shortest_chain(root, "coo"))


if __name__ == "__main__":
    unittest.main()
