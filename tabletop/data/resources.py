"""Where the bundled charts and scenarios are.

An installed wheel carries them inside the package (``tabletop/_data``); a checkout or an
editable install has them at the top of the repository. Both are looked for, in that order.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent  # tabletop/, above this data/ folder


def _find(name: str) -> Path:
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"bundled {name!r} folder not found next to the tabletop package")


def charts_dir() -> Path:
    return _find("charts")


def scenarios_dir() -> Path:
    return _find("scenarios")


def bundled_scenario(name: str) -> Path:
    """A bundled scenario by file name or stem (``crossroads`` or ``crossroads.yaml``)."""
    folder = scenarios_dir()
    stem = name[:-5] if name.endswith(".yaml") else name
    path = folder / f"{stem}.yaml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in folder.glob("*.yaml")))
        raise FileNotFoundError(f"no bundled scenario {name!r} (bundled: {known})")
    return path
