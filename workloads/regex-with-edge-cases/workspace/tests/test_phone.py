import unittest

from phone import is_nanp


class PhoneTest(unittest.TestCase):
    def test_plain_ten_digits(self):
        self.assertTrue(is_nanp("2025550143"))

    def test_dashes(self):
        self.assertTrue(is_nanp("202-555-0143"))

    def test_parenthesised_area_code(self):
        self.assertTrue(is_nanp("(202) 555-0143"))

    def test_rejects_short(self):
        self.assertFalse(is_nanp("202-555-014"))

    def test_rejects_letters(self):
        self.assertFalse(is_nanp("202-555-01a3"))


if __name__ == "__main__":
    unittest.main()
