"""User preferences and their on-disk format."""

import json
from dataclasses import dataclass, field

FORMAT_VERSION = 1


@dataclass
class Prefs:
    theme: str = "light"
    font_size: int = 12
    recent: list = field(default_factory=list)


def dumps(prefs):
    """Serialises to the current on-disk format: a JSON object with a `version`."""
    data = {"version": FORMAT_VERSION, "theme": prefs.theme, "font_size": prefs.font_size, "recent": list(prefs.recent)}
    return json.dumps(data, sort_keys=True, ensure_ascii=False)


def loads(text):
    """Reads every format a release has written: format 1, and the unversioned format 0 of releases before 1.0."""
    data = json.loads(text)
    version = data.get("version", 0)
    if version == 0:  # font_size was a string and recent a comma-joined string
        recent = data.get("recent", "")
        return Prefs(theme=data["theme"], font_size=int(data["font_size"]), recent=recent.split(",") if recent else [])
    if version == 1:
        return Prefs(theme=data["theme"], font_size=data["font_size"], recent=list(data["recent"]))
    raise ValueError(f"unsupported prefs format version {version}")
