"""The Streamlit layer: wiring shared by ``app.py`` and ``pages/`` (the only Streamlit imports)."""
