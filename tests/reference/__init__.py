"""Independent reference implementations the tests compare the package against.

Brute-force refits, naive loops and closed forms written out from docs/mathematics.md, one
module per idea (``rls``, ``arls``, …). Nothing here imports the code path it is a reference
for; the tests that check a reference itself (against facts that do not depend on it) live in
``tests/test_<idea>_reference.py``. Test modules import from here, never from each other.
"""
