import unittest

from pager import iter_pages, page_bounds, page_count


class IterPagesTest(unittest.TestCase):
    def test_full_pages(self):
        self.assertEqual(list(iter_pages([1, 2, 3, 4, 5, 6], 3)), [[1, 2, 3], [4, 5, 6]])

    def test_partial_last_page(self):
        self.assertEqual(list(iter_pages([1, 2, 3, 4, 5, 6, 7], 3)), [[1, 2, 3], [4, 5, 6], [7]])


class PageBoundsTest(unittest.TestCase):
    def test_first_page(self):
        self.assertEqual(page_bounds(1, 5, 12), (0, 5))

    def test_page_past_the_end_is_rejected(self):
        with self.assertRaises(IndexError):
            page_bounds(4, 5, 12)

    def test_per_page_must_be_positive(self):
        with self.assertRaises(ValueError):
            page_count(3, 0)


if __name__ == "__main__":
    unittest.main()
