"""The three scale profiles every experiment defines (see DESIGN.md, "Scales")."""

from __future__ import annotations

from typing import Literal

Scale = Literal["smoke", "small", "paper"]
SCALES: tuple[Scale, ...] = ("smoke", "small", "paper")
SCALE_MEANING = {
    "smoke": "seconds to a minute per notebook on 2 CPU cores; what CI runs",
    "small": "the paper's whole design at reduced compute; CPU hours",
    "paper": "the paper's own settings; GPU; may take hours",
}


def check_scale(scale: str) -> Scale:
    """Return ``scale`` if it is one of :data:`SCALES`, else raise a ValueError listing them."""
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {SCALES}, got {scale!r}")
    return scale
