"""Hidden check for range-set-invariants: after any sequence of adds and removes, RangeSet holds
exactly the integers a plain Python set would, and its ranges keep the class invariant (sorted,
non-empty, neither overlapping nor touching).

Thousands of random operation sequences, plus every add/remove over a small grid against a few
starting sets, are compared with a set of integers, so fixing the listed examples alone cannot pass.
Copied to <workspace>/.bench-check/ after the last turn; run from the workspace root.
"""
import inspect
import itertools
import os
import random
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.dont_write_bytecode = True

from rangeset import RangeSet  # noqa: E402


def invariant_problem(pairs):
    """Why `pairs` breaks the invariant, or None."""
    for start, end in pairs:
        if not start < end:
            return f"empty or reversed range {(start, end)}"
    for (s1, e1), (s2, e2) in zip(pairs, pairs[1:]):
        if not e1 < s2:
            return f"{(s1, e1)} and {(s2, e2)} overlap, touch or are out of order"
    return None


def members(pairs):
    return {x for start, end in pairs for x in range(start, end)}


class RangeSetPropertyTest(unittest.TestCase):
    def assertSame(self, rs, model, history):
        pairs = rs.ranges()
        problem = invariant_problem(pairs)
        self.assertIsNone(problem, f"after {history}: {pairs}: {problem}")
        self.assertEqual(members(pairs), model, f"after {history}: {pairs}")
        self.assertEqual(len(rs), len(model), f"after {history}: len")

    def test_random_operation_sequences(self):
        rng = random.Random(11)
        for _ in range(2500):
            rs, model, history = RangeSet(), set(), []
            for _ in range(rng.randint(1, 12)):
                op = rng.choice(("add", "add", "remove"))
                start, end = rng.randint(-3, 30), rng.randint(-3, 30)
                history.append((op, start, end))
                getattr(rs, op)(start, end)
                if op == "add":
                    model |= set(range(start, end))
                else:
                    model -= set(range(start, end))
                self.assertSame(rs, model, history)

    def test_every_small_add_and_remove(self):
        bases = [[], [(2, 4)], [(0, 3), (5, 6), (8, 10)], [(1, 2), (3, 4), (5, 6), (7, 8)]]
        for base, op, start, end in itertools.product(bases, ("add", "remove"), range(0, 11), range(0, 11)):
            rs = RangeSet(base)
            model = members(base)
            getattr(rs, op)(start, end)
            model = model | set(range(start, end)) if op == "add" else model - set(range(start, end))
            self.assertSame(rs, model, [("base", base), (op, start, end)])

    def test_membership_agrees_with_the_ranges(self):
        rng = random.Random(5)
        for _ in range(300):
            rs = RangeSet((rng.randint(0, 20), rng.randint(0, 20)) for _ in range(rng.randint(0, 6)))
            model = members(rs.ranges())
            for x in range(-2, 23):
                self.assertEqual(x in rs, x in model, (rs.ranges(), x))

    def test_ranges_returns_a_copy(self):
        rs = RangeSet([(0, 3)])
        rs.ranges().append((10, 20))
        self.assertEqual(rs.ranges(), [(0, 3)])


class ContractTest(unittest.TestCase):
    def test_signatures_are_kept(self):
        self.assertEqual(list(inspect.signature(RangeSet.add).parameters), ["self", "start", "end"])
        self.assertEqual(list(inspect.signature(RangeSet.remove).parameters), ["self", "start", "end"])

    def test_the_workspace_suite_passes(self):
        r = subprocess.run([sys.executable, "-B", "run_tests.py"], cwd=ROOT, capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stdout[-2000:] + r.stderr[-2000:])


if __name__ == "__main__":
    unittest.main()
