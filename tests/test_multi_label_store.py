"""Multi-label projects in the label stores (SQLite and PostgreSQL: every test taking
``store`` runs on both, tests/conftest.py): the project keeps ``multi_label`` and its true
label sets, a label is a set stored as a JSON list and read back as the tuple of the
convention (rlscore.core.conventions.label_sets), and a set in a single-label project or a
single class in a multi-label one is refused with a message naming the problem."""

import json

import numpy as np
import pandas as pd
import pytest
from support.multi_label import CLASSES, SETS, tagged_project
from support.stores import raw_sql, small_project

from rlscore.data.projects.class_labels import truth_values
from rlscore.data.projects.project import ProjectInputError
from rlscore.data.projects.table_project import project_from_table
from rlscore.storage import Event, open_store


@pytest.fixture
def store(db_target):
    with open_store(db_target) as s:
        yield s


def test_a_multi_label_project_round_trips(store):
    p = tagged_project()
    store.create_project(p)
    store.create_project(small_project("single"))
    q = store.load_project("tags")
    assert q.multi_label and q.classes == CLASSES and q.meta == p.meta == {"sigma": 1.0}
    assert q.truth.shape == (7,) and list(q.truth) == [SETS[i % 5] for i in range(7)]
    assert not store.load_project("single").multi_label
    summaries = {s["name"]: s for s in store.project_summaries()}
    assert summaries["tags"]["multi_label"] and not summaries["single"]["multi_label"]
    assert "multi_label" not in summaries["tags"]["meta"]


def test_label_sets_are_stored_as_json_lists_and_read_as_tuples(store, db_target):
    store.create_project(tagged_project())
    first = store.append_event("tags", Event("label", point=0, label=["tech", "news"]))
    store.append_event("tags", Event("label", point=1, label=[]))
    store.append_event("tags", Event("review", point=2, label=("sports",)))
    got = [(e.kind, e.point, e.label) for e in store.events("tags")]
    assert got == [("label", 0, ("news", "tech")), ("label", 1, ()), ("review", 2, ("sports",))]
    stored = raw_sql(db_target, "SELECT label FROM events ORDER BY id")
    assert [json.loads(r[0]) for r in stored] == [["news", "tech"], [], ["sports"]]
    store.append_event("tags", Event("undo", target=first))
    assert store.events("tags")[-1].target == first


@pytest.mark.parametrize(
    ("label", "problem"),
    [
        ("news", "this project is multi-label: a label is a list of classes"),
        (["news", "cats"], r"unknown class\(es\) \['cats'\]"),
        (["news", "news"], "a class is given twice"),
        (None, "this project is multi-label"),
    ],
)
def test_a_bad_label_set_is_refused_and_nothing_is_written(store, label, problem):
    store.create_project(tagged_project())
    with pytest.raises(ValueError, match=problem):
        store.append_event("tags", Event("label", point=0, label=label))
    assert store.events("tags") == []


def test_a_set_in_a_single_label_project_is_refused(store):
    store.create_project(small_project("single", classes=("cat", "dog")))
    with pytest.raises(ValueError, match="takes one class per point, got the set 'cat|dog'"):
        store.append_event("single", Event("label", point=0, label=["cat", "dog"]))
    store.append_event("single", Event("label", point=0, label=np.str_("dog")))
    assert store.events("single")[0].label == "dog"


def test_a_project_of_an_older_database_reads_as_single_label(store, db_target):
    store.create_project(small_project("old"))
    meta = raw_sql(db_target, "SELECT meta FROM projects WHERE name = 'old'")[0][0]
    assert "multi_label" not in json.loads(meta)
    assert not store.load_project("old").multi_label


def test_project_from_table_reads_label_sets():
    df = pd.DataFrame(
        {
            "x": [0.0, 1.0, 2.0, 3.0, 4.0],
            "tags": ["b|a", "a", None, " c | a ", ""],
        }
    )
    p = project_from_table(df, "t", feature_columns=["x"], truth_column="tags", multi_label=True)
    assert p.multi_label and p.classes == ["a", "b", "c"]
    assert list(p.truth) == [("a", "b"), ("a",), (), ("a", "c"), ()]
    renamed = project_from_table(
        df, "t", feature_columns=["x"], truth_column="tags", multi_label=True,
        class_names={"a": "apple", "b": "banana", "c": "cherry"},
    )  # fmt: skip
    assert renamed.classes == ["apple", "banana", "cherry"]
    assert renamed.truth[0] == ("apple", "banana")
    lists = pd.DataFrame({"x": [0.0, 1.0, 2.0], "tags": [[2, 1], [], [3]]})
    q = project_from_table(lists, "l", feature_columns=["x"], truth_column="tags", multi_label=True)
    assert q.classes == [1, 2, 3] and list(q.truth) == [(1, 2), (), (3,)]


