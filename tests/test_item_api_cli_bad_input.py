"""Issue 22, "Bad input gets a clear message": texts and embeddings through the upload API.

Each bad table — empty texts, a text column of numbers, 10 MB cells, a file mixing
encodings, embedding vectors that are ragged, NaN or not numbers — is read with
``read_table`` and built with ``project_from_table`` as the Data page and the CLI do; the
message names the column and the row (1-based data rows, as a spreadsheet shows them), and
nothing else escapes (no csv or pandas exception, no 10 MB message). Image cases are tested
with the image features.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from rlscore.data.items.columns import MAX_TEXT_CHARS
from rlscore.data.projects.project import ProjectInputError, ProjectInputWarning
from rlscore.data.projects.table_project import project_from_table
from rlscore.data.upload.table_reading import read_table

HEADER = "text,label,n\n"
SENTENCES = ["a cat on the mat", "stocks fell today", "the dog ran off", "bank rates rose"]


def csv_of(texts: list[str], encoding: str = "utf-8") -> bytes:
    lines = [f'"{t}",{"ab"[i % 2]},{i}' for i, t in enumerate(texts)]
    return (HEADER + "\n".join(lines) + "\n").encode(encoding)


def build(data: bytes, **options):
    df = read_table(data, "upload.csv")
    return project_from_table(df, "p", truth_column="label", **options)


def test_empty_texts_are_named_and_all_empty_is_refused():
    with pytest.warns(ProjectInputWarning, match=r"text column 'text' is empty in rows 2, 4"):
        p = build(csv_of(["a cat on the mat", "", "the dog ran off", "  "]), text_columns=["text"])
    assert p.n == 4 and any("rows 2, 4" in w for w in p.meta["warnings"])
    with pytest.raises(ProjectInputError, match=r"text column 'text' is empty in every row"):
        build(csv_of(["", " ", "", ""]), text_columns=["text"])
    # text there, but not one term in it: the column is named
    with pytest.raises(ProjectInputError, match=r"text column\(s\) 'text': .*no terms"):
        build(csv_of(["!!", "...", "?", "-"]), text_columns=["text"])


def test_a_text_column_of_numbers_is_refused_naming_its_rows():
    texts = ["12", "7.5", "the dog ran off", "3", "44", "1e3", "0", "8", "9", "10", "11"]
    with pytest.raises(ProjectInputError) as info:
        build(csv_of(texts), text_columns=["text"])
    message = str(info.value)
    assert "text column 'text' holds numbers in 91% of its filled rows" in message
    assert "(rows 1, 2, 4, 5, 6 and 5 more)" in message  # row 3 is a sentence


BIG = "x" * (10 * 2**20)  # a 10 MB cell


@pytest.mark.parametrize("encoding", ["utf-8", "latin-1"])
def test_a_10_mb_cell_is_read_and_refused_naming_its_row(encoding):
    texts = [*SENTENCES[:2], BIG, SENTENCES[2] + (" café" if encoding == "latin-1" else "")]
    df = read_table(csv_of(texts, encoding), "upload.csv")  # no csv field-size error
    assert len(df["text"][2]) == len(BIG)
    with pytest.raises(ProjectInputError) as info:
        project_from_table(df, "p", truth_column="label", text_columns=["text"])
    assert re.search(rf"text column 'text' has cells longer than {MAX_TEXT_CHARS:,} .* in row 3",
                     str(info.value))  # fmt: skip
    with pytest.raises(ProjectInputError, match=r"context column 'text' .* in row 3"):
        project_from_table(df, "p", ["n"], truth_column="label", context_columns=["text"])
    with pytest.raises(ProjectInputError) as info:  # chosen as a number: short, and named
        project_from_table(df, "p", ["text"], truth_column="label")
    assert "feature column 'text' is not numeric" in str(info.value)
    assert len(str(info.value)) < 500


def test_a_file_mixing_encodings_is_refused_naming_column_and_rows():
    data = (
        HEADER.encode()
        + '"crème brûlée",a,0\n'.encode("latin-1")
        + '"café au lait",b,1\n'.encode()
        + b'"plain text",a,2\n'
        + '"déjà vu",b,3\n'.encode("latin-1")
    )
    with pytest.raises(ProjectInputError) as info:
        read_table(data, "mixed.csv")
    message = str(info.value)
    assert "'mixed.csv' mixes text encodings" in message
    assert "column 'text' is not UTF-8 in rows 1, 4" in message
    assert "column 'text' is UTF-8 in row 2" in message and "save the file as UTF-8" in message
    # one encoding throughout reads right, whichever it is
    for encoding in ("latin-1", "utf-8"):
        df = read_table(csv_of(["crème brûlée", "déjà vu", "plain", "café"], encoding), "f.csv")
        assert df["text"].tolist() == ["crème brûlée", "déjà vu", "plain", "café"]


def embedding_csv(cells: list[str]) -> bytes:
    labels = ["ab"[i % 2] for i in range(len(cells))]
    return pd.DataFrame({"emb": cells, "label": labels}).to_csv(index=False).encode()


@pytest.mark.parametrize(
    ("cells", "message"),
    [
        (["[1, 2]", "[3, 4]", "[5]", "[6, 7]"],
         r"embedding column 'emb' has vectors of different lengths: row 1 has 2 numbers but "
         r"row 3 has 1"),
        (["[1, 2]", "[3, NaN]", "[5, 6]", "[6, 7]"],
         r"embedding column 'emb', row 2 holds NaN or an infinite value"),
        (["[1, 2]", "[3, 4]", '[5, "six"]', "[6, 7]"],
         r"embedding column 'emb', row 3 holds 'six', which is not a number"),
        (["[1, 2]", "1 2", "[5, 6]", "[6, 7]"], r"embedding column 'emb', row 2 is not a vector"),
        (["[1, 2]", "[3, 4]", "[5, 6]", ""], r"embedding column 'emb', row 4 is empty"),
    ],
)  # fmt: skip
def test_bad_embedding_vectors_are_named_by_column_and_row(cells, message):
    with pytest.raises(ProjectInputError, match=message):
        build(embedding_csv(cells), embedding_column="emb")


def test_good_embedding_vectors_are_the_features():
    cells = ["[1, 2.5]", "[3, 4]", "[-5, 6e-3]", "[6, 7]"]
    p = build(embedding_csv(cells), embedding_column="emb")
    np.testing.assert_array_equal(p.X, [[1, 2.5], [3, 4], [-5, 6e-3], [6, 7]])
    assert p.feature_names == ["emb[0]", "emb[1]"]
