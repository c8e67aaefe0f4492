"""Hidden check for reorder-buffer-wraparound: Reorderer delivers every payload exactly once, in
sequence order, across the 16-bit wrap, ignoring late, duplicate and too-far-ahead packets, with the
first copy of a pending packet winning.

Random shuffled, duplicated streams (many starting just before the wrap) are pushed into Reorderer
and into a reference model of the docstring, and every push must return the same payloads; so a fix
for the visible examples alone cannot pass. Copied to <workspace>/.bench-check/ after the last turn;
run from the workspace root.
"""
import inspect
import os
import random
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.dont_write_bytecode = True

from reorder import MOD, Reorderer  # noqa: E402


class Reference:
    """The docstring, written out."""

    def __init__(self, first_seq, window):
        self.next_seq, self.window, self.held = first_seq % MOD, window, {}

    def push(self, seq, payload):
        if (seq - self.next_seq) % MOD >= self.window or seq in self.held:
            return []
        self.held[seq] = payload
        out = []
        while self.next_seq in self.held:
            out.append(self.held.pop(self.next_seq))
            self.next_seq = (self.next_seq + 1) % MOD
        return out


def arrivals(rng, first, length, spread, dup_rate):
    """A stream of `length` packets from `first`, shuffled by up to `spread`, with resent copies."""
    keyed = sorted(range(length), key=lambda i: i + rng.uniform(0, spread))
    out = []
    for i in keyed:
        seq = (first + i) % MOD
        out.append((seq, (seq, 0)))
        if rng.random() < dup_rate:  # a copy, now or a little later, possibly after delivery
            out.insert(min(len(out), len(out) - rng.randint(0, 3) + rng.randint(0, 6)), (seq, (seq, 1)))
    return out


class ReordererPropertyTest(unittest.TestCase):
    def run_both(self, first, window, packets):
        r, ref = Reorderer(first, window), Reference(first, window)
        for n, (seq, payload) in enumerate(packets):
            got, want = r.push(seq, payload), ref.push(seq, payload)
            self.assertEqual(got, want, f"first_seq={first} window={window}, push #{n} of seq {seq}")
        self.assertEqual(r.pending(), len(ref.held), f"first_seq={first} window={window}: pending()")

    def test_shuffled_streams_across_the_wrap_match_the_reference(self):
        rng = random.Random(3)
        for _ in range(600):
            first = rng.choice([0, rng.randrange(MOD), MOD - rng.randint(1, 40)])
            length = rng.randint(1, 80)
            self.run_both(first, 1024, arrivals(rng, first, length, rng.choice([1, 3, 8]), 0.2))

    def test_every_payload_once_and_in_order(self):
        rng = random.Random(8)
        for _ in range(300):
            first = MOD - rng.randint(1, 30)
            length = rng.randint(1, 60)
            r = Reorderer(first)
            out = []
            for seq, payload in arrivals(rng, first, length, 6, 0.3):
                out.extend(r.push(seq, payload))
            # Each payload names its packet: every number once, in stream order (which copy is the reference test's business).
            self.assertEqual([seq for seq, _copy in out], [(first + i) % MOD for i in range(length)], f"first_seq={first}")
            self.assertEqual(r.pending(), 0)

    def test_small_windows_with_arbitrary_arrivals(self):
        rng = random.Random(21)
        for _ in range(1500):
            first = rng.choice([0, MOD - rng.randint(1, 6)])
            window = rng.randint(1, 6)
            packets = [((first + rng.randint(-4, 9)) % MOD, n) for n in range(rng.randint(1, 25))]
            self.run_both(first, window, packets)


class ContractTest(unittest.TestCase):
    def test_signatures_are_kept(self):
        self.assertEqual(list(inspect.signature(Reorderer.push).parameters), ["self", "seq", "payload"])
        self.assertEqual(list(inspect.signature(Reorderer.__init__).parameters), ["self", "first_seq", "window"])

    def test_the_workspace_suite_passes(self):
        r = subprocess.run([sys.executable, "-B", "run_tests.py"], cwd=ROOT, capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stdout[-2000:] + r.stderr[-2000:])


if __name__ == "__main__":
    unittest.main()
