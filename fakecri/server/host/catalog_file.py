"""Read an image catalog file (JSON or YAML) into a Catalog."""
from __future__ import annotations

import json
from pathlib import Path

from fakecri.engine.errors import InvalidArgument
from fakecri.sim.catalog import Catalog


def load_catalog(path: str | Path) -> Catalog:
    """Load a JSON (`.json`) or YAML (anything else) catalog file; InvalidArgument naming the
    file and what is wrong."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise InvalidArgument(f"image catalog {p}: not UTF-8 text (byte {e.start})") from None
    except OSError as e:
        raise InvalidArgument(f"image catalog {p}: cannot read it: {e.strerror or e}") from None
    try:
        if p.suffix == ".json":
            data = json.loads(text)
        else:
            import yaml  # a declared dependency, needed only for YAML catalogs

            data = yaml.safe_load(text)
    except RecursionError:
        raise InvalidArgument(f"image catalog {p}: nested too deeply") from None
    except ValueError as e:
        raise InvalidArgument(f"image catalog {p}: not valid JSON: {e}") from None
    except Exception as e:  # yaml.YAMLError and its kin: the message says where
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise InvalidArgument(f"image catalog {p}: not valid YAML: {first}") from None
    return Catalog.from_dict(data if data is not None else {}, source=str(p))
