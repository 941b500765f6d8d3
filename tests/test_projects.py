"""Reading user tables and turning them into projects, including every bad-input message."""

import io

import numpy as np
import pandas as pd
import pytest

from rlscore.data.projects.project import Project, ProjectInputError, ProjectInputWarning
from rlscore.data.projects.table_project import project_from_table
from rlscore.data.samples.bundled import list_samples, load_sample, project_from_sample
from rlscore.data.upload.table_reading import read_table

GOOD = "a,b,label\n1.0,2.0,cat\n3.5,-1,dog\n0,4,cat\n"


def parquet_bytes(df: pd.DataFrame) -> bytes:
    buf = io.BytesIO()
    df.to_parquet(buf)
    return buf.getvalue()


# -- read_table -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "encoding"),
    [
        (GOOD, "utf-8"),
        (GOOD, "utf-8-sig"),  # Excel's UTF-8 with a byte-order mark
        (GOOD.replace(",", ";"), "utf-8"),
        (GOOD.replace(",", "\t"), "utf-8"),
    ],
)
def test_read_csv_sniffs_encoding_and_delimiter(text, encoding):
    df = read_table(text.encode(encoding), "x.csv")
    assert list(df.columns) == ["a", "b", "label"]
    assert df["a"].tolist() == [1.0, 3.5, 0.0]
    assert df["label"].tolist() == ["cat", "dog", "cat"]


def test_read_csv_latin1_and_decimal_comma():
    text = "température;poids;classe\n1,5;2;été\n-0,25;3;hiver\n7;1;été\n"
    df = read_table(text.encode("latin-1"), "fr.csv")
    assert list(df.columns) == ["température", "poids", "classe"]
    assert df["température"].tolist() == [1.5, -0.25, 7.0]
    assert df["classe"].tolist() == ["été", "hiver", "été"]


def test_a_windows_1252_csv_keeps_its_quotes_and_euro_signs():
    """The exploratory tester's Excel-on-Windows file: read as Latin-1, “good” and € became
    the invisible C1 controls U+0093, U+0094 and U+0080 in the class names (boxes on the
    Label page's buttons). The reference is Python's own cp1252 codec."""
    data = b"x1,x2,label\n1,2,\x93good\x94\n3,4,bad \x80\n5,6,\x93good\x94\n7,8,bad \x80\n"
    df = read_table(data, "cp1252.csv")
    assert df["label"].tolist() == [
        line.split(",")[2] for line in data.decode("cp1252").split("\n")[1:-1]
    ]
    p = project_from_table(df, "cp", ["x1", "x2"], truth_column="label")
    assert p.classes == ["bad €", "“good”"]


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        # 0x81 is no character in Windows-1252: read as Latin-1 it is the control U+0081
        (b"x,label\n1,good\x81\n2,bad\n3,good\x81\n", "U+0081 ('good\\x81' in row 1; also row 3)"),
        # UTF-8 holding U+0093: a Windows-1252 quote once converted as if it were Latin-1
        ("x,label\n1,\x93good\n2,bad\n".encode(), "U+0093 ('\\x93good' in row 1)"),
    ],
)
def test_c1_control_characters_are_refused_naming_column_and_rows(data, fragment):
    with pytest.raises(ProjectInputError) as err:
        read_table(data, "c1.csv")
    message = str(err.value)
    assert "'c1.csv': column 'label' holds the invisible control character" in message
    assert fragment in message


def test_a_c1_control_in_a_column_name_is_refused():
    with pytest.raises(ProjectInputError, match=r"column name 'lab\\x9del' holds .* U\+009D"):
        read_table(b"x,lab\x9del\n1,a\n2,b\n", "c1.csv")


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ('x1,x2,label\n1,2,"a\n3,4,b\n', 2),
        # lines of the file: a blank line and a quoted line break counted (pandas said "row 4")
        ('x,y\n"a\nb",1\n\n3,4\n"c,2\n5,6\n', 6),
    ],
)
def test_an_unclosed_quote_is_named_with_its_line(text, line):
    """pandas said "(Error tokenizing data. C error: EOF inside string starting at row 1)",
    counting records from 0."""
    with pytest.raises(ProjectInputError) as err:
        read_table(text.encode(), "q.csv")
    message = str(err.value)
    assert f"'q.csv': a quote opened on line {line} is never closed" in message
    assert "tokenizing" not in message and "EOF" not in message


