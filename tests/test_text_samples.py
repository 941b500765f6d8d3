"""The bundled text and image samples, and simulate on a text CSV from the command line."""

import json

import numpy as np
import pandas as pd
import pytest

from rlscore.cli.commands.simulate import main
from rlscore.data.features.images import resolve_image_path
from rlscore.data.items.search import search_texts
from rlscore.data.samples.bundled import (
    SAMPLE_DIR,
    ensure_sample_projects,
    list_samples,
    load_sample,
    project_from_sample,
)
from rlscore.storage import open_store

ITEM_SAMPLES = ("debian_sections", "debian_games", "digit_images")


def test_item_samples_are_listed_small_and_have_truth():
    assert set(ITEM_SAMPLES) <= set(list_samples())
    for name in ITEM_SAMPLES:
        for suffix in ("", "_validation"):
            path = SAMPLE_DIR / f"{name}{suffix}.csv"
            assert path.stat().st_size < 3_000_000
            assert pd.read_csv(path)["label"].notna().all()
    images = sum(p.stat().st_size for p in (SAMPLE_DIR / "images").rglob("*.png"))
    assert images < 1_000_000


def test_text_sample_projects_show_their_texts():
    p = project_from_sample("debian_games")
    df = pd.read_csv(SAMPLE_DIR / "debian_games.csv", keep_default_na=False)
    assert p.texts == df["text"].tolist() and p.items[1].values == df["package"].tolist()
    assert p.truth.tolist() == df["label"].tolist() and p.class_text(1) == "game"
    assert (p.truth == 1).sum() == 40 and p.n == 2000
    # the cold start: a search for "game" finds mostly games
    hits = search_texts(p.texts, r"\bgames?\b", regex=True)
    assert hits.size >= 10 and np.mean(p.truth[hits] == 1) > 0.5
    pool, val = load_sample("debian_games"), load_sample("debian_games", "validation")
    assert pool.X.shape[1] == val.X.shape[1] == 100
    assert pool.meta["text_features"]["explained_variance"] > 0.1


def test_image_sample_paths_stay_in_their_root_and_features_are_pixels():
    p = project_from_sample("digit_images")
    assert p.items[0].kind == "image" and p.X.shape == (400, 64)
    for value in p.items[0].values[:20]:
        resolve_image_path(p.meta["image_root"], value)
    assert sorted(set(p.truth.tolist())) == list(range(10))


def test_the_store_seeds_the_item_samples(tmp_path):
    with open_store(tmp_path / "s.sqlite3") as store:
        ensure_sample_projects(store)
        assert set(ITEM_SAMPLES) <= set(store.list_projects())
        loaded = store.load_project("debian_sections")
        assert loaded.texts == project_from_sample("debian_sections").texts
        np.testing.assert_array_equal(loaded.X, load_sample("debian_sections").X)


@pytest.fixture
def texts_csv(tmp_path):
    df = pd.read_csv(SAMPLE_DIR / "debian_sections.csv", keep_default_na=False)
    df = df[df["label"].isin(["games", "science"])].iloc[:120]
    df[["text", "label"]].to_csv(tmp_path / "texts.csv", index=False)
    return tmp_path / "texts.csv"


def test_simulate_reads_a_text_csv(texts_csv, tmp_path, capsys):
    out = tmp_path / "run.json"
    rc = main(["--data", str(texts_csv), "--text-column", "text", "--truth", "label",
               "--strategy", "random", "--queries", "6", "--validation", "0.25",
               "--text-dimension", "20", "--quiet", "--out", str(out)])  # fmt: skip
    assert rc == 0
    record = json.loads(out.read_text())
    assert record["data"] == str(texts_csv) and len(record["runs"]) == 1
    assert "random" in capsys.readouterr().out


def test_simulate_names_a_missing_truth_column(texts_csv, capsys):
    rc = main(["--data", str(texts_csv), "--text-column", "text", "--truth", "section"])
    assert rc == 2
    assert "no 'section' column" in capsys.readouterr().err
    rc = main(["--data", str(texts_csv), "--text-column", "nope"])
    assert rc == 2 and "'nope'" in capsys.readouterr().err