def test_a_bad_truth_column_of_label_sets_is_named():
    twice = pd.DataFrame({"x": [0.0, 1.0, 2.0], "tags": ["a|a", "b", "a"]})
    with pytest.raises(ProjectInputError, match="truth column 'tags'.*given twice"):
        project_from_table(twice, "t", feature_columns=["x"], truth_column="tags", multi_label=True)
    one = pd.DataFrame({"x": [0.0, 1.0], "tags": ["a", ""]})
    with pytest.raises(ProjectInputError, match="fewer than 2 classes"):
        project_from_table(one, "t", feature_columns=["x"], truth_column="tags", multi_label=True)


@pytest.mark.parametrize(
    ("cell", "item"),
    [
        ('["a", null]', "null"),  # a tester's cell: it became a class named by the whole cell
        ("[null]", "null"),
        ('["a", true]', "true"),
        ('["a", ["b"]]', '["b"]'),
        ('["a", {"b": 1}]', '{"b": 1}'),
        ('["a", NaN]', "NaN"),
        (["a", None], "null"),  # a list cell of a JSON or Parquet table
        (np.array(["a", None], dtype=object), "null"),
    ],
)
def test_a_list_cell_holding_no_class_is_refused_naming_its_row(cell, item):
    cells = np.empty(3, dtype=object)  # of lists: a DataFrame column would unpack them
    cells[:] = [["a", "b"], cell, "b"]
    df = pd.DataFrame({"x": [0.0, 1.0, 2.0], "tags": cells})
    with pytest.raises(ProjectInputError) as refused:
        project_from_table(df, "t", feature_columns=["x"], truth_column="tags", multi_label=True)
    message = str(refused.value)
    assert message.startswith("truth column 'tags', row 2, cell ")
    assert f"the list holds {item}, which is no class" in message
    with pytest.raises(ProjectInputError, match="row 2"):  # the Data page's class list
        truth_values(df, "tags", multi_label=True)


def test_numbers_in_a_list_cell_are_classes():
    df = pd.DataFrame({"x": [0.0, 1.0, 2.0], "tags": ['["a", 1]', "[1.5]", "a"]})
    p = project_from_table(df, "t", feature_columns=["x"], truth_column="tags", multi_label=True)
    assert p.classes == [1, 1.5, "a"] and list(p.truth) == [(1, "a"), (1.5,), ("a",)]


@pytest.mark.parametrize(
    ("classes", "problem"),
    [
        (["a|b", "c"], "class 'a\\|b' contains '\\|'"),
        (["a", " b"], "class ' b' starts or ends with a space"),
        (["a", ""], "class '' is empty"),
    ],
)
def test_a_class_that_cannot_stand_in_a_cell_is_refused(store, classes, problem):
    # "a|b" and "c" were exported as "a|b|c", read back as three classes
    renamed = pd.DataFrame({"x": [0.0, 1.0, 2.0], "tags": ["p", "q", ""]})
    # from a table (the CLI, the Data page): refused before anything is stored (the empty and
    # the spaced names by the class names' and label sets' own checks)
    with pytest.raises(ProjectInputError, match=problem if "|" in classes[0] else None):
        project_from_table(
            renamed, "t", feature_columns=["x"], truth_column="tags", multi_label=True,
            class_names=dict(zip(["p", "q"], classes, strict=True)),
        )  # fmt: skip
    p = tagged_project()
    p.classes = classes
    p.truth = None
    with pytest.raises(ValueError, match=problem):  # from Python, straight to the store
        store.create_project(p)
    assert store.list_projects() == []
    single = small_project("single")
    single.classes = classes
    single.truth = None
    store.create_project(single)  # one class per cell: the separator means nothing there
