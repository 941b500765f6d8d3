"""Data: projects (the pool an annotator labels), reading user tables, bundled samples."""

from rlscore.data.projects import Project, ProjectInputError, project_from_table, read_table
from rlscore.data.samples import (
    Dataset,
    ensure_sample_projects,
    list_samples,
    load_sample,
    project_from_sample,
)

__all__ = [
    "Dataset",
    "Project",
    "ProjectInputError",
    "ensure_sample_projects",
    "list_samples",
    "load_sample",
    "project_from_sample",
    "project_from_table",
    "read_table",
]
