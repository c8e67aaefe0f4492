"""Pagination helpers for the listing pages: how many pages there are and which items each shows."""


def page_count(total_items, per_page):
    """Number of pages needed to show total_items, per_page at a time (0 items -> 0 pages)."""
    if per_page <= 0:
        raise ValueError("per_page must be positive")
    if total_items < 0:
        raise ValueError("total_items must not be negative")
    return total_items // per_page


def page_bounds(page, per_page, total_items):
    """Half-open [start, end) indices of the items shown on a 1-based page."""
    if page < 1 or page > page_count(total_items, per_page):
        raise IndexError("page %d out of range" % page)
    start = (page - 1) * per_page
    return start, min(start + per_page, total_items)


def iter_pages(items, per_page):
    """Yields each page of items as a list, first page first."""
    for page in range(1, page_count(len(items), per_page) + 1):
        start, end = page_bounds(page, per_page, len(items))
        yield list(items[start:end])
