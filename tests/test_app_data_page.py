"""The Data page in Streamlit's AppTest: upload, validate, create, export, delete.

User strings are checked to be shown as text with ``tests/support/markdown.py``.
"""

import csv
import io
import tomllib
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest
from support.app import app_page
from support.markdown import BOLD_NAME, IMAGE_NAME, assert_shown_as_text, plain

from rlscore.data.samples.bundled import list_samples
from rlscore.storage import Event, SQLiteLabelStore, open_store

REPO = Path(__file__).resolve().parent.parent
CSV = b"id;w;h;colour;kind\np1;1,5;2;red;cat\np2;3;4;blue;dog\np3;5;1;red;cat\np4;0;7;red;dog\n"


@pytest.fixture
def db(tmp_path, monkeypatch):
    path = tmp_path / "labels.sqlite3"
    monkeypatch.setenv("RLSCORE_DB", str(path))
    return path


def run_page() -> AppTest:
    at = app_page("data.py", timeout=60)
    at.run()
    assert not at.exception, at.exception
    return at


def projects_table(at: AppTest):
    return at.dataframe[-1].value  # the last table on the page


def errors(at: AppTest) -> list[str]:
    """The page's error messages as the user reads them."""
    return [plain(e.value) for e in at.error]


def upload(at: AppTest, data: bytes, name: str) -> AppTest:
    at.file_uploader(key="upload").set_value((name, data, "text/csv"))
    at.run()
    assert not at.exception, at.exception
    return at


def test_renders_with_sample_projects(db):
    at = run_page()
    assert at.title[0].value == "Data"
    table = projects_table(at)
    assert sorted(table["project"]) == sorted(list_samples())
    assert [b.label for b in at.get("download_button")][:4] == [
        "Download labels (CSV)",
        "Download labels (JSON)",
        "Download labels (JSONL)",
        "Download labels (PARQUET)",
    ]
    assert at.button(key="delete").disabled


def test_a_link_to_a_project_opens_the_data_page_on_it_and_a_choice_is_the_tabs(db):
    """Issue 34: ``/data?project=two_moons`` showed another project's export and delete. The
    link's project is the one exported and deleted; a choice here is what the other pages
    open in this tab, and the address bar follows."""
    at = app_page("data.py", timeout=60)
    at.query_params["project"] = "spheres"
    at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key="chosen").value == "spheres"
    assert any("Deletes 'spheres'" in plain(c.value) for c in at.caption)
    at.selectbox(key="chosen").select("circles")
    at.run()
    assert at.selectbox(key="chosen").value == "circles"
    assert at.session_state["project"] == "circles"  # the Label page's project in this tab
    assert at.query_params["project"] == "circles"
    assert any("Deletes 'circles'" in plain(c.value) for c in at.caption)
    at.switch_page("pages/label.py")
    at.run()
    assert at.sidebar.selectbox(key="w_project").value == "circles"


def test_the_project_name_follows_each_new_file_until_one_is_typed(db):
    at = upload(run_page(), CSV, "first.csv")
    assert at.text_input(key="project_name").value == "first"
    upload(at, CSV, "second.csv")
    assert at.text_input(key="project_name").value == "second"
    at.text_input(key="project_name").input("mine")
    at.run()
    at.selectbox(key="id_column").select("id")  # another widget: the typed name stays
    at.run()
    assert at.text_input(key="project_name").value == "mine"


def test_upload_preview_and_create(db):
    at = upload(run_page(), CSV, "pets.csv")
    assert "4 rows × 5 columns" in at.caption[0].value
    assert at.selectbox(key="truth_column").value == "kind"  # guessed from the name
    at.selectbox(key="id_column").select("id")
    at.run()
    # 'colour' is text: not offered as a default feature
    assert at.multiselect(key="features").value == ["w", "h"]
    at.text_input(key="class_names").input("kitty, doggy")
    at.radio(key="standardize").set_value("yes")
    at.run()
    assert not at.error
    preview = at.dataframe[1].value  # [0] is the raw table
    assert list(preview.index) == ["p1", "p2", "p3", "p4"]
    np.testing.assert_allclose(preview[["w", "h"]].mean(), 0, atol=1e-12)
    assert preview["truth"].tolist() == ["kitty", "doggy", "kitty", "doggy"]
    at.text_input(key="project_name").input("pets")
    at.button(key="create").click()
    at.run()
    assert not at.exception
    assert "Created project 'pets'" in at.success[0].value
    p = open_store(db).load_project("pets")
    assert p.ids == ["p1", "p2", "p3", "p4"] and p.classes == ["kitty", "doggy"]
    assert p.meta["standardized"] and p.meta["source"] == "pets.csv"
    assert "pets" in projects_table(at)["project"].tolist()
    assert at.selectbox(key="chosen").value == "pets"  # ready to export
    # the same name again is refused with a message
    upload(at, CSV, "pets.csv")
    at.text_input(key="project_name").input("pets")
    at.button(key="create").click()
    at.run()
    assert "already exists" in at.error[0].value


