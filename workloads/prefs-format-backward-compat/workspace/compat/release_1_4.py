"""The prefs reader of release 1.4, which users still run beside the new release (both share one
config directory). Kept here for reference and tests; do not edit: it is what users have installed.
"""

import json


def load_prefs(text):
    data = json.loads(text)
    if data.get("version") != 1:
        raise ValueError("these prefs were written by a newer release; please upgrade")
    # Unknown keys are ignored, so a newer release may add fields to format 1.
    return {"theme": data["theme"], "font_size": data["font_size"], "recent": list(data["recent"])}
