"""Helpers the test modules share that are neither references nor fixtures.

Builders of small projects and stores, drivers of the app's pages in Streamlit's AppTest,
the loader of the benchmark scripts. Reference implementations live in ``tests/reference``,
fixtures in ``conftest.py``; test modules import from these packages, never from each other.
"""
