"""The corner of polars a GPU run reaches: ultralytics' trainer reads its ``results.csv``
with ``polars.read_csv(...).to_dict(as_series=False)`` each epoch (``read_results_csv``).

The GPU machine has no polars and its wheels (54 MB) would not fit a pack, so
:func:`hupai.training.gpu.run` puts this folder at the end of ``sys.path`` where polars is
missing (a real polars always wins). It is nothing else of polars.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path


class DataFrame:
    """Columns of values, as read (what ``to_dict`` gives back)."""

    def __init__(self, columns: dict[str, list[object]]) -> None:
        self._columns = columns

    def to_dict(self, as_series: bool = True) -> dict[str, list[object]]:
        return {name: list(values) for name, values in self._columns.items()}


def _value(text: str) -> object:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def read_csv(source: bytes | str | Path, infer_schema_length: int | None = None) -> DataFrame:
    """A CSV with a header row: ints and floats as numbers, the rest as text."""
    text = source.decode() if isinstance(source, bytes) else Path(source).read_text()
    rows = list(csv.reader(io.StringIO(text)))
    header = [name.strip() for name in rows[0]] if rows else []
    columns: dict[str, list[object]] = {name: [] for name in header}
    for row in rows[1:]:
        for name, cell in zip(header, row, strict=False):
            columns[name].append(_value(cell.strip()))
    return DataFrame(columns)
