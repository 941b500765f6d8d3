"""The Data page's upload decisions as functions (rlscore.ui.forms.upload, .new_project): which
columns a role may still take, which columns a project reads, where an image column's paths
point and who owns a new project; and an unexpected failure while the form is drawn is a
message on the page, never a traceback (AppTest)."""

from __future__ import annotations

import pytest
from support.app import app_page, ok
from support.markdown import plain

from rlscore.data import ProjectInputError
from rlscore.data.features.image_urls import ALLOW_URLS_ENV
from rlscore.data.features.images import IMAGE_ROOT_ENV
from rlscore.ui.forms import new_project, upload
from rlscore.ui.forms.new_project import creation_owner, image_root_for
from rlscore.ui.forms.upload import UploadChoices, free_columns, read_columns


def test_a_role_is_offered_the_columns_no_role_took_in_the_tables_order():
    columns = ["id", "text", "w", "h", "label"]
    assert free_columns(columns, ("label", None, "id")) == ["text", "w", "h"]
    assert free_columns(columns, set()) == columns
    assert free_columns(columns, (None,)) == columns  # "no column" takes nothing


def test_a_project_reads_its_features_texts_and_context_in_that_order():
    assert read_columns(["w", "h"], ["text"], ["note", ""]) == ["w", "h", "text", "note"]
    choices = UploadChoices(
        name="p", id_column="id", truth_column="label", text_columns=["text"],
        image_column=None, context_columns=["note"], embedding_column=None, features=["w"],
        text_inputs=("words", 1000, 10), names_text="", standardize=None,
        missing_fix="keep", one_hot=[],
    )  # fmt: skip
    assert choices.chosen_columns == ["w", "text", "note"]  # not the id, truth or image


@pytest.fixture
def server(monkeypatch):
    """A server with neither an image folder nor image URLs; a test sets what it needs."""
    monkeypatch.delenv(IMAGE_ROOT_ENV, raising=False)
    monkeypatch.delenv(ALLOW_URLS_ENV, raising=False)
    return monkeypatch


def test_an_image_column_reads_its_paths_under_the_servers_image_folder(server, tmp_path):
    assert image_root_for(None) is None  # no image column: no folder needed
    server.setenv(IMAGE_ROOT_ENV, str(tmp_path))
    assert image_root_for("path") == tmp_path.resolve()


def test_an_image_column_without_a_folder_is_refused_unless_the_server_allows_urls(server):
    with pytest.raises(ProjectInputError, match=f"'path' needs .*{IMAGE_ROOT_ENV}="):
        image_root_for("path")
    server.setenv(ALLOW_URLS_ENV, "1")
    assert image_root_for("path") is None  # the column holds URLs


@pytest.mark.parametrize(("signed_in", "owner"), [(True, "ada"), (False, None)])
def test_a_new_project_is_owned_only_by_a_signed_in_creator(monkeypatch, signed_in, owner):
    monkeypatch.setattr(new_project.auth, "sign_in_configured", lambda: signed_in)
    assert creation_owner("ada") == owner


def test_an_unexpected_failure_of_the_form_is_a_message_not_a_traceback(tmp_path, monkeypatch):
    monkeypatch.setenv("RLSCORE_DB", str(tmp_path / "labels.sqlite3"))

    def broken(df):
        raise RuntimeError("/srv/secret/path exploded")

    monkeypatch.setattr(upload, "guess_truth_column", broken)
    at = app_page("data.py", timeout=60)
    ok(at.run())
    at.file_uploader(key="upload").set_value(("pets.csv", b"w,kind\n1,a\n2,b\n", "text/csv"))
    ok(at.run())
    (message,) = [plain(e.value) for e in at.error]
    assert message.startswith("Preparing a project from 'pets.csv' failed: Unexpected error")
    assert "secret" not in message  # the details stay in the server's log
    assert at.selectbox(key="chosen").value  # the rest of the page is drawn
