"""The Data page in Streamlit's AppTest: upload, validate, create, export, delete."""

from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from rlscore.data.samples import list_samples
from rlscore.storage import Event, open_store

PAGE = str(Path(__file__).resolve().parent.parent / "pages" / "data.py")
CSV = b"id;w;h;colour;kind\np1;1,5;2;red;cat\np2;3;4;blue;dog\np3;5;1;red;cat\np4;0;7;red;dog\n"


@pytest.fixture
def db(tmp_path, monkeypatch):
    path = tmp_path / "labels.sqlite3"
    monkeypatch.setenv("RLSCORE_DB", str(path))
    return path


def run_page() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    return at


def projects_table(at: AppTest):
    return at.dataframe[-1].value  # the last table on the page


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
    assert [b.label for b in at.get("download_button")] == [
        "Download labels (CSV)",
        "Download labels (JSON)",
    ]
    assert at.button(key="delete").disabled


def test_upload_preview_and_create(db):
    at = upload(run_page(), CSV, "pets.csv")
    assert "4 rows × 5 columns" in at.caption[0].value
    assert at.selectbox(key="truth_column").value == "kind"  # guessed from the name
    at.selectbox(key="id_column").select("id")
    at.run()
    # 'colour' is text: not offered as a default feature
    assert at.multiselect(key="features").value == ["w", "h"]
    at.text_input(key="class_names").input("kitty, doggy")
    at.checkbox(key="standardize").check()
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
    assert fragment in at.error[0].value
    assert len(at.button) >= 1  # the rest of the page still works


def test_bad_columns_disable_create(db):
    at = upload(run_page(), b"f,g,label\n1,nan,a\n2,3,a\n", "bad.csv")
    errors = [e.value for e in at.error]
    assert any("missing values (NaN) in row 1" in e for e in errors)
    assert at.button(key="create").disabled
    at.multiselect(key="features").set_value(["f"])
    at.run()
    assert "only one class" in at.error[0].value
    at.selectbox(key="truth_column").select("(none)")
    at.run()
    assert not at.error and not at.button(key="create").disabled


def test_constant_feature_warning(db):
    at = upload(run_page(), b"x,c\n1,5\n2,5\n3,5\n", "const.csv")
    assert "constant feature column(s) 'c'" in at.warning[0].value
    assert not at.button(key="create").disabled


def test_delete_needs_confirmation(db):
    at = run_page()
    store = open_store(db)
    store.append_event("spheres", Event("label", 0, 1, "ann"))
    at.selectbox(key="chosen").select("spheres")
    at.run()
    assert "its 1 labels" in at.caption[-1].value
    at.text_input(key="confirm_delete").input("sphere")
    at.run()
    assert at.button(key="delete").disabled
    at.text_input(key="confirm_delete").input("spheres")
    at.run()
    at.button(key="delete").click()
    at.run()
    assert not at.exception
    assert "Deleted project 'spheres'" in at.success[0].value
    assert "spheres" not in store.list_projects()
    assert "spheres" not in projects_table(at)["project"].tolist()
