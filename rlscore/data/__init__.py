"""Data: projects (the pool an annotator labels), reading user tables, bundled samples."""

from rlscore.core.lazy.exports import lazy_exports

#: imported on first access: the samples module loads scikit-learn's datasets
_EXPORTS = {
    "rlscore.data.projects.project": ("Project", "ProjectInputError"),
    "rlscore.data.projects.table_project": ("project_from_table",),
    "rlscore.data.upload.table_reading": ("read_table",),
    "rlscore.data.samples.bundled": (
        "Dataset",
        "ensure_sample_projects",
        "list_samples",
        "load_sample",
        "project_from_sample",
    ),
}
__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS, globals())
