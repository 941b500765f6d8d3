"""Embedding columns and image files: what is accepted, and every refusal names column and row."""

import os

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from rlscore.data.features import FeatureInputError
from rlscore.data.features.embeddings import embedding_matrix
from rlscore.data.features.images import (
    check_images,
    grey_pixels,
    image_pixel_features,
    open_image,
    resolve_image_path,
    server_image_root,
)


def test_embedding_cells_as_json_text_and_as_lists():
    text = pd.Series(["[1, 2.5, -3]", " [0,0,1e-3] ", "[4, 5, 6]"])
    np.testing.assert_array_equal(
        embedding_matrix(text, "emb"), [[1, 2.5, -3], [0, 0, 1e-3], [4, 5, 6]]
    )
    lists = pd.Series([np.array([1.0, 2.0]), [3, 4]])  # as Parquet gives them
    np.testing.assert_array_equal(embedding_matrix(lists, "emb"), [[1, 2], [3, 4]])


@pytest.mark.parametrize(
    "cells, message",
    [
        (["[1, 2]", "[1, 2, 3]", "[1, 2]", "[4]"], r"'vec'.*row 1 has 2 numbers but rows 2, 4"),
        (["[1, 2]", "[1, NaN]"], r"'vec', row 2 holds NaN"),
        (["[1, 2]", "[1, Infinity]"], r"'vec', row 2 holds NaN or an infinite"),
        (["[1, 2]", '[1, "two"]'], r"'vec', row 2 holds 'two', which is not a number"),
        (["[1, 2]", "[true, 2]"], r"'vec', row 2 holds True, which is not a number"),
        (["[1, 2]", "one two"], r"'vec', row 2 is not a vector \('one two'\)"),
        (["[1, 2]", None], r"'vec', row 2 is empty"),
        (["[1, 2]", "[]"], r"'vec', row 2 is an empty list"),
        (["[1, 2]", "3.5"], r"'vec', row 2 holds 3.5, not a list"),
    ],
)
def test_bad_embedding_cells_are_named(cells, message):
    with pytest.raises(FeatureInputError, match=message):
        embedding_matrix(pd.Series(cells, dtype=object), "vec")


def _png(path, size=(10, 6), value=128):
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("L", size, value).save(path)
    return path


@pytest.fixture
def root(tmp_path):
    r = tmp_path / "root"
    _png(r / "a.png", value=0)
    _png(r / "sub" / "b.png", value=255)
    (r / "notes.png").write_text("not an image")
    _png(tmp_path / "outside.png")
    return r


def test_paths_inside_the_root_resolve(root):
    assert resolve_image_path(root, "sub/b.png") == (root / "sub" / "b.png").resolve()
    assert resolve_image_path(root, "sub\\b.png") == (root / "sub" / "b.png").resolve()
    assert resolve_image_path(root, "./a.png") == (root / "a.png").resolve()


@pytest.mark.parametrize(
    "value, message",
    [
        ("../outside.png", "contains '..'"),
        ("sub/../../outside.png", "contains '..'"),
        ("sub\\..\\..\\outside.png", "contains '..'"),
        ("/etc/passwd", "is an absolute path"),
        ("C:\\Windows\\win.ini", "is an absolute path"),
        ("file:///etc/passwd", "is a URL"),
        ("https://example.org/cat.png", "is a URL"),
        ("missing.png", "no image file 'missing.png'"),
    ],
)
def test_paths_leaving_the_root_are_refused(root, value, message):
    with pytest.raises(FeatureInputError, match=rf"image column 'img', row 4: .*{message}"):
        resolve_image_path(root, value, "img", 3)


def test_a_file_whose_name_holds_a_backslash_is_read_by_that_name(root):
    # on POSIX a backslash is an ordinary character of a file name (explore18, finding 7)
    odd = _png(root / "mine" / "#hash &amp; <b>x<\\b> 50%.png", value=40)
    assert resolve_image_path(root, "mine/#hash &amp; <b>x<\\b> 50%.png") == odd.resolve()
    check_images(["mine/#hash &amp; <b>x<\\b> 50%.png", "a.png"], root, column="img")
    # a name with a backslash and no such file: the backslash separates folders (Windows)
    assert resolve_image_path(root, "sub\\b.png") == (root / "sub" / "b.png").resolve()
    # both exist: the name as written is the file
    literal = _png(root / "sub\\b.png", value=90)
    assert resolve_image_path(root, "sub\\b.png") == literal.resolve()


