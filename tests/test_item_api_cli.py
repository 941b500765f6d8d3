"""Issue 22.6: the Python API and the command line say the same about items.

``python -m rlscore simulate --data texts.csv --text-column text`` (and ``--embedding-column``,
``--image-column``) runs on the features ``project_from_table`` builds with the same options;
the text features are those scikit-learn's TfidfVectorizer + TruncatedSVD give on the same
settings, and a simulation on those reference features picks the same points. The label
export (``python -m rlscore labels``) carries the item columns the annotator saw.
"""

from __future__ import annotations

import inspect
import io
import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from PIL import Image
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfVectorizer

from rlscore.cli.commands import labels as labels_cli
from rlscore.cli.commands import simulate as simulate_cli
from rlscore.data.projects.project import ProjectInputWarning
from rlscore.data.projects.table_project import project_from_table
from rlscore.data.upload.table_reading import read_table
from rlscore.experiments.simulation.simulate import simulate
from rlscore.storage import Event, open_store

CATS = ["the cat sat on the warm mat", "a small cat chased the mouse", "my cat sleeps all day",
        "the kitten and the cat play", "cats purr when they are happy"]  # fmt: skip
MONEY = ["the stock market fell sharply", "investors sold shares of the bank",
         "the market rallied after the report", "bond yields rose on inflation news",
         "the bank raised interest rates again"]  # fmt: skip
TAILS = ["indeed", "today", "again", "now", "at noon", "in spring"]
DIMENSION = 10


def sentences(n: int = 60) -> pd.DataFrame:
    """``n`` sentences of two topics with a truth, a context and a year column."""
    rng = np.random.default_rng(0)
    rows = []
    for i in range(n):
        cats = i % 2 == 0
        base = (CATS if cats else MONEY)[int(rng.integers(5))]
        rows.append({
            "text": f"{base} {TAILS[int(rng.integers(len(TAILS)))]} story {i}",
            "label": "cats" if cats else "money",
            "source": f"feed {i % 3}",
            "year": 2000 + i % 5,
        })  # fmt: skip
    return pd.DataFrame(rows)


def reference_text_features(texts: list[str]) -> np.ndarray:
    """scikit-learn's own LSA on rlscore's default settings (sublinear tf, 20 000 terms,
    randomized SVD seeded 0)."""
    tfidf = TfidfVectorizer(sublinear_tf=True, max_features=20_000, dtype=np.float64)
    W = tfidf.fit_transform(texts)
    return TruncatedSVD(n_components=DIMENSION, random_state=0).fit_transform(W)


def run_cli(argv: list[str], out) -> dict:
    assert simulate_cli.main([*argv, "--quiet", "--out", str(out)]) == 0
    return json.loads(out.read_text())


def picks(record: dict) -> list:
    return [s["index"] for s in record["runs"][0]["steps"][1:]]


def errors(record: dict) -> list:
    return [s["validation_error"] for s in record["runs"][0]["steps"]]


@pytest.fixture
def texts_csv(tmp_path):
    path = tmp_path / "texts.csv"
    sentences().to_csv(path, index=False)
    return path


def test_cli_options_are_the_api_keywords():
    """Every item option of the command is a keyword of project_from_table, spelled alike."""
    keywords = inspect.signature(project_from_table).parameters
    options = {a.dest for a in simulate_cli.build_parser()._actions}  # noqa: SLF001
    pairs = {
        "text_column": "text_columns",
        "image_column": "image_column",
        "image_root": "image_root",
        "embedding_column": "embedding_column",
        "feature_column": "feature_columns",
        "standardize": "standardize",
    }
    for option, keyword in pairs.items():
        assert option in options and keyword in keywords


def test_text_column_simulates_on_scikit_learns_features(texts_csv, tmp_path):
    df = read_table(texts_csv, texts_csv.name)
    reference = reference_text_features(df["text"].tolist())
    project = project_from_table(
        df, "t", truth_column="label", text_columns=["text"],
        text_settings={"n_components": DIMENSION},
    )  # fmt: skip
    np.testing.assert_allclose(project.X, reference, atol=1e-10)
    assert "year" not in project.feature_names  # a text project's features are the text's

    record = run_cli(
        ["--data", str(texts_csv), "--text-column", "text", "--truth", "label",
         "--text-dimension", str(DIMENSION), "--queries", "8"], tmp_path / "o.json",
    )  # fmt: skip
    assert record["params"]["sigma"] == "median"  # read off the points, not a constant 1
    y = df["label"].to_numpy()
    ref = simulate(reference, y, "arls-focused", queries=8, params=record["params"]).to_dict()
    assert picks(record) == picks(ref) and len(picks(record)) == 8
    np.testing.assert_allclose(errors(record), errors(ref), atol=1e-12)
    assert errors(record)[-1] < errors(record)[0]  # it learns the two topics


