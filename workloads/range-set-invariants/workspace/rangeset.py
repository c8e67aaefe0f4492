"""A set of integers stored as half-open ranges [start, end)."""


class RangeSet:
    """A set of integers kept as ranges.

    Invariant: ``_ranges`` is a list of ``(start, end)`` pairs sorted by start, every pair has
    ``start < end``, and consecutive pairs neither overlap nor touch (``prev_end < next_start``), so
    each set of integers has exactly one representation. Every method keeps it.
    """

    def __init__(self, ranges=()):
        self._ranges = []
        for start, end in ranges:
            self.add(start, end)

    def ranges(self):
        """The ranges, as a new list of ``(start, end)`` pairs."""
        return list(self._ranges)

    def __contains__(self, x):
        return any(start <= x < end for start, end in self._ranges)

    def __len__(self):
        return sum(end - start for start, end in self._ranges)

    def add(self, start, end):
        """Adds every integer in [start, end). An empty or reversed range (start >= end) adds nothing."""
        if start >= end:
            return
        for i, (s, e) in enumerate(self._ranges):
            if start < e and s < end:  # overlaps this range: widen it
                self._ranges[i] = (min(s, start), max(e, end))
                return
        self._ranges.append((start, end))
        self._ranges.sort()

    def remove(self, start, end):
        """Removes every integer in [start, end). An empty or reversed range removes nothing."""
        if start >= end:
            return
        for i, (s, e) in enumerate(self._ranges):
            if s < start and end < e:  # strictly inside: split it in two
                self._ranges[i : i + 1] = [(s, start), (end, e)]
                return
            if start <= s and e <= end:  # covers it whole
                del self._ranges[i]
                return
