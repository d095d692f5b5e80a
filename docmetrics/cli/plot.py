"""The one way the command line draws: matplotlib on the Agg backend (no display), a clear error when
matplotlib is missing or the file cannot be written."""

from __future__ import annotations

from typing import Any

from ..values.errors import InputError, UserError

__all__ = ["pyplot", "save"]


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise UserError('--plot needs matplotlib: pip install "docmetrics[plot]"') from None
    return plt


def save(fig: Any, path: str, dpi: int = 120) -> None:
    """Write the figure to ``path`` and close it."""
    plt = pyplot()
    try:
        fig.savefig(path, dpi=dpi)
    except OSError as exc:
        raise InputError(f"--plot {path}: cannot be written ({exc.strerror})") from None
    finally:
        plt.close(fig)
