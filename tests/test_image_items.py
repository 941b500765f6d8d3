"""Image items from files under a root: the pixel fallback against a direct numpy computation,
and every bad cell (traversal, absolute path, symlink out, not an image, missing, too many
pixels) refused with a message naming the column, the row and the reason — all refused rows
of a column in one message, and no project made."""

from __future__ import annotations

import os
import re

import numpy as np
import pandas as pd
import pytest
from PIL import Image
from reference.grey_pixels import grey_blocks
from support.image_files import bomb_png, png_bytes, write_two_classes

from rlscore.data.features import FeatureInputError
from rlscore.data.features.images import (
    MAX_IMAGE_PIXELS,
    MAX_LISTED,
    check_images,
    image_pixel_features,
    load_image,
    pixel_feature_names,
)
from rlscore.data.items.item_view import shown_items
from rlscore.data.projects.project import ProjectInputError
from rlscore.data.projects.table_project import project_from_table
from rlscore.data.upload.proposal import guess_image_column, guess_text_columns


@pytest.fixture(autouse=True)
def no_server_settings(monkeypatch):
    monkeypatch.delenv("RLSCORE_IMAGE_ROOT", raising=False)
    monkeypatch.delenv("RLSCORE_ALLOW_IMAGE_URLS", raising=False)


