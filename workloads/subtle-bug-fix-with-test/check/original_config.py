"""Configuration: built-in defaults, overlaid by the config file, overlaid by APP_* environment variables."""

DEFAULTS = {"host": "localhost", "port": 8080, "db": {"name": "app", "pool": 5, "timeout": 30}}


def merge(base, extra):
    """Overlay `extra` on `base` and return the result; neither argument is changed."""
    out = dict(base)
    out.update(extra)
    return out


def load_config(file_values, env):
    """The effective configuration. `APP_DB__POOL=9` sets cfg["db"]["pool"] to 9 (values stay strings)."""
    cfg = merge(DEFAULTS, file_values)
    for key, value in sorted(env.items()):
        if not key.startswith("APP_"):
            continue
        path = key[4:].lower().split("__")
        node = cfg
        for part in path[:-1]:
            node = node.setdefault(part, {})
        node[path[-1]] = value
    return cfg


def connection_url(cfg):
    db = cfg["db"]
    return "sqlite:///%s.db?pool=%s&timeout=%s" % (db["name"], db["pool"], db["timeout"])
