import unittest

from reorder import Reorderer


class ReordererTest(unittest.TestCase):
    def test_in_order_packets_pass_straight_through(self):
        r = Reorderer()
        self.assertEqual([r.push(i, f"p{i}") for i in range(3)], [["p0"], ["p1"], ["p2"]])

    def test_a_gap_holds_later_packets_back(self):
        r = Reorderer()
        self.assertEqual(r.push(1, "p1"), [])
        self.assertEqual(r.push(2, "p2"), [])
        self.assertEqual(r.push(0, "p0"), ["p0", "p1", "p2"])
        self.assertEqual(r.pending(), 0)

    def test_a_delivered_packet_sent_again_is_ignored(self):
        r = Reorderer()
        r.push(0, "p0")
        self.assertEqual(r.push(0, "p0"), [])

    def test_too_far_ahead_is_dropped(self):
        r = Reorderer(window=4)
        self.assertEqual(r.push(4, "p4"), [])
        self.assertEqual(r.pending(), 0)


if __name__ == "__main__":
    unittest.main()