@pytest.mark.parametrize(
    ("data", "name", "fragment"),
    [
        (b"", "empty.csv", "is empty"),
        (b"a,a\n1,2\n3,4\n", "dup.csv", "duplicate column names"),
        (b"a|b\n1|2\n", "pipe.csv", "separator"),
        ("a,b\n1,2\n".encode("utf-16"), "u16.csv", "UTF-16"),
    ],
)
def test_unreadable_files_show_an_error(db, data, name, fragment):
    at = upload(run_page(), data, name)
    assert fragment in errors(at)[0]
    assert len(at.button) >= 1  # the rest of the page still works


def test_bad_columns_disable_create(db):
    at = upload(run_page(), b"f,g,label\n1,nan,a\n2,3,a\n", "bad.csv")
    assert any("missing values (NaN) in row 1" in e for e in errors(at))
    assert at.button(key="create").disabled
    at.multiselect(key="features").set_value(["f"])
    at.run()
    assert "only one class" in errors(at)[0]
    at.selectbox(key="truth_column").select("(none)")
    at.run()
    assert not at.error and not at.button(key="create").disabled


def test_a_numeric_column_with_a_stray_text_cell_is_named_not_dropped_silently(db):
    """The exploratory tester's ``typo.csv``: ``age`` is a number in 29 of 30 rows and
    ``unknown`` in row 17; the form proposed height and weight only and said nothing of
    ``age``, which the CLI refuses naming the cell. The form now names the column and the
    cell in the CLI's words, and the note goes once the column is chosen (the refusal speaks
    then)."""
    rows = [f"{150 + i}.5,{60 + i}.0,{20 + i},{'ab'[i % 2]}" for i in range(30)]
    rows[16] = rows[16].replace(",36,", ",unknown,")
    data = ("height,weight,age,label\n" + "\n".join(rows) + "\n").encode()
    at = upload(run_page(), data, "typo.csv")
    assert at.multiselect(key="features").value == ["height", "weight"]
    notes = [plain(c.value) for c in at.caption if "'age'" in plain(c.value)]
    assert notes == [
        "Column 'age' is not proposed as a feature: it is not numeric ('unknown' in row 17); "
        "correct the cells that are not numbers, or encode the column as numbers, to use it "
        "as one."
    ]
    at.multiselect(key="features").set_value(["height", "weight", "age"])
    at.run()
    assert not any("'age' is not proposed" in plain(c.value) for c in at.caption)
    assert any("feature column 'age' is not numeric ('unknown' in row 17)" in e for e in errors(at))


def test_a_one_row_upload_is_counted_in_words(db):
    at = upload(run_page(), b"x,y,kind\n1,2,cat\n", "one.csv")
    assert "one.csv: 1 row × 3 columns" in plain(at.caption[0].value)


def test_constant_feature_warning(db):
    at = upload(run_page(), b"x,c\n1,5\n2,5\n3,5\n", "const.csv")
    assert "constant feature column(s) 'c'" in plain(at.warning[0].value)
    assert not at.button(key="create").disabled


def test_delete_needs_confirmation(db):
    at = run_page()
    store = open_store(db)
    store.append_event("spheres", Event("label", 0, 1, "ann"))
    at.selectbox(key="chosen").select("spheres")
    at.run()
    assert "its 1 label for" in at.main.caption[-1].value
    at.text_input(key="confirm_delete").input("sphere")
    at.run()
    assert at.button(key="delete").disabled
    at.text_input(key="confirm_delete").input("spheres")
    at.run()
    at.button(key="delete").click()
    at.run()
    assert not at.exception
    assert "Deleted project 'spheres'" in at.success[0].value
    # no members: anyone may restore it (docs/app.md), it has no owner to do so
    assert "As it had no members, anyone can restore it" in at.success[0].value
    assert "spheres" not in store.list_projects()
    assert "spheres" not in projects_table(at)["project"].tolist()


