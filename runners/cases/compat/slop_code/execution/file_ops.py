from runners.cases.files import (
    Compression,
    FileSignature,
    FileType,
    InputFile,
    InputFileReadError,
    InputFileWriteError,
    detect_file_signature,
    materialize_input_files,
)

__all__ = [
    "Compression",
    "FileSignature",
    "FileType",
    "InputFile",
    "InputFileReadError",
    "InputFileWriteError",
    "detect_file_signature",
    "materialize_input_files",
]
