"""Projects with items: texts, images, embeddings and context columns next to the features."""

import io
import json

import numpy as np
import pandas as pd
import pytest
from PIL import Image
from reference.features import tfidf_dense
from support.access import drop_version_5
from support.stores import raw_sql

from rlscore.data.items.columns import ItemColumn, item_values, raw_feature_values
from rlscore.data.projects.project import Project, ProjectInputError, ProjectInputWarning
from rlscore.data.projects.standardization import standardize_columns
from rlscore.data.projects.table_project import project_from_table
from rlscore.sessions import LabelingSession
from rlscore.storage import open_store
from rlscore.storage.sql.schema import SCHEMA_VERSION

SENTENCES = [
    "refund my order now, the parcel never arrived",
    "great product, works as described",
    "the parcel arrived broken, I want a refund",
    "love it, five stars",
    "still waiting for my refund after two weeks",
    "fast delivery and friendly support",
    "item missing from the parcel, refund please",
    "excellent quality, would buy again",
]
LABELS = ["complaint", "praise"] * 4


def text_table():
    return pd.DataFrame(
        {
            "text": SENTENCES,
            "label": LABELS,
            "stars": [1, 5, 1, 5, 2, 4, 1, 5],
            "emb": [json.dumps([i, -i, i % 3]) for i in range(8)],
        }
    )


def test_text_columns_become_items_and_features():
    p = project_from_table(
        text_table(), "reviews", truth_column="label", text_columns=["text"],
        context_columns=["stars"], text_settings={"n_components": 3, "exact_svd": True},
    )  # fmt: skip
    assert [(c.name, c.kind) for c in p.items] == [("text", "text"), ("stars", "context")]
    assert p.texts == SENTENCES and p.classes == ["complaint", "praise"]
    assert p.feature_names == ["text_svd_1", "text_svd_2", "text_svd_3"]
    # the features are U_k S_k of the formula's TF-IDF matrix W (the top singular values are
    # tied here, so the basis is checked by what defines it: W Wᵀ X = X S_k²)
    W, _ = tfidf_dense(SENTENCES)
    S = np.linalg.svd(W, compute_uv=False)[:3]
    np.testing.assert_allclose(np.linalg.svd(p.X, compute_uv=False), S, atol=1e-10)
    np.testing.assert_allclose(W @ W.T @ p.X, p.X * S**2, atol=1e-10)
    assert p.meta["text_features"]["dimension"] == 3
    assert 0 < p.meta["text_features"]["explained_variance"] < 1
    assert item_values(p.items, 2) == [("text", "text", SENTENCES[2]), ("stars", "context", 1)]


def test_numeric_features_embeddings_and_texts_together():
    # unscaled (standardize=False): by default 'stars' is weighted against the other blocks
    # (tests/test_numeric_beside_items.py)
    p = project_from_table(
        text_table(), "mix", feature_columns=["stars"], truth_column="label",
        text_columns=["text"], embedding_column="emb", text_settings={"n_components": 2},
        standardize=False,
    )  # fmt: skip
    assert p.feature_names == ["stars", "emb[0]", "emb[1]", "emb[2]", "text_svd_1", "text_svd_2"]
    np.testing.assert_array_equal(p.X[:, 1:4], [[i, -i, i % 3] for i in range(8)])
    np.testing.assert_array_equal(p.X[:, 0], text_table()["stars"])


def test_old_calls_still_build_numeric_projects():
    df = pd.DataFrame({"a": [1.0, 2, 3], "b": [0.0, 1, 0], "y": [0, 1, 0]})
    p = project_from_table(df, "old", truth_column="y")
    assert p.items == [] and p.texts is None and p.feature_names == ["a", "b"]
    with pytest.raises(ProjectInputError, match="not numeric"):
        project_from_table(text_table(), "t", feature_columns=["text"], truth_column="label")


