"""Sample datasets: the bundled files equal their seeded generators and have what
docs/mathematics.md §9 needs."""

import numpy as np
import pytest

from rlscore.data.samples import bundled as datasets
from rlscore.data.samples.bundled import list_samples, load_sample, sample_meta


@pytest.mark.parametrize("name", list_samples())
@pytest.mark.parametrize("split", datasets.SPLITS)
def test_bundled_files_equal_the_generators(name, split):
    d = load_sample(name, split)
    X, y, features = datasets._generate(name, split)
    # same random draws; sin/cos/sqrt may differ in the last bits between numpy builds
    np.testing.assert_allclose(d.X, X, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(d.y, y)
    assert d.feature_names == features
    assert d.X.dtype == np.float64 and np.isfinite(d.X).all()


@pytest.mark.parametrize("name", list_samples())
def test_metadata_record(name):
    meta = sample_meta(name)
    d = load_sample(name)
    assert meta["classes"] == sorted(np.unique(d.y).tolist())
    assert meta["sigma"] > 0 and meta["lam"] > 0
    assert meta["n_pool"] == d.X.shape[0]
    assert meta["description"]
    if meta["image_shape"]:
        assert np.prod(meta["image_shape"]) == d.X.shape[1]


def test_generators_are_reproducible_and_seeded():
    a = datasets.make_two_moons_imbalanced(seed=3)
    b = datasets.make_two_moons_imbalanced(seed=3)
    c = datasets.make_two_moons_imbalanced(seed=4)
    np.testing.assert_array_equal(a[0], b[0])
    assert not np.array_equal(a[0], c[0])


def test_shapes_and_imbalance_of_the_paper_sets():
    X, y = datasets.make_spheres()
    assert X.shape == (1200, 2) and (y == 1).sum() == 600
    # each disc is one label, and discs are far apart compared with σ = 1.7
    centres = X.reshape(60, 20, 2).mean(1)
    assert (y.reshape(60, 20) == y.reshape(60, 20)[:, :1]).all()
    gaps = np.linalg.norm(centres[:, None] - centres[None], axis=-1) + np.eye(60) * 1e9
    assert gaps.min() > 7
    _, yc = datasets.make_circles_imbalanced()
    assert (yc == -1).sum() == 100 * (yc == 1).sum()
    _, ym = datasets.make_two_moons_imbalanced()
    assert (ym == -1).sum() == 10 * (ym == 1).sum()
    for name in ("circles", "two_moons"):
        yv = load_sample(name, "validation").y
        assert (yv == 1).sum() == (yv == -1).sum()


def test_validation_spheres_share_the_disc_labels():
    p, v = load_sample("spheres"), load_sample("spheres", "validation")
    np.testing.assert_array_equal(p.y, v.y)
    assert not np.array_equal(p.X, v.X)


def test_unknown_names_are_rejected():
    with pytest.raises(ValueError, match="unknown sample dataset 'nope'"):
        load_sample("nope")
    with pytest.raises(ValueError, match="split must be one of"):
        load_sample("spheres", "train")


def test_generators_serve_when_the_folder_is_absent(tmp_path, monkeypatch):
    monkeypatch.setattr(datasets, "SAMPLE_DIR", tmp_path / "absent")
    d = load_sample("circles")
    assert d.X.shape == (2020, 2) and d.meta["imbalance"] == 100.0
    datasets.write_samples(tmp_path / "out")
    assert (tmp_path / "out" / "circles.csv").exists()


@pytest.mark.parametrize("name", sorted(datasets._META))
def test_bundled_metadata_equals_what_the_samples_command_writes(name):
    """``python -m rlscore samples`` rewrote the files with another ``source`` than the one
    committed: the bundled record named ``rlscore.datasets``, a module that no longer exists."""
    import importlib
    import json
    import re

    record = json.loads(json.dumps(datasets._META[name]))
    meta = sample_meta(name)
    assert {k: meta[k] for k in record} == record
    made = re.match(r"generated: ([\w.]+)\.(\w+)\(", meta["source"])
    if made:  # the generator it names exists
        assert callable(getattr(importlib.import_module(made[1]), made[2]))
