"""The overall progress bar of a run's units (tqdm, on a terminal only)."""

from __future__ import annotations

import sys
from typing import Any


class Progress:
    """An overall progress bar for the units of a run, on a terminal only (never in a log file)."""

    def __init__(self, total: int, label: str, *, quiet: bool = False, stream: Any = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.bar: Any = None
        if quiet or total <= 0 or not getattr(self.stream, "isatty", lambda: False)():
            return
        from tqdm import tqdm

        self.bar = tqdm(total=total, desc=label, unit="unit", file=self.stream, leave=False, dynamic_ncols=True,
                        mininterval=0.5)

    def __call__(self, n: int) -> None:
        if self.bar is not None:
            self.bar.update(n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None