def test_each_run_reads_only_the_new_events(db, monkeypatch):
    """The projects table folds every project's log once, then only what was added: counted
    by the events the store hands out, not by time."""
    read = []
    events = SQLiteLabelStore.events

    def counted(store, name, after_id=0):
        out = events(store, name, after_id)
        read.extend(out)
        return out

    at = run_page()  # the sample projects exist from here on
    store = open_store(db)
    for i in range(6):
        store.append_event("spheres", Event("label", i, 1, "ann"))
    store.append_event("spheres", Event("undo", None, None, "ann"))
    monkeypatch.setattr(SQLiteLabelStore, "events", counted)
    at.run()
    table = projects_table(at)
    assert table.loc[table["project"] == "spheres", "labeled"].item() == 5
    assert len(read) == 7  # the new events, each once
    at.run()
    at.run()
    assert len(read) == 7  # nothing new: nothing read
    store.append_event("two_moons", Event("label", 3, 1, "ann"))
    at.run()
    assert [e.point for e in read[7:]] == [3]
    table = projects_table(at)
    assert table.loc[table["project"] == "two_moons", "labeled"].item() == 1
    assert not at.exception


# -- user strings are shown as text ---------------------------------------------------------
def test_user_strings_are_shown_as_text_not_markdown(db):
    column, note = "[w](http://example.invalid/w)", "<i>note</i>"
    data = (
        f"id;{column};h;_c_;{note};kind\n"
        "p1;1;2;5;a;cat\np2;3;4;5;b;dog\np3;5;1;5;c;cat\np4;0;7;5;d;dog\n"
    ).encode()
    file_name = "*pets*_[1].csv"
    at = upload(run_page(), data, file_name)
    at.selectbox(key="id_column").select("id")
    at.run()
    at.multiselect(key="features").set_value([column, "h", "_c_", note])
    at.run()
    # a text feature column: the error quotes its name, escaped
    assert any(f"feature column '{note}' is not numeric" in e for e in errors(at))
    assert_shown_as_text(at, file_name, note)
    at.multiselect(key="features").set_value([column, "h", "_c_"])
    at.text_input(key="class_names").input(f"{BOLD_NAME}, kitty")
    at.text_input(key="project_name").input(IMAGE_NAME)
    at.run()
    assert not at.error
    assert "constant feature column(s) '_c_'" in plain(at.warning[0].value)
    summary = next(plain(c.value) for c in at.caption if "points ×" in c.value)
    assert summary == f"4 points × 2 features; 2 classes: {BOLD_NAME}: 2, kitty: 2"
    assert_shown_as_text(at, file_name, BOLD_NAME, "_c_")
    # the tables are plain text: names as typed
    assert list(at.dataframe[1].value.columns) == [column, "h", "truth"]

    at.button(key="create").click()
    at.run()
    assert not at.exception
    assert f"Created project '{IMAGE_NAME}'" in plain(at.success[0].value)
    assert_shown_as_text(at, IMAGE_NAME, BOLD_NAME)
    assert IMAGE_NAME in projects_table(at)["project"].tolist()
    assert at.selectbox(key="chosen").value == IMAGE_NAME
    assert plain(at.text_input(key="confirm_delete").label) == f"Type '{IMAGE_NAME}' to confirm"
    stored = open_store(db).load_project(IMAGE_NAME)
    assert stored.classes == [BOLD_NAME, "kitty"] and stored.feature_names == [column, "h"]

    at.text_input(key="confirm_delete").input(IMAGE_NAME)  # typed as shown
    at.run()
    at.button(key="delete").click()
    at.run()
    assert f"Deleted project '{IMAGE_NAME}'" in plain(at.success[0].value)
    assert_shown_as_text(at, IMAGE_NAME)
    assert IMAGE_NAME not in open_store(db).list_projects()


