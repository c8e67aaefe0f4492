"""An org chart as a tree of named nodes; deleted nodes stay in place as tombstones."""


class Node:
    """A post in the chart: a name, its direct reports in order, and whether it was deleted."""

    def __init__(self, name, children=(), tombstoned=False):
        self.name = name
        self.children = list(children)
        self.tombstoned = tombstoned


def shortest_chain(root, target):
    """Names from the root to the nearest live node called `target`, or None when there is none.

    Nearest means fewest edges; between equally near matches, the leftmost one wins (the first met
    reading the chart level by level, children left to right). Tombstoned nodes are gone: neither
    they nor anything under them can be part of a chain.
    """
    if root.name == target and not root.tombstoned:
        return [root.name]
    for child in root.children:
        found = shortest_chain(child, target)
        if found:
            return [root.name] + found
    return None
