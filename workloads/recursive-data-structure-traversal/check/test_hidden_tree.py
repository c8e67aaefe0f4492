"""Hidden check for recursive-data-structure-traversal: shortest_chain returns the chain with the fewest
edges (leftmost on a tie) and never enters a tombstoned node or its subtree.

Random trees are compared with a reference breadth-first search, so a fix for the listed cases alone
cannot pass. Copied to <workspace>/.bench-check/ after the last turn; run from the workspace root.
"""
import inspect
import os
import random
import subprocess
import sys
import unittest
from collections import deque

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.dont_write_bytecode = True

from tree import Node, shortest_chain  # noqa: E402


def reference(root, target):
    """Breadth-first, children left to right, never entering a tombstone."""
    if root.tombstoned:
        return None
    queue = deque([(root, [root.name])])
    while queue:
        node, path = queue.popleft()
        if node.name == target:
            return path
        for child in node.children:
            if not child.tombstoned:
                queue.append((child, path + [child.name]))
    return None


def random_tree(rng, depth):
    children = [random_tree(rng, depth - 1) for _ in range(rng.randint(0, 3))] if depth > 0 else []
    return Node(rng.choice("abcde"), children, tombstoned=rng.random() < 0.2)


class TombstoneTest(unittest.TestCase):
    def test_tombstone_in_the_middle_prunes_its_subtree(self):
        root = Node("ceo", [Node("vp", [Node("lead")], tombstoned=True), Node("ops", [Node("eng", [Node("lead")])])])
        self.assertEqual(shortest_chain(root, "lead"), ["ceo", "ops", "eng", "lead"])

    def test_only_match_under_a_tombstone_is_unreachable(self):
        root = Node("ceo", [Node("cto"), Node("vp", [Node("dir", [Node("lead")])], tombstoned=True)])
        self.assertIsNone(shortest_chain(root, "lead"))

    def test_live_match_under_a_tombstoned_match_is_unreachable(self):
        root = Node("ceo", [Node("lead", [Node("lead")], tombstoned=True)])
        self.assertIsNone(shortest_chain(root, "lead"))

    def test_tombstoned_root_has_no_chains(self):
        root = Node("ceo", [Node("lead")], tombstoned=True)
        self.assertIsNone(shortest_chain(root, "lead"))
        self.assertIsNone(shortest_chain(root, "ceo"))


class NearestTest(unittest.TestCase):
    def test_root_itself(self):
        self.assertEqual(shortest_chain(Node("ceo", [Node("ceo")]), "ceo"), ["ceo"])

    def test_shallow_match_on_the_right_beats_a_deep_one_on_the_left(self):
        root = Node("ceo", [Node("a", [Node("b", [Node("c", [Node("lead")])])]), Node("x", [Node("lead")])])
        self.assertEqual(shortest_chain(root, "lead"), ["ceo", "x", "lead"])

    def test_leftmost_wins_a_tie(self):
        root = Node("ceo", [Node("a", [Node("lead")]), Node("b", [Node("lead")])])
        self.assertEqual(shortest_chain(root, "lead"), ["ceo", "a", "lead"])

    def test_matches_a_reference_search_on_random_trees(self):
        wrong = []
        for seed in range(300):
            rng = random.Random(seed)
            root = random_tree(rng, rng.randint(0, 5))
            for target in "abcdez":
                got, want = shortest_chain(root, target), reference(root, target)
                if got != want:
                    wrong.append("seed %d, target %r: got %r, want %r" % (seed, target, got, want))
        self.assertEqual(wrong[:5], [], "%d of 1800 searches differ" % len(wrong))


class ContractTest(unittest.TestCase):
    def test_signature_is_unchanged(self):
        self.assertEqual(list(inspect.signature(shortest_chain).parameters), ["root", "target"])


class VisibleSuiteTest(unittest.TestCase):
    def test_workspace_tests_pass(self):
        # The agent adds regression tests; they must pass too.
        proc = subprocess.run(
            [sys.executable, "-B", "-m", "unittest", "discover", "-s", "tests", "-t", "."],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
        )
        self.assertEqual(proc.returncode, 0, proc.stdout)


if __name__ == "__main__":
    unittest.main()
