"""Image items at http(s) URLs, from a local web server started by the test: refused unless
the server allows them; when allowed, fetched once (cached), capped in bytes and pixels, and an
answer that is not an image (an HTML page) refused with a message that names the row and does
not repeat the URL's credentials or query."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from reference.grey_pixels import grey_blocks
from support.image_files import class_picture, png_bytes
from support.image_site import image_site

from rlscore.data.features import FeatureInputError
from rlscore.data.features.image_urls import (
    URLRefused,
    clear_url_cache,
    fetch_image_bytes,
    image_urls_allowed,
)
from rlscore.data.features.images import image_pixel_features, load_image
from rlscore.data.items.item_view import shown_items
from rlscore.data.projects.project import ProjectInputError
from rlscore.data.projects.table_project import project_from_table

PICTURES = {
    f"/pic/{kind}_{k}.png": class_picture(kind, k) for kind in ("bar", "ring") for k in (0, 1)
}


@pytest.fixture
def site():
    """A web site on 127.0.0.1 (a thread of this test), with a fresh URL cache."""
    clear_url_cache()
    with image_site(PICTURES) as served:
        yield served
    clear_url_cache()


@pytest.fixture
def allowed(monkeypatch):
    monkeypatch.setenv("RLSCORE_ALLOW_IMAGE_URLS", "1")
    monkeypatch.delenv("RLSCORE_IMAGE_ROOT", raising=False)


@pytest.fixture
def not_allowed(monkeypatch):
    monkeypatch.delenv("RLSCORE_ALLOW_IMAGE_URLS", raising=False)
    monkeypatch.delenv("RLSCORE_IMAGE_ROOT", raising=False)


def test_the_setting_is_read_from_the_environment():
    assert not image_urls_allowed({})
    assert not image_urls_allowed({"RLSCORE_ALLOW_IMAGE_URLS": "0"})
    assert image_urls_allowed({"RLSCORE_ALLOW_IMAGE_URLS": "1"})
    assert image_urls_allowed({"RLSCORE_ALLOW_IMAGE_URLS": " Yes "})


def test_urls_are_refused_and_not_fetched_unless_the_server_allows_them(
    site, not_allowed, tmp_path
):
    url = f"{site.url}/pic/bar_0.png"
    with pytest.raises(FeatureInputError) as caught:
        load_image(url, tmp_path, "picture", 2)
    message = str(caught.value)
    assert message.startswith("image column 'picture', row 3: "), message
    assert "is a URL, and this server reads images only from files" in message
    assert "RLSCORE_ALLOW_IMAGE_URLS=1" in message
    assert site.hits == {}  # nothing was requested
    table = pd.DataFrame({"picture": [url, f"{site.url}/pic/ring_0.png"], "kind": ["bar", "ring"]})
    with pytest.raises(ProjectInputError, match="needs an image root"):
        project_from_table(table, "web", [], truth_column="kind", image_column="picture")


def test_allowed_urls_give_the_same_features_and_are_fetched_once(site, allowed):
    urls = [f"{site.url}{path}" for path in PICTURES]
    X = image_pixel_features(urls, None, size=(8, 6))
    R = np.stack([grey_blocks(PICTURES[p], (8, 6)) for p in PICTURES])
    np.testing.assert_allclose(X, R, atol=1.01 / 255)
    table = pd.DataFrame({"picture": urls, "kind": ["bar", "bar", "ring", "ring"]})
    project = project_from_table(table, "web", [], truth_column="kind", image_column="picture")
    assert project.meta["image_root"] is None and project.X.shape == (4, 256)
    [item] = shown_items(project, 2)
    assert item.kind == "image" and item.image.size == (24, 24) and item.text == urls[2]
    assert set(site.hits) == set(PICTURES) and set(site.hits.values()) == {1}  # cached


def test_an_html_answer_is_refused_naming_the_row(site, allowed):
    urls = [
        f"{site.url}/pic/bar_0.png",
        f"{site.url}/login.png?token=s3cret",
        f"{site.url}/disguised.png",
    ]
    with pytest.raises(FeatureInputError) as caught:
        image_pixel_features(urls, None, column="picture")
    message = str(caught.value)
    assert "image column 'picture': 2 of 3 rows cannot be read" in message, message
    assert (
        f"row 2: '{site.url}/login.png?…' was not used: the server answered with text/html"
        in message
    )
    assert f"row 3: '{site.url}/disguised.png' is not an image Pillow can read" in message
    assert "s3cret" not in message  # the query may hold a credential: never repeated


def test_caps_and_schemes_apply_to_urls(site, allowed, tmp_path):
    with pytest.raises(FeatureInputError, match=r"8000 × 8000 pixels, more than the 40,000,000"):
        load_image(f"{site.url}/bomb.png", None)
    with pytest.raises(URLRefused, match=r"the image has \d[\d,]* bytes, more than 1,000"):
        fetch_image_bytes(f"{site.url}/large.png", max_bytes=1000)
    assert len(fetch_image_bytes(f"{site.url}/large.png")) > 1000
    for path in ("/to-file", "/to-ftp"):
        with pytest.raises(
            FeatureInputError, match="redirects .*to a URL that is not http or https"
        ):
            load_image(f"{site.url}{path}", None)
    with pytest.raises(FeatureInputError, match="only http and https URLs are fetched"):
        load_image("file:///etc/passwd", tmp_path)
    with pytest.raises(FeatureInputError, match="answered HTTP 404"):
        load_image(f"{site.url}/nothing.png", None)
    with pytest.raises(FeatureInputError, match="is a file path, but there is no image root"):
        load_image("pics/a.png", None)  # a file path with no image root


def test_a_server_that_does_not_answer_is_refused_after_the_timeout(site, allowed):
    with pytest.raises(URLRefused, match="no answer within 0.5 s"):
        fetch_image_bytes(f"{site.url}/slow.png", timeout=0.5)
    site.release.set()
    # the refusal is remembered for a while: no new request, the same message
    with pytest.raises(URLRefused, match="no answer within 0.5 s"):
        fetch_image_bytes(f"{site.url}/slow.png", timeout=0.5)
    assert site.hits["/slow.png"] == 1
    clear_url_cache()
    assert fetch_image_bytes(f"{site.url}/slow.png") == png_bytes(np.zeros((4, 4)))


def test_credentials_in_a_url_are_not_shown(site, allowed):
    port = site.url.rsplit(":", 1)[1]
    with pytest.raises(FeatureInputError) as caught:
        load_image(f"http://ada:hunter2@127.0.0.1:{port}/login.png", None)
    assert "hunter2" not in str(caught.value) and "ada" not in str(caught.value)
    assert f"'http://127.0.0.1:{port}/login.png' was not used" in str(caught.value)
