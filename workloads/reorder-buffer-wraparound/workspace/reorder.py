"""Puts a packet stream back in order: packets arrive shuffled, duplicated or late.

Sequence numbers are 16-bit and wrap around: after 65535 comes 0.
"""

MOD = 1 << 16


class Reorderer:
    """Delivers payloads in sequence order, each exactly once, starting at ``first_seq``.

    ``push(seq, payload)`` returns the payloads that became deliverable, in order. Sequence numbers
    compare modulo 2**16: a packet is accepted only when it is fewer than ``window`` steps ahead of
    the next expected number, counting forward around the wrap; anything else (already delivered,
    behind, or too far ahead) is ignored. A second copy of a packet still pending is ignored too:
    the first copy wins.
    """

    def __init__(self, first_seq=0, window=1024):
        self.next_seq = first_seq % MOD
        self.window = window
        self._pending = {}

    def push(self, seq, payload):
        if seq < self.next_seq:  # already delivered
            return []
        if seq - self.next_seq >= self.window:  # too far ahead
            return []
        self._pending[seq] = payload
        out = []
        if self.next_seq in self._pending:
            out.append(self._pending.pop(self.next_seq))
            self.next_seq += 1
        return out

    def pending(self):
        """How many accepted packets wait for an earlier one."""
        return len(self._pending)
