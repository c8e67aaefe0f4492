import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from phone import is_nanp  # noqa: E402

VALID = ["202-555-0143", "(202) 555-0143", "202.555.0143", "2025550143", "+1 202 555 0143", "1-202-555-0143", "(202)555-0143", "+12025550143"]
INVALID = ["102-555-0143", "202-155-0143", "002-555-0143", "202-555-014", "202-555-01433", "(202 555-0143", "+2 202 555 0143", "202-555-0143 ext 1"]


class NanpCasesTest(unittest.TestCase):
    def test_sixteen_cases(self):
        wrong = [s for s in VALID if not is_nanp(s)] + [s for s in INVALID if is_nanp(s)]
        self.assertEqual(wrong, [])


if __name__ == "__main__":
    unittest.main()
