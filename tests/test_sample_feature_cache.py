"""The item samples' features are shipped, used only while their inputs are unchanged, and a
fresh install's first page builds none (issue 36, item 4).

The references are fresh builds (:func:`rlscore.data.samples.bundled.build_item_features`,
from the sample's files) and the digest written out here byte by byte.
"""

from __future__ import annotations

import hashlib
import json
import shutil

import numpy as np
import pytest
from support.app import app_page, ok

from rlscore.data.samples import bundled, feature_cache
from rlscore.data.samples.bundled import ITEM_SAMPLES, SAMPLE_DIR, build_item_features
from rlscore.storage import open_store


@pytest.mark.parametrize("name", list(ITEM_SAMPLES))
def test_the_shipped_features_are_a_fresh_build_of_the_samples_files(name):
    digest = feature_cache.input_digest(
        name, ITEM_SAMPLES[name], SAMPLE_DIR, bundled._item_images(name)
    )
    kept = feature_cache.load_features(name, digest, SAMPLE_DIR)
    assert kept is not None, "run `python -m rlscore samples` to write the features"
    X, names, summary = build_item_features(name)
    # BLAS may round differently run to run: equal to 1e-9 of features of size ~0.1
    np.testing.assert_allclose(kept[0], X, rtol=1e-6, atol=1e-9)
    assert kept[1] == names
    assert kept[2]["sigma"] == pytest.approx(summary["sigma"], rel=1e-6)
    assert {k for k in kept[2] if k != "sigma"} == {k for k in summary if k != "sigma"}


def test_the_digest_covers_the_files_and_the_settings(tmp_path):
    """An edited CSV, picture or setting is another digest: the kept features are not used."""
    name = "debian_sections"
    for suffix in ("", "_validation"):
        shutil.copy(SAMPLE_DIR / f"{name}{suffix}.csv", tmp_path / f"{name}{suffix}.csv")
    spec = ITEM_SAMPLES[name]
    h = hashlib.sha256(json.dumps(spec, sort_keys=True, default=str).encode())
    for suffix in ("", "_validation"):
        h.update(f"{name}{suffix}.csv".encode())
        h.update((tmp_path / f"{name}{suffix}.csv").read_bytes())
    digest = feature_cache.input_digest(name, spec, tmp_path)
    assert digest == h.hexdigest()
    feature_cache.save_features(name, digest, np.eye(3), ["a", "b", "c"], {"k": 1}, tmp_path)
    assert feature_cache.load_features(name, digest, tmp_path)[1] == ["a", "b", "c"]
    with open(tmp_path / f"{name}_validation.csv", "a", encoding="utf-8") as f:
        f.write("x,1\n")
    edited = feature_cache.input_digest(name, spec, tmp_path)
    assert edited != digest and feature_cache.load_features(name, edited, tmp_path) is None
    changed = {**spec, "text_features": {**spec["text_features"], "n_components": 7}}
    assert feature_cache.input_digest(name, changed, tmp_path) != digest
    picture = next(p for p in bundled._item_images("digit_images"))
    images = feature_cache.input_digest("digit_images", {}, SAMPLE_DIR, [picture])
    assert images != feature_cache.input_digest("digit_images", {}, SAMPLE_DIR, [])


def test_a_fresh_installs_first_page_builds_no_features(tmp_path, monkeypatch):
    """The first page on a fresh database creates every sample project without building a
    text or image feature (any such build raises here)."""

    def refused(*args, **kwargs):
        raise AssertionError("features built inside a page request")

    bundled._item_features.cache_clear()
    bundled._item_sample_meta_cached.cache_clear()
    monkeypatch.setattr(bundled, "build_text_features", refused)
    monkeypatch.setattr(bundled, "image_pixel_features", refused)
    monkeypatch.setenv("RLSCORE_DB", str(tmp_path / "fresh.sqlite3"))
    at = app_page("label.py")
    at.query_params["annotator"] = "ada"
    ok(at.run())
    with open_store(tmp_path / "fresh.sqlite3") as store:
        assert set(ITEM_SAMPLES) <= set(store.list_projects())
    bundled._item_features.cache_clear()
    bundled._item_sample_meta_cached.cache_clear()


def test_a_damaged_file_is_no_features_and_a_save_replaces_it_whole(tmp_path):
    """A file cut short (an empty one, a truncated one) reads as none — the features are
    built afresh — and a save writes a temporary file and renames it into place."""
    name, digest = "debian_games", "d" * 64
    path = feature_cache.save_features(name, digest, np.eye(3), ["a", "b", "c"], {}, tmp_path)
    whole = path.read_bytes()
    for damaged in (b"", whole[: len(whole) // 2]):
        path.write_bytes(damaged)
        assert feature_cache.load_features(name, digest, tmp_path) is None
    feature_cache.save_features(name, digest, 2 * np.eye(3), ["a", "b", "c"], {}, tmp_path)
    np.testing.assert_array_equal(
        feature_cache.load_features(name, digest, tmp_path)[0], 2 * np.eye(3)
    )
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left