# -- projects deleted meanwhile (another tab) -----------------------------------------------
def test_delete_of_a_project_another_tab_deleted(db):
    at = run_page()
    at.selectbox(key="chosen").select("spheres")
    at.run()
    at.text_input(key="confirm_delete").input("spheres")
    at.run()
    open_store(db).delete_project("spheres")  # another tab
    at.button(key="delete").click()
    at.run()
    assert not at.exception
    assert "'spheres' was already deleted" in plain(at.info[0].value)
    assert "spheres" not in projects_table(at)["project"].tolist()
    assert at.selectbox(key="chosen").value != "spheres"
    assert sorted(open_store(db).list_projects()) == sorted(set(list_samples()) - {"spheres"})


def test_a_confirmation_does_not_carry_over_to_the_next_project(db):
    at = run_page()
    at.selectbox(key="chosen").select("spheres")
    at.run()
    at.text_input(key="confirm_delete").input("spheres")
    at.run()
    assert not at.button(key="delete").disabled
    open_store(db).delete_project("spheres")  # another tab
    at.run()  # the list moves on to another project, which is not confirmed
    assert not at.exception
    assert at.selectbox(key="chosen").value != "spheres"
    assert at.button(key="delete").disabled
    assert sorted(open_store(db).list_projects()) == sorted(set(list_samples()) - {"spheres"})


def test_export_of_a_project_deleted_while_the_page_is_drawn(db, monkeypatch):
    at = run_page()
    at.selectbox(key="chosen").select("spheres")
    at.run()
    load = SQLiteLabelStore.load_project

    def deleted_then_loaded(store, name):
        """Another tab deletes the project right before this run reads it."""
        if name in store.list_projects():
            store.delete_project(name)
        return load(store, name)

    monkeypatch.setattr(SQLiteLabelStore, "load_project", deleted_then_loaded)
    at.run()
    assert not at.exception
    assert "'spheres' was just deleted" in plain(at.info[0].value)
    assert not at.get("download_button")
    monkeypatch.setattr(SQLiteLabelStore, "load_project", load)
    at.run()
    assert not at.exception
    assert "spheres" not in projects_table(at)["project"].tolist()
    assert at.selectbox(key="chosen").value != "spheres"
    assert len(at.get("download_button")) == 8  # labels and audit, four formats each


def test_projects_deleted_while_listed_are_left_out(db, monkeypatch):
    at = run_page()
    listed = SQLiteLabelStore.project_summaries

    def listed_then_deleted(store):
        """Another tab deletes 'spheres' right after this run listed the projects."""
        rows = listed(store)
        if "spheres" in store.list_projects():
            store.delete_project("spheres")
        return rows

    monkeypatch.setattr(SQLiteLabelStore, "project_summaries", listed_then_deleted)
    at.run()
    assert not at.exception
    assert sorted(projects_table(at)["project"]) == sorted(set(list_samples()) - {"spheres"})
    assert "spheres" not in at.selectbox(key="chosen").options


# -- a large upload -------------------------------------------------------------------------
def test_large_upload_is_accepted(db):
    n = 200_000
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 2))
    text = io.StringIO()
    writer = csv.writer(text)
    writer.writerow(["x", "y"])
    writer.writerows(np.round(X, 6).tolist())
    data = text.getvalue().encode()
    config = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text())
    assert len(data) <= config["server"]["maxUploadSize"] * 2**20
    at = app_page("data.py", timeout=120)
    at.run()
    upload(at, data, "big.csv")
    assert f"{n} rows × 2 columns" in plain(at.caption[0].value)
    assert len(at.dataframe[0].value) == 200  # the preview, not the table
    # 'y' is named like a label column but holds 200 000 values: it is a feature, not classes
    assert at.selectbox(key="truth_column").value == "(none)"
    assert at.multiselect(key="features").value == ["x", "y"]
    at.text_input(key="project_name").input("big")
    at.button(key="create").click()
    at.run()
    assert not at.exception and not at.error
    stored = open_store(db).load_project("big")
    assert stored.n == n and stored.classes == [-1, 1]
    np.testing.assert_allclose(stored.X, np.round(X, 6))
    at.selectbox(key="chosen").select("big")
    at.run()
    assert not at.exception
    table = projects_table(at)
    assert table.loc[table["project"] == "big", "points"].item() == n