@pytest.fixture
def root(tmp_path):
    """An image root with good pictures and every kind of bad cell; a real picture outside
    it (so a refusal is not just "file missing")."""
    r = tmp_path / "root"
    r.mkdir()
    write_two_classes(r, 3)
    outside = tmp_path / "outside.png"
    outside.write_bytes(png_bytes(np.full((8, 8), 200)))
    (r / "notes.png").write_text("this is text, not a picture")
    (r / "big.png").write_bytes(bomb_png(8_000, 8_000))  # over the cap, under Pillow's guard
    (r / "bomb.png").write_bytes(bomb_png(100_000, 100_000))  # over Pillow's guard too
    (r / "escape.png").symlink_to(outside)
    (r / "loop.png").symlink_to(r / "loop.png")
    whole = png_bytes(np.random.default_rng(1).integers(0, 256, (64, 64, 3)))
    (r / "cut.png").write_bytes(whole[: len(whole) // 2])  # a download that stopped halfway
    return r


BAD_CELLS = {
    "../outside.png": r"contains '\.\.': paths must stay inside the image root",
    "pics/../../outside.png": r"contains '\.\.'",
    "escape.png": r"leads outside the image root \(through a symbolic link\)",
    "notes.png": r"'notes\.png' is not an image Pillow can read",
    "missing.png": r"no image file 'missing\.png' under the image root",
    "big.png": r"'big\.png' has 8000 × 8000 pixels, more than the 40,000,000 allowed",
    "bomb.png": r"'bomb\.png' has too many pixels .*more than the 40,000,000 allowed",
    "loop.png": r"'loop\.png' cannot be resolved to a file",
    "cut.png": r"'cut\.png' could not be decoded \(image file is truncated\)",
    "http://127.0.0.1:9/a.png": r"is a URL, and this server reads images only from files",
    "pics\x00.png": r"contains a NUL character",
}


@pytest.mark.parametrize("cell", list(BAD_CELLS))
def test_each_bad_cell_is_refused_naming_column_row_and_reason(root, cell):
    with pytest.raises(FeatureInputError) as caught:
        load_image(cell, root, "picture", 6)
    message = str(caught.value)
    assert message.startswith("image column 'picture', row 7: "), message
    assert re.search(BAD_CELLS[cell], message), message


def test_an_absolute_path_is_refused_even_inside_the_root(root):
    inside = str((root / "pics" / "bar_00.png").resolve())
    assert load_image("pics/bar_00.png", root).size == (24, 24)  # the same file, relative
    with pytest.raises(FeatureInputError, match=r"row 2: .* is an absolute path"):
        load_image(inside, root, "picture", 1)
    with pytest.raises(FeatureInputError, match="is an absolute path"):
        load_image("C:\\images\\a.png", root)


def test_the_pixel_cap_is_read_from_the_header_below_pillows_own_guard(root):
    # the bomb has no pixel data: decoding it first would fail with another message
    assert MAX_IMAGE_PIXELS < Image.MAX_IMAGE_PIXELS
    with pytest.raises(FeatureInputError, match="8000 × 8000 pixels, more than the 40,000,000"):
        load_image("big.png", root)
    # the cap is a parameter: a real 24 × 24 picture is refused under a cap of 500 pixels
    with pytest.raises(FeatureInputError, match=r"24 × 24 pixels, more than the 500 allowed"):
        load_image("pics/bar_00.png", root, max_pixels=500)
    assert load_image("pics/bar_00.png", root, max_pixels=576).size == (24, 24)


def test_the_pixel_fallback_equals_a_direct_numpy_computation(tmp_path):
    rng = np.random.default_rng(0)
    pictures = [rng.integers(0, 256, size=(32, 48, 3), dtype=np.uint8) for _ in range(5)]
    pictures.append(np.zeros((32, 48, 3), dtype=np.uint8) + [255, 0, 0])  # pure red
    for k, p in enumerate(pictures):
        (tmp_path / f"p{k}.png").write_bytes(png_bytes(p))
    size = (12, 8)  # width, height: blocks of 4 × 4 pixels
    X = image_pixel_features([f"p{k}.png" for k in range(6)], tmp_path, size=size)
    R = np.stack([grey_blocks(p, size) for p in pictures])
    assert X.shape == (6, 96) and X.dtype == np.float64
    np.testing.assert_allclose(X, R, atol=1.01 / 255)  # byte rounding in Pillow's integer math
    assert round(X[5, 0] * 255) == 76  # red's luma 0.299 · 255, not the channels' mean (85)
    names = pixel_feature_names(size)
    assert names[0] == "pixel_0_0" and names[11] == "pixel_0_11" and names[12] == "pixel_1_0"


def test_every_refused_row_is_listed_in_one_message(root):
    cells = ["pics/bar_00.png", "../outside.png", "pics/ring_00.png", "notes.png", "missing.png"]
    with pytest.raises(FeatureInputError) as caught:
        image_pixel_features(cells, root, column="picture")
    message = str(caught.value)
    assert message.startswith("image column 'picture': 3 of 5 rows cannot be read"), message
    assert "row 2: '../outside.png' contains '..'" in message
    assert "row 4: 'notes.png' is not an image" in message
    assert "row 5: no image file 'missing.png'" in message
    assert "row 1" not in message and "row 3" not in message  # the good rows are not named
    assert "no project is made until every row's image can be read" in message
    assert message.splitlines()[1:] == [  # a line per refused row, in row order
        "row 2: '../outside.png' contains '..': paths must stay inside the image root",
        "row 4: 'notes.png' is not an image Pillow can read",
        "row 5: no image file 'missing.png' under the image root",
    ]


def test_a_long_list_of_refused_rows_is_cut_and_counted(root):
    cells = [f"gone_{k}.png" for k in range(MAX_LISTED + 4)]
    with pytest.raises(FeatureInputError) as caught:
        check_images(cells, root, column="picture")
    message = str(caught.value)
    assert f"{MAX_LISTED + 4} of {MAX_LISTED + 4} rows" in message
    assert f"'gone_{MAX_LISTED - 1}.png'" in message and f"'gone_{MAX_LISTED}.png'" not in message
    assert message.count("no image file") == MAX_LISTED
    assert "and 4 more rows" in message


def _table(cells: list[str]) -> pd.DataFrame:
    return pd.DataFrame({"picture": cells, "kind": ["bar", "ring"] * (len(cells) // 2)})


def test_a_project_is_made_only_when_every_image_can_be_read(root):
    good = [f"pics/{kind}_{k:02d}.png" for k in range(3) for kind in ("bar", "ring")]
    project = project_from_table(
        _table(good), "pics", [], truth_column="kind", image_column="picture", image_root=root
    )
    assert project.n == 6 and project.items[0].kind == "image"
    assert project.feature_names == pixel_feature_names()
    bad = [*good[:4], "notes.png", "../outside.png"]
    with pytest.raises(ProjectInputError) as caught:
        project_from_table(
            _table(bad), "pics", [], truth_column="kind", image_column="picture", image_root=root
        )
    message = str(caught.value)
    assert "image column 'picture': 2 of 6 rows" in message
    assert "row 5: 'notes.png' is not an image" in message and "row 6: " in message


def test_with_an_embedding_the_images_are_still_checked_without_decoding(root):
    cells = ["pics/bar_00.png", "pics/ring_00.png", "big.png", "notes.png", "cut.png", "x.png"]
    table = _table(cells).assign(vec=["[0, 1]", "[1, 0]", "[1, 1]", "[0, 0]", "[1, 2]", "[2, 1]"])
    with pytest.raises(ProjectInputError) as caught:
        project_from_table(
            table,
            "pics",
            [],
            truth_column="kind",
            image_column="picture",
            image_root=root,
            embedding_column="vec",
        )
    message = str(caught.value)
    assert "row 3: 'big.png' has 8000 × 8000 pixels" in message
    assert "row 4: 'notes.png' is not an image" in message
    assert "row 5: 'cut.png' could not be decoded" in message  # verify() reads it through
    assert "row 6: no image file 'x.png'" in message
    table.loc[2:5, "picture"] = [
        f"pics/{kind}_{k:02d}.png" for k in (1, 2) for kind in ("bar", "ring")
    ]
    project = project_from_table(
        table,
        "pics",
        [],
        truth_column="kind",
        image_column="picture",
        image_root=root,
        embedding_column="vec",
    )
    assert project.X.shape == (6, 2) and project.meta["image_features"]["kind"] == "embedding"


def test_a_file_broken_after_the_project_was_made_is_a_message_when_shown(root):
    good = [f"pics/{kind}_{k:02d}.png" for k in range(2) for kind in ("bar", "ring")]
    project = project_from_table(
        _table(good), "pics", [], truth_column="kind", image_column="picture", image_root=root
    )
    [item] = shown_items(project, 1)
    assert item.kind == "image" and item.image.size == (24, 24) and item.text == good[1]
    (root / good[1]).write_text("<html>replaced</html>")
    os.replace(root / good[2], root / "elsewhere.png")
    [item] = shown_items(project, 1)
    assert item.kind == "error" and item.image is None
    assert (
        item.text == "image column 'picture', row 2: 'ring_00.png' is not an image Pillow can read"
    )
    [item] = shown_items(project, 2)
    assert item.kind == "error" and "row 3: no image file 'pics/bar_01.png'" in item.text


def test_long_image_paths_and_urls_are_guessed_as_the_image_column_not_as_text():
    table = pd.DataFrame(
        {
            "photo": [
                f"https://images.example.org/collection/2024/item_{k:05d}.jpg" for k in range(6)
            ],
            "note": [f"a short description of picture number {k}" for k in range(6)],
        }
    )
    assert guess_text_columns(table) == ["note"]
    assert guess_image_column(table, exclude=["note"]) == "photo"