def test_bad_items_are_refused_with_column_and_row():
    df = text_table()
    df.loc[3, "text"] = "x" * 100_001
    with pytest.raises(ProjectInputError, match=r"'text' has cells longer .* in row 4"):
        project_from_table(df, "t", truth_column="label", text_columns=["text"])
    with pytest.raises(ProjectInputError, match=r"'stars' holds numbers in 100%"):
        project_from_table(text_table(), "t", truth_column="label", text_columns=["stars"])
    df = text_table().assign(text=["", None] * 4)
    with pytest.raises(ProjectInputError, match=r"'text' is empty in every row"):
        project_from_table(df, "t", truth_column="label", text_columns=["text"])
    df = text_table()
    df.loc[[1, 5], "text"] = ""
    with pytest.warns(ProjectInputWarning, match=r"'text' is empty in rows 2, 6"):
        p = project_from_table(df, "t", truth_column="label", text_columns=["text"])
    assert np.all(p.X[[1, 5]] == 0)
    df = text_table()
    df.loc[4, "emb"] = "[1, 2]"
    with pytest.raises(ProjectInputError, match=r"'emb'.*row 5 has 2"):
        project_from_table(df, "t", truth_column="label", embedding_column="emb")
    with pytest.raises(ProjectInputError, match="needs an image root"):
        project_from_table(df, "t", truth_column="label", image_column="text")
    with pytest.raises(ProjectInputError, match="also chosen as an item"):
        project_from_table(df, "t", truth_column="label", text_columns=["label"])


def test_image_projects_read_files_under_the_root(tmp_path):
    root = tmp_path / "imgs"
    root.mkdir()
    for k in range(4):
        Image.new("L", (8, 8), 60 * k).save(root / f"{k}.png")
    df = pd.DataFrame({"path": [f"{k}.png" for k in range(4)], "y": [0, 0, 1, 1]})
    p = project_from_table(
        df, "imgs", truth_column="y", image_column="path", image_root=root, image_size=(2, 2)
    )
    np.testing.assert_allclose(p.X, np.repeat([[0], [60], [120], [180]], 4, axis=1) / 255)
    assert p.items[0].kind == "image" and p.meta["image_root"] == str(root)
    df.loc[2, "path"] = "../secret.png"
    with pytest.raises(ProjectInputError, match=r"'path', row 3: '../secret.png' contains '..'"):
        project_from_table(df, "i", truth_column="y", image_column="path", image_root=root)
    df.loc[2, "path"] = "2.png"
    df["emb"] = ["[0, 1]", "[1, 0]", "[1, 1]", "[0, 0]"]
    p = project_from_table(
        df, "e", truth_column="y", image_column="path", image_root=root, embedding_column="emb"
    )
    assert p.feature_names == ["emb[0]", "emb[1]"]
    assert p.meta["image_features"] == {"kind": "embedding", "column": "emb"}


def test_values_that_overflow_are_refused_or_standardised_exactly():
    df = pd.DataFrame(
        {"huge": [1e308, -1e308, 0.0, 5e307], "ok": [1.0, 2, 3, 4], "y": [0, 1, 0, 1]}
    )
    with pytest.raises(ProjectInputError, match=r"'huge' hold values as large as 1e\+308"):
        project_from_table(df, "o", truth_column="y", standardize=False)
    with pytest.warns(ProjectInputWarning, match="'huge'"):
        p = project_from_table(df, "o", truth_column="y", standardize=True)
    # the same standardisation computed in a scale where nothing overflows
    small = np.array([1.0, -1.0, 0.0, 0.5])
    np.testing.assert_allclose(p.X[:, 0], (small - small.mean()) / small.std(), rtol=1e-12)
    assert np.isfinite(p.X).all() and np.all(p.X.std(axis=0) > 0.99)
    raw = raw_feature_values(p.X, p.feature_names, p.meta, 1)
    assert raw["huge"] == pytest.approx(-1e308, rel=1e-12) and raw["ok"] == pytest.approx(2.0)


