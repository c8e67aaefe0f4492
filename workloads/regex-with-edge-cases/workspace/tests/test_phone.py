import unittest

from phone import is_nanp


class PhoneTest(unittest.TestCase):
    def test_plain_ten_digits(self):
        self.assertTrue(is_nanp("2025550143"))

    def test_dashes(self):
        self.assertTrue(is_nanp("202-555-0143"))

    def test_rejects_short(self):
        self.assertFalse(is_nanp("202-555-014"))


if __name__ == "__main__":
    unittest.main()