def test_a_refused_name_is_shown_as_written(root):
    with pytest.raises(FeatureInputError) as caught:
        resolve_image_path(root, "mine/<b>x<\\b> 50%.png", "img", 0)
    message = str(caught.value)
    # one backslash, as in the cell, and the path the backslash makes as a separator
    assert message == (
        "image column 'img', row 1: no image file 'mine/<b>x<\\b> 50%.png' under the image "
        "root, neither by that name nor as 'mine/<b>x</b> 50%.png' (a backslash read as a "
        "folder separator)"
    )
    assert "\\\\" not in message
    with pytest.raises(FeatureInputError) as caught:
        resolve_image_path(root, "pics\x00.png", "img", 0)
    assert "'pics\\x00.png' contains a NUL character" in str(caught.value)  # escaped, not raw
    assert "\x00" not in str(caught.value)


def test_a_symlink_out_of_the_root_is_refused(root, tmp_path):
    os.symlink(tmp_path / "outside.png", root / "link.png")
    os.symlink(tmp_path, root / "linkdir")
    for value in ("link.png", "linkdir/outside.png"):
        with pytest.raises(FeatureInputError, match="leads outside the image root"):
            resolve_image_path(root, value, "img", 0)
    os.symlink(root / "a.png", root / "inside.png")  # a link within the root is fine
    assert resolve_image_path(root, "inside.png") == (root / "a.png").resolve()


def test_non_images_and_huge_images_are_refused(root):
    with pytest.raises(FeatureInputError, match=r"'img', row 2: 'notes.png' is not an image"):
        open_image(root / "notes.png", "img", 1)
    big = _png(root / "big.png", size=(300, 200))
    with pytest.raises(FeatureInputError, match=r"300 × 200 pixels, more than the 50,000"):
        open_image(big, "img", 0, max_pixels=50_000)
    with pytest.raises(FeatureInputError, match="row 2: 'notes.png' is not an image"):
        image_pixel_features(["a.png", "notes.png"], root, column="img")


def test_decompression_bombs_are_refused_before_decoding(root):
    # small files whose headers promise 48 and 400 million pixels: refused from the header
    # (rlscore's cap), or by Pillow's own guard at twice its limit, which is caught
    for size, message in [((8000, 6000), "8000 × 6000 pixels"), ((20_000, 20_000), "too many")]:
        bomb = root / "bomb.png"
        Image.new("1", size).save(bomb)
        assert bomb.stat().st_size < 200_000
        with pytest.raises(FeatureInputError, match=rf"'img', row 1: 'bomb.png' .*{message}"):
            open_image(bomb, "img", 0)


def test_pixel_features_are_grey_box_averages(root):
    im = Image.new("RGB", (4, 2))
    im.putdata([(255, 255, 255), (0, 0, 0), (255, 0, 0), (0, 0, 255)] * 2)
    # ITU-R 601 luma, then 2 × 2 boxes averaged: (255 + 0) / 2 and (76 + 29) / 2
    np.testing.assert_allclose(grey_pixels(im, (2, 1)), [127.5 / 255, 52.5 / 255], atol=1 / 255)
    X = image_pixel_features(["a.png", "sub/b.png"], root, size=(3, 2))
    np.testing.assert_array_equal(X, [[0.0] * 6, [1.0] * 6])


def test_the_server_image_root_comes_from_the_environment(root):
    assert server_image_root({}) is None
    assert server_image_root({"RLSCORE_IMAGE_ROOT": str(root)}) == root.resolve()
    with pytest.raises(FeatureInputError, match="names no existing folder"):
        server_image_root({"RLSCORE_IMAGE_ROOT": str(root / "nope")})
