"""How fast an uploaded Parquet file with an embedding as a list column becomes features
(issue 34 item 6: nested columns are read, proposed and used).

The file: ``--n`` rows (default 20 000) of a ``--d``-number vector (default 384, a common
sentence-embedding size) as a Parquet ``list<double>`` column, beside a two-class label
column; seeded. Timed (medians of ``--repeats`` after a warm-up, BLAS pinned to one thread):

* ``rlscore``: what the Data page does with it — :func:`rlscore.data.read_table` (nested cells
  made hashable), the proposals that look at every column (the embedding, the truth, the
  texts, the categories) and :func:`~rlscore.data.features.embeddings.embedding_matrix`
  (every cell checked: a vector of finite numbers, all of one length);
* ``baseline``: pyarrow and numpy alone — read the file, stack the column into a matrix, check
  it is finite: the same matrix with no proposal and no per-cell message.

Prints the machine and the load average before and after. Run:
``python benchmarks/upload_nested.py [--n 20000] [--d 384] [--repeats 5] [--quick]``.
"""

from __future__ import annotations

import argparse
import io

from harness import load_average, pin_blas, report_machine, timed


def parquet_file(n: int, d: int, seed: int = 0) -> tuple[bytes, object]:
    """The file's bytes and its vectors (the reference matrix)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    X = np.random.default_rng(seed).normal(size=(n, d))
    table = pa.table({"vec": pa.array(list(X)), "label": pa.array(["a", "b"] * (n // 2))})
    buf = io.BytesIO()
    pq.write_table(table, buf)
    return buf.getvalue(), X


def rlscore_matrix(data: bytes):
    """The Data page's steps: read, propose, build the embedding's matrix."""
    from rlscore.data import read_table
    from rlscore.data.features.embeddings import embedding_matrix
    from rlscore.data.upload.proposal import (
        categorical_columns,
        guess_embedding_column,
        guess_text_columns,
        guess_truth_column,
    )

    df = read_table(data, "upload.parquet")
    truth = guess_truth_column(df)
    column = guess_embedding_column(df, exclude=(truth,))
    guess_text_columns(df, exclude=(truth,))
    categorical_columns(df, exclude=(truth, column))
    return embedding_matrix(df[column], column)


def baseline_matrix(data: bytes):
    """pyarrow and numpy alone: the column stacked, checked finite."""
    import numpy as np
    import pyarrow.parquet as pq

    column = pq.read_table(io.BytesIO(data)).column("vec").to_numpy(zero_copy_only=False)
    X = np.stack(column)
    if not np.isfinite(X).all():
        raise ValueError("not finite")
    return X


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--d", type=int, default=384)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="200 rows of 8, one repeat")
    args = parser.parse_args(argv)
    n, d, repeats = (200, 8, 1) if args.quick else (args.n, args.d, args.repeats)
    pin_blas(1)
    report_machine()
    import numpy as np

    data, X = parquet_file(n, d)
    ours, base = rlscore_matrix(data), baseline_matrix(data)
    assert np.array_equal(ours, X) and np.array_equal(base, X)  # the same matrix
    t_ours = timed(lambda: rlscore_matrix(data), repeats=repeats)
    t_base = timed(lambda: baseline_matrix(data), repeats=repeats)
    print(f"{n} rows × {d} numbers, file {len(data) / 1e6:.1f} MB, median of {repeats}")
    print(f"rlscore (read, propose, embedding matrix): {t_ours:.2f} s")
    print(f"baseline (pyarrow + numpy stack):          {t_base:.2f} s")
    print(f"# load average after: {load_average()}")
    return {"n": n, "d": d, "rlscore_s": t_ours, "baseline_s": t_base}


if __name__ == "__main__":
    main()
