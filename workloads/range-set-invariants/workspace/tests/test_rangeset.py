import unittest

from rangeset import RangeSet


class RangeSetTest(unittest.TestCase):
    def test_disjoint_ranges_stay_apart(self):
        self.assertEqual(RangeSet([(5, 7), (0, 2)]).ranges(), [(0, 2), (5, 7)])

    def test_overlapping_ranges_merge(self):
        self.assertEqual(RangeSet([(0, 5), (3, 8)]).ranges(), [(0, 8)])

    def test_touching_ranges_merge(self):
        self.assertEqual(RangeSet([(0, 5), (5, 10)]).ranges(), [(0, 10)])

    def test_remove_from_the_middle_splits(self):
        rs = RangeSet([(0, 10)])
        rs.remove(3, 5)
        self.assertEqual(rs.ranges(), [(0, 3), (5, 10)])

    def test_contains_and_len(self):
        rs = RangeSet([(0, 3), (10, 12)])
        self.assertIn(2, rs)
        self.assertNotIn(3, rs)
        self.assertEqual(len(rs), 5)


if __name__ == "__main__":
    unittest.main()
