import unittest

from billing import apply_rate


class ApplyRateTest(unittest.TestCase):
    def test_whole_result(self):
        self.assertEqual(apply_rate(2000, rate_pct=15), 300)

    def test_rounding_modes(self):
        # 1275 at 2% is 25.5, 1225 at 2% is 24.5 and 1285 at 2% is 25.7.
        self.assertEqual(apply_rate(1275, rate_pct=2), 26)
        self.assertEqual(apply_rate(1275, rate_pct=2, rounding="half_even"), 26)
        self.assertEqual(apply_rate(1225, rate_pct=2, rounding="half_even"), 24)
        self.assertEqual(apply_rate(1285, rate_pct=2, rounding="down"), 25)

    def test_rate_and_rounding_are_keyword_only(self):
        with self.assertRaises(TypeError):
            apply_rate(2000, 15)
        with self.assertRaises(TypeError):
            apply_rate(2000, 15, "down")

    def test_unknown_rounding_mode(self):
        with self.assertRaises(ValueError):
            apply_rate(100, rate_pct=5, rounding="up")


if __name__ == "__main__":
    unittest.main()
