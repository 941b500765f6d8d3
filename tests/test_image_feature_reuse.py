"""Pixel features are read once per cells, files and settings (the Data page asks again on
every widget change); a file replaced under the same name is read again.

The reference is the grey pixels of each file computed here with Pillow; the count of images
opened shows what was read again."""

from __future__ import annotations

import os

import numpy as np
import pytest
from PIL import Image
from support.image_files import png_bytes, write_two_classes

from rlscore.data.features import FeatureInputError, images
from rlscore.data.features.recent_results import RecentResults


@pytest.fixture
def opened(monkeypatch) -> list:
    """The cells opened by the pixel features (one entry per image read), nothing kept yet."""
    monkeypatch.setattr(images, "_RECENT", RecentResults(images.RECENT_RESULTS))
    made = []
    real = images._load

    def counted(value, *args, **kwargs):
        made.append(value)
        return real(value, *args, **kwargs)

    monkeypatch.setattr(images, "_load", counted)
    return made


def reference(root, paths, size=(16, 16)) -> np.ndarray:
    """Grey, box-resized, scaled to [0, 1]: computed directly with Pillow."""
    rows = []
    for p in paths:
        with Image.open(root / p) as im:
            grey = im.convert("L").resize(size, Image.Resampling.BOX)
            rows.append(np.asarray(grey, dtype=np.float64).ravel() / 255.0)
    return np.array(rows)


def test_the_same_files_are_read_once_and_a_replaced_file_again(tmp_path, opened):
    paths = [p for p, _ in write_two_classes(tmp_path, 3)]
    first = images.image_pixel_features(paths, tmp_path)
    again = images.image_pixel_features(list(paths), tmp_path)
    assert len(opened) == len(paths)
    np.testing.assert_allclose(first, reference(tmp_path, paths), atol=1e-12)
    np.testing.assert_array_equal(again, first)
    # a caller spoiling its copy spoils nothing kept
    again[:] = 5.0
    np.testing.assert_array_equal(images.image_pixel_features(paths, tmp_path), first)
    assert len(opened) == len(paths)
    # the same name, other pixels (and another modification time)
    target = tmp_path / paths[0]
    target.write_bytes(png_bytes(np.full((24, 24), 128, dtype=np.uint8)))
    stat = target.stat()
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    changed = images.image_pixel_features(paths, tmp_path)
    assert len(opened) == 2 * len(paths)
    np.testing.assert_allclose(changed, reference(tmp_path, paths), atol=1e-12)
    assert not np.allclose(changed[0], first[0])


def test_other_settings_are_read_again(tmp_path, opened):
    paths = [p for p, _ in write_two_classes(tmp_path, 2)]
    images.image_pixel_features(paths, tmp_path)
    small = images.image_pixel_features(paths, tmp_path, size=(8, 8))
    assert len(opened) == 2 * len(paths)
    np.testing.assert_allclose(small, reference(tmp_path, paths, (8, 8)), atol=1e-12)


def test_a_refused_cell_is_refused_every_time(tmp_path, opened):
    paths = [p for p, _ in write_two_classes(tmp_path, 2)] + ["missing.png"]
    for _ in range(2):
        with pytest.raises(FeatureInputError, match="missing.png"):
            images.image_pixel_features(paths, tmp_path)
    assert len(opened) == 2 * len(paths)
