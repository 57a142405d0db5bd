from runners.cases.loading import (
    discover_dir_cases,
    get_actual_checkpoint,
    get_chkpt_path,
    get_files_from_globs,
    get_group_path,
)

__all__ = [
    "discover_dir_cases",
    "get_actual_checkpoint",
    "get_chkpt_path",
    "get_files_from_globs",
    "get_group_path",
]