def test_embedding_column_is_the_feature_matrix(tmp_path):
    rng = np.random.default_rng(1)
    y = np.repeat(["a", "b"], 20)
    E = rng.normal(size=(40, 3)) + np.where(y == "a", 2.0, -2.0)[:, None]
    path = tmp_path / "emb.csv"
    pd.DataFrame({"emb": [json.dumps(v.tolist()) for v in E], "label": y}).to_csv(path)
    record = run_cli(["--data", str(path), "--embedding-column", "emb", "--queries", "5"],
                     tmp_path / "o.json")  # fmt: skip
    ref = simulate(E, y, "arls-focused", queries=5, params=record["params"]).to_dict()
    assert picks(record) == picks(ref)
    np.testing.assert_allclose(errors(record), errors(ref), atol=1e-12)


def test_image_column_runs_end_to_end(tmp_path):
    root = tmp_path / "images"
    root.mkdir()
    rows = []
    for i in range(16):
        dark = i % 2 == 0
        pixels = np.full((8, 8), 30 if dark else 220, dtype=np.uint8)
        pixels[i % 8, :] = 128  # every image differs
        Image.fromarray(pixels).save(root / f"img{i}.png")
        rows.append({"path": f"img{i}.png", "label": "dark" if dark else "light"})
    path = tmp_path / "images.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    record = run_cli(["--data", str(path), "--image-column", "path", "--image-root", str(root),
                      "--queries", "4"], tmp_path / "o.json")  # fmt: skip
    assert len(picks(record)) == 4 and record["n_pool"] == 16
    # without a root the command says what is missing, in one line
    assert simulate_cli.main(["--data", str(path), "--image-column", "path", "--quiet"]) == 2


def test_numeric_features_and_scaling_options(tmp_path):
    """--feature-column and --standardize mean what feature_columns and standardize mean."""
    df = sentences()
    df["n_words"] = df["text"].str.split().str.len()
    df["mass"] = np.where(df["label"] == "cats", 4000.0, 4100.0) + np.arange(60) * 10
    path = tmp_path / "mixed.csv"
    df.to_csv(path, index=False)
    for flag, scaled in (("auto", True), ("no", False)):
        with pytest.warns(ProjectInputWarning) if scaled else warnings.catch_warnings():
            if not scaled:
                warnings.simplefilter("error")  # nothing to say when nothing is scaled
            record = run_cli(["--data", str(path), "--feature-column", "n_words",
                              "--feature-column", "mass", "--standardize", flag,
                              "--queries", "3"], tmp_path / "o.json")  # fmt: skip
            project = project_from_table(
                df, "m", ["n_words", "mass"], truth_column="label",
                standardize=None if flag == "auto" else False,
            )  # fmt: skip
        assert project.meta["standardized"] is scaled
        ref = simulate(project.X, project.truth, "arls-focused", queries=3,
                       params=record["params"]).to_dict()  # fmt: skip
        assert picks(record) == picks(ref)


def test_export_carries_the_item_columns(tmp_path, capsys):
    df = sentences(12)
    project = project_from_table(
        df, "news", truth_column="label", text_columns=["text"], context_columns=["source"],
        text_settings={"n_components": 3},
    )  # fmt: skip
    db = tmp_path / "labels.sqlite3"
    with open_store(db) as store:
        store.create_project(project)
        for point, label in ((4, "cats"), (7, "money")):
            store.append_event("news", Event("label", point, label, "ann"))
    assert labels_cli.main(["--db", str(db), "--project", "news"]) == 0
    out = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert out["index"].tolist() == [4, 7]
    assert out["text"].tolist() == df["text"][[4, 7]].tolist()
    assert out["source"].tolist() == df["source"][[4, 7]].tolist()
    assert labels_cli.main(["--db", str(db), "--project", "news", "--format", "json",
                            "--no-features"]) == 0  # fmt: skip
    records = json.loads(capsys.readouterr().out)
    assert [r["items"] for r in records] == [
        {"text": df["text"][i], "source": df["source"][i]} for i in (4, 7)
    ]


def test_samples_command_counts_what_it_writes(tmp_path, monkeypatch, capsys):
    """``python -m rlscore samples`` says how many datasets it wrote, and wrote that many (the
    item samples come from their own scripts, and the message says so)."""
    from rlscore.cli.commands import samples as samples_cli
    from rlscore.data.samples.bundled import ITEM_SAMPLES, SAMPLE_DIR

    monkeypatch.setattr(samples_cli, "SAMPLE_DIR", tmp_path)
    shipped = {p: p.stat().st_mtime_ns for p in (SAMPLE_DIR / "features").glob("*.npz")}
    assert samples_cli.main([]) == 0
    # pointed elsewhere, it leaves the shipped features alone (a test rewrote them under
    # the suite's other readers, one of which read a file cut short)
    assert {p: p.stat().st_mtime_ns for p in shipped} == shipped
    assert not (tmp_path / "features").exists()
    out = capsys.readouterr().out
    written = sorted(p.stem for p in tmp_path.glob("*.json"))
    count = int(re.search(r"wrote (\d+) generated datasets", out).group(1))
    assert count == len(written) > 0
    for name in written:
        assert (tmp_path / f"{name}.csv").exists() and name in out
    assert all(name in out for name in ITEM_SAMPLES)
    assert not any((tmp_path / f"{name}.csv").exists() for name in ITEM_SAMPLES)