def test_standardising_never_zeroes_a_column():
    # the spread is far below the rounding of the mean: standardising would give zeros
    df = pd.DataFrame({"flat": [1e20, 1e20 + 2**14, 1e20, 1e20 + 2**14], "y": [0, 1, 0, 1]})
    p = project_from_table(df, "f", truth_column="y", standardize=True)
    assert np.ptp(p.X[:, 0]) > 0
    # subnormal values: their variance underflows to 0 unless they are rescaled first
    df = pd.DataFrame({"tiny": [1e-320, 2e-320, 1e-320, 3e-320], "y": [0, 1, 0, 1]})
    p = project_from_table(df, "t", truth_column="y", standardize=True)
    ref = np.array([1.0, 2, 1, 3])
    np.testing.assert_allclose(p.X[:, 0], (ref - ref.mean()) / ref.std(), rtol=1e-2)
    with pytest.raises(ProjectInputError, match=r"'c' cannot be standardised"):
        standardize_columns(np.array([[1.0, 1.0], [2.0, np.nan]]), ["b", "c"])


def test_items_are_stored_and_an_old_database_opens(db_target):
    p = project_from_table(text_table(), "reviews", truth_column="label", text_columns=["text"])
    plain = Project("plain", np.eye(3), ["a", "b", "c"], list("xyz"), None, [0, 1])
    with open_store(db_target) as store:
        store.create_project(p)
        store.create_project(plain)
        loaded = store.load_project("reviews")
        assert loaded.items == p.items and store.load_project("plain").items == []
    # the database as rlscore wrote it before items (schema 3): it opens and keeps everything
    raw_sql(db_target, "DELETE FROM projects WHERE name = 'reviews'")
    raw_sql(db_target, "ALTER TABLE projects DROP COLUMN items")
    drop_version_5(db_target)
    raw_sql(db_target, "UPDATE schema_info SET version = 3")
    with open_store(db_target) as store:
        assert store.schema_version == SCHEMA_VERSION == 5
        assert store.load_project("plain").items == [] and store.list_projects() == ["plain"]
        store.create_project(p)
        assert store.load_project("reviews").texts == SENTENCES


def test_progress_is_reported_while_a_project_is_built():
    seen = []
    project_from_table(
        text_table(), "p", truth_column="label", text_columns=["text"],
        progress=lambda f, m: seen.append(f),
    )  # fmt: skip
    assert seen and seen[-1] == 1.0 and seen == sorted(seen)


def test_a_session_labels_a_text_project_and_the_export_carries_the_text(tmp_path):
    p = project_from_table(
        text_table(), "reviews", id_column=None, truth_column="label", text_columns=["text"],
        context_columns=["stars"], text_settings={"n_components": 4},
    )  # fmt: skip
    with open_store(tmp_path / "l.sqlite3") as store:
        store.create_project(p)
        s = LabelingSession(store, "reviews", "arls-focused", annotator="ann")
        shown = []
        for _ in range(4):
            i, _score = s.query()
            shown.append(i)
            s.label(i, p.truth[i])
        df = pd.read_csv(io.StringIO(s.export("csv")))
        assert df["index"].tolist() == shown
        assert df["text"].tolist() == [SENTENCES[i] for i in shown]
        assert df["stars"].tolist() == [text_table()["stars"][i] for i in shown]
        assert df["label"].tolist() == [LABELS[i] for i in shown]
        records = json.loads(s.export("json"))
        assert records[0]["items"] == {"text": SENTENCES[shown[0]], "stars": int(df["stars"][0])}


def test_item_columns_are_checked():
    with pytest.raises(ProjectInputError, match="has 2 values for 3 points"):
        Project("p", np.eye(3), ["a", "b", "c"], list("xyz"), None, [0, 1],
                items=[ItemColumn("t", "text", ["a", "b"])])  # fmt: skip
    with pytest.raises(ValueError, match="kind 'video'"):
        ItemColumn("t", "video", [])
