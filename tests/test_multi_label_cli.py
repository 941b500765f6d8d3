"""``python -m rlscore create-project``: a multi-label project from a CSV table (the truth
cells read back as label sets from the database), a single-label one unchanged, and bad
input as one ``error:`` line."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from rlscore.cli import main as rlscore
from rlscore.storage import open_store

CSV = "x,y,tags\n0.1,1.0,news|sports\n0.5,0.2,tech\n0.9,0.4,\n0.3,0.8,sports|news|tech\n"


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "labels.sqlite3"
    open_store(path).close()
    return path


def test_a_multi_label_project_from_a_table(db, tmp_path, capsys):
    table = tmp_path / "tags.csv"
    table.write_text(CSV)
    argv = ["create-project", "tagged", str(table), "--truth", "tags", "--multi-label"]
    assert rlscore([*argv, "--db", str(db)]) == 0
    assert "multi-label, classes ['news', 'sports', 'tech']" in capsys.readouterr().out
    with open_store(db) as store:
        p = store.load_project("tagged")
    assert p.multi_label and p.feature_names == ["x", "y"]
    assert list(p.truth) == [("news", "sports"), ("tech",), (), ("news", "sports", "tech")]


def test_csv_cells_holding_json_lists_are_label_sets(db, tmp_path, capsys):
    """The exploratory tester's table: JSON lists in CSV cells became class names with their
    brackets and quotes (``'["a","c"]'``). The reference is Python's own ``csv`` and ``json``
    reading of each cell. (An item with ``|`` in it is refused: see the bad input below.)"""
    import csv
    import io
    import json

    text = (
        'id,text,labels\n1,hello world,"[""a"",""c""]"\n2,world peace,"[""c""]"\n'
        '3,foo bar,"[]"\n4,bar baz,"[""b""]"\n5,baz qux,"[""b"",""c""]"\n'
    )
    table = tmp_path / "json.csv"
    table.write_text(text)
    argv = ["create-project", "jsonl", str(table), "--truth", "labels", "--multi-label"]
    argv += ["--text-column", "text", "--id-column", "id", "--db", str(db)]
    assert rlscore(argv) == 0
    sets = [json.loads(row["labels"]) for row in csv.DictReader(io.StringIO(text))]
    classes = sorted({c for s in sets for c in s})
    assert classes == ["a", "b", "c"]
    assert f"multi-label, classes {classes}" in capsys.readouterr().out
    with open_store(db) as store:
        p = store.load_project("jsonl")
    assert p.multi_label and p.classes == classes
    assert list(p.truth) == [tuple(c for c in classes if c in s) for s in sets]


def test_without_the_flag_the_cells_are_single_classes(db, tmp_path, capsys):
    table = tmp_path / "kinds.csv"
    table.write_text("x,kind\n1,a\n2,b\n3,a\n")
    argv = ["create-project", "kinds", str(table), "--truth", "kind", "--db", str(db)]
    assert rlscore(argv) == 0
    # counted in words: it said "3 points, 1 features"
    assert "created project 'kinds': 3 points, 1 feature, classes" in capsys.readouterr().out
    with open_store(db) as store:
        p = store.load_project("kinds")
    assert not p.multi_label and list(p.truth) == ["a", "b", "a"]


@pytest.mark.parametrize(
    ("csv", "problem"),
    [
        ("x,tags\n1,a|a\n2,b\n", "truth column 'tags'.*given twice"),
        ("x,tags\n1,a\n2,\n", "fewer than 2 classes"),
        # a class with the separator in it: a JSON list cell can name one, a CSV cell not
        ('x,tags\n1,"[""a|b"", ""c""]"\n2,c\n', "class 'a\\|b' contains '\\|'"),
        # a null in a JSON list cell was read as one class named '["a", null]'
        (
            'x,tags\n1,b\n2,"[""a"", null]"\n',
            r"'tags', row 2, cell '\[\"a\", null\]': .*holds null",
        ),
        ('x,tags\n1,b\n2,"[""a"", [""c""]]"\n', r"row 2.*holds \[\"c\"\], which is no class"),
        # a JSON list without its closing bracket was read as the class '["x", "y"'
        (
            'x,tags\n1,x\n2,"[""x"", ""y"""\n3,x|y\n4,\n5,y\n',
            r"truth column 'tags', row 2, cell '\[\"x\", \"y\"': it starts with '\[' but is "
            r"not a JSON list \(its closing '\]' is missing\)",
        ),
    ],
)
def test_bad_input_is_one_error_line(db, tmp_path, capsys, csv, problem):
    table = tmp_path / "bad.csv"
    table.write_text(csv)
    argv = ["create-project", "bad", str(table), "--truth", "tags", "--multi-label"]
    assert rlscore([*argv, "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and len(err.strip().splitlines()) == 1
    assert re.search(problem, err)
    with open_store(db) as store:
        assert store.list_projects() == []
    # simulate reads the same table alike: the cell named, not only the problem
    argv = ["simulate", "--data", str(table), "--truth", "tags", "--multi-label", "--queries", "2"]
    assert rlscore(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and len(err.strip().splitlines()) == 1
    assert re.search(problem, err)


def test_a_missing_table_is_named(db, capsys):
    argv = ["create-project", "p", "nowhere.csv", "--db", str(db)]
    assert rlscore(argv) == 2
    assert "'nowhere.csv' is not a file" in capsys.readouterr().err


def test_a_multi_label_project_without_truth_needs_its_classes(db, tmp_path, capsys):
    # the single-label default classes [-1, 1] made a project of sets of −1 and 1
    table = tmp_path / "texts.csv"
    table.write_text("text\nhello world\nworld peace\nfoo bar\n")
    argv = ["create-project", "t", str(table), "--multi-label", "--text-column", "text"]
    assert rlscore([*argv, "--db", str(db)]) == 2
    assert "a multi-label project needs its classes" in capsys.readouterr().err
    assert rlscore([*argv, "--db", str(db), "--classes", "news,sports"]) == 0
    with open_store(db) as store:
        p = store.load_project("t")
    assert p.multi_label and p.classes == ["news", "sports"] and p.truth is None


def test_a_parquet_list_cell_holding_null_is_one_error_line(db, tmp_path, capsys):
    table = tmp_path / "tags.parquet"
    pd.DataFrame({"x": [0.0, 1.0, 2.0], "tags": [["a"], ["b", None], []]}).to_parquet(table)
    argv = ["create-project", "bad", str(table), "--truth", "tags", "--multi-label"]
    assert rlscore([*argv, "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and len(err.strip().splitlines()) == 1
    assert "truth column 'tags', row 2" in err and "holds null, which is no class" in err
