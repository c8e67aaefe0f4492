"""An org chart as a tree of named nodes; deleted nodes stay in place as tombstones."""


class Node:
    def __init__(self, name, children=(), tombstoned=False):
        self.name = name
        self.children = list(children)
        self.tombstoned = tombstoned


def shortest_chain(root, target):
    """Names from the root to the nearest live node called `target` (fewest edges), or None.

    Tombstoned nodes are gone: neither they nor anything under them can be part of a chain.
    """
    if root.name == target and not root.tombstoned:
        return [root.name]
    for child in root.children:
        found = shortest_chain(child, target)
        if found:
            return [root.name] + found
    return None