def test_read_table_accepts_file_objects_and_paths(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(GOOD)
    assert read_table(path, "t.csv").shape == (3, 3)
    assert read_table(io.BytesIO(GOOD.encode()), "t.csv").shape == (3, 3)


def test_read_parquet():
    df = pd.DataFrame({"x": [1.0, 2.0], "y": [3, 4], "c": ["a", "b"]})
    out = read_table(parquet_bytes(df), "data.parquet")
    pd.testing.assert_frame_equal(out, df)


@pytest.mark.parametrize(
    ("data", "filename", "fragment"),
    [
        (b"", "e.csv", "is empty"),
        (b"  \n\n", "e.csv", "is empty"),
        (b"a,b,c\n", "h.csv", "no data rows"),
        (b"a,b,a\n1,2,3\n4,5,6\n", "d.csv", "duplicate column names: 'a' (columns 1, 3)"),
        (GOOD.encode("utf-16"), "u16.csv", "UTF-16"),
        (b"PK\x03\x04rest-of-a-zip", "book.csv", "Excel"),
        (b"a|b|c\n1|2|3\n4|5|6\n", "pipe.csv", "separator"),
        (b"a,b,c\n1,2\n1,2,3,4,5\n", "ragged.csv", "the header has 3 columns but line 2 has 2"),
        (
            b"a;b;c\n1;2;3\n\n1;2;3;4;5\n",
            "semi.csv",
            "with semicolons the header has 3 columns but line 4 has 5",
        ),  # fmt: skip
        (b"not parquet at all", "x.parquet", "could not be read as Parquet"),
    ],
)
def test_read_table_bad_input(data, filename, fragment):
    with pytest.raises(ProjectInputError) as err:
        read_table(data, filename)
    assert fragment in str(err.value)
    # every message names the file so the user knows what to fix
    assert filename in str(err.value)


def test_read_parquet_duplicate_columns():
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table([pa.array([1, 2]), pa.array([3, 4])], names=["x", "x"])
    buf = io.BytesIO()
    pq.write_table(table, buf)
    with pytest.raises(ProjectInputError, match="duplicate column names: 'x'"):
        read_table(buf.getvalue(), "dup.parquet")


# -- project_from_table -----------------------------------------------------------------------


def table(**cols) -> pd.DataFrame:
    return pd.DataFrame(cols)


def test_project_from_table_basic():
    df = read_table(GOOD.encode(), "x.csv")
    p = project_from_table(df, "pets", ["a", "b"], truth_column="label", source="x.csv")
    assert p.X.shape == (3, 2) and p.X.dtype == np.float64
    np.testing.assert_array_equal(p.X, [[1.0, 2.0], [3.5, -1.0], [0.0, 4.0]])
    assert p.feature_names == ["a", "b"]
    assert p.ids == ["0", "1", "2"]
    assert p.classes == ["cat", "dog"]
    assert p.truth.tolist() == ["cat", "dog", "cat"]
    assert p.meta["source"] == "x.csv" and p.meta["standardized"] is False


def test_default_features_are_the_other_columns_and_ids_are_used():
    df = table(id=["p", "q", "r"], f=[1.0, 2.0, 4.0], y=[1, -1, 1])
    p = project_from_table(df, "t", id_column="id", truth_column="y")
    assert p.feature_names == ["f"]
    assert p.ids == ["p", "q", "r"]
    assert p.classes == [-1, 1]
    assert p.truth.tolist() == [1, -1, 1]


def test_standardize():
    df = table(f=[1.0, 2.0, 3.0, 6.0], g=[10.0, 0.0, 5.0, 5.0])
    p = project_from_table(df, "t", standardize=True)
    np.testing.assert_allclose(p.X.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(p.X.std(axis=0), 1)
    raw = np.column_stack([df.f, df.g])
    np.testing.assert_allclose(
        p.X * np.array(p.meta["feature_scale"]) + np.array(p.meta["feature_mean"]), raw
    )
    assert p.meta["standardized"] is True


def test_class_names_without_truth_default_and_given():
    df = table(f=[1.0, 2.0])
    assert project_from_table(df, "t").classes == [-1, 1]
    assert project_from_table(df, "t", class_names=["spam", "ham"]).classes == ["spam", "ham"]
    assert project_from_table(df, "t", class_names={"a": "x", "b": "y", "c": "z"}).classes == [
        "x",
        "y",
        "z",
    ]


def test_class_names_rename_truth_values():
    df = table(f=[1.0, 2.0, 3.0], y=[0, 1, 0])
    by_list = project_from_table(df, "t", truth_column="y", class_names=["cat", "dog"])
    assert by_list.classes == ["cat", "dog"] and by_list.truth.tolist() == ["cat", "dog", "cat"]
    # keys typed into a text box are strings: they still match integer truth values
    by_dict = project_from_table(df, "t", truth_column="y", class_names={"0": "neg", "1": "pos"})
    assert by_dict.classes == ["neg", "pos"] and by_dict.truth.tolist() == ["neg", "pos", "neg"]


def test_float_truth_codes_become_ints():
    df = table(f=[1.0, 2.0, 3.0], y=[1.0, -1.0, 1.0])
    p = project_from_table(df, "t", truth_column="y")
    assert p.classes == [-1, 1] and all(type(t) is int for t in p.truth)


def test_constant_features_are_dropped_with_a_warning():
    df = table(f=[1.0, 2.0, 3.0], c=[5.0, 5.0, 5.0])
    with pytest.warns(ProjectInputWarning, match="constant feature column.*'c'"):
        p = project_from_table(df, "t", standardize=True)
    assert p.feature_names == ["f"] and p.meta["dropped"] == ["c"]
    assert "dropped" in p.meta["warnings"][0]


def test_bool_features_are_numeric():
    p = project_from_table(table(f=[True, False, True], g=[1.0, 2.0, 3.0]), "t")
    np.testing.assert_array_equal(p.X[:, 0], [1.0, 0.0, 1.0])


@pytest.mark.parametrize(
    ("df", "kwargs", "fragment"),
    [
        (
            table(f=[1.0, 2.0, 3.0], colour=["red", "green", "blue"]),
            {},
            "feature column 'colour' is not numeric ('red' in row 1; also rows 2, 3)",
        ),
        (
            table(f=[1.0, 2.0, 3.0], g=["1", "x", "3"]),
            {},
            "feature column 'g' is not numeric ('x' in row 2)",
        ),
        (
            table(f=[1.0, np.nan, 3.0, np.nan]),
            {},
            "feature column 'f' has missing values (NaN) in rows 2, 4",
        ),
        (table(f=[1.0, np.inf, 3.0]), {}, "feature column 'f' has infinite values in row 2"),
        (table(f=[1.0]), {}, "only one data row"),
        (table(f=[]), {}, "no data rows"),
        (table(f=[1.0, 1.0], g=[2.0, 2.0]), {}, "every feature column is constant"),
        (
            table(f=[1.0, 2.0], y=[1, 1]),
            {"truth_column": "y"},
            "truth column 'y' has only one class (1)",
        ),
        (
            table(f=[1.0, 2.0, 3.0], y=[1, None, 2]),
            {"truth_column": "y"},
            "truth column 'y' has missing labels in row 2",
        ),
        (
            table(f=[1.0, 2.0, 3.0], id=["a", "b", "a"]),
            {"id_column": "id"},
            "id column 'id' has duplicate ids ('a')",
        ),
        (table(f=[1.0, 2.0]), {"feature_columns": ["f", "nope"]}, "['nope'] are not in"),
        (table(f=[1.0, 2.0]), {"truth_column": "y"}, "truth column 'y' is not in the table"),
        (table(f=[1.0, 2.0]), {"feature_columns": []}, "no feature columns chosen"),
        (
            table(f=[1.0, 2.0], y=[1, 2]),
            {"feature_columns": ["f", "y"], "truth_column": "y"},
            "the truth column 'y' is also chosen as a feature",
        ),
        (
            table(f=[1.0, 2.0, 3.0], y=[1, 2, 3]),
            {"truth_column": "y", "class_names": ["a", "b"]},
            "2 class names for 3 distinct values",
        ),
        (  # counted in words: not "1 class names"
            table(f=[1.0, 2.0, 3.0], y=[1, 2, 1]),
            {"truth_column": "y", "class_names": ["a"]},
            "1 class name for 2 distinct values",
        ),
        (table(f=[1.0, 2.0]), {"class_names": ["only"]}, "at least 2 distinct"),
        (table(f=[1.0, 2.0]), {"class_names": ["a", "a"]}, "at least 2 distinct"),
        (
            pd.DataFrame([[1.0, 2.0], [3.0, 4.0]], columns=["x", "x"]),
            {},
            "duplicate column names: 'x'",
        ),
    ],
)
def test_project_from_table_bad_input(df, kwargs, fragment):
    with pytest.raises(ProjectInputError) as err:
        project_from_table(df, "bad", **kwargs)
    assert fragment in str(err.value)


def test_row_listing_is_capped():
    df = table(f=[np.nan] * 8 + [1.0, 2.0])
    with pytest.raises(ProjectInputError, match=r"rows 1, 2, 3, 4, 5 and 3 more"):
        project_from_table(df, "bad")


def test_project_validation():
    with pytest.raises(ProjectInputError, match="needs a name"):
        Project(" ", np.zeros((2, 1)), ["f"], ["0", "1"], None, [0, 1])
    with pytest.raises(ProjectInputError, match="not among the classes"):
        Project("p", np.zeros((2, 1)), ["f"], ["0", "1"], np.array([0, 2]), [0, 1])
    with pytest.raises(ProjectInputError, match="2 ids for 3 points"):
        Project("p", np.zeros((3, 1)), ["f"], ["0", "1"], None, [0, 1])


@pytest.mark.parametrize("name", list_samples())
def test_project_from_sample_matches_dataset(name):
    p = project_from_sample(name)
    ds = load_sample(name)
    np.testing.assert_array_equal(p.X, ds.X)
    assert p.truth.tolist() == ds.y.tolist()
    assert sorted(p.classes) == sorted(set(ds.y.tolist()))
    assert p.meta["sigma"] == ds.meta["sigma"] and p.meta["source"] == f"sample:{name}"
