"""Screenshots shared in a turn: sent to a model that takes images, read as cited evidence."""

from __future__ import annotations

from collections.abc import Sequence

from domain.engine.inputs import InputFile
from domain.knowledge import Citation, KnowledgeBaseKind, RetrievedChunk
from domain.llm import ImagePart

SCREENSHOTS_TEMPLATE = "screenshots"
READ_BY_THE_MODEL = "(an image the model read itself)"


def image_label(filename: str) -> str:
    """How the model cites a screenshot: ``screenshot.png (image)``."""
    return f"{filename} (image)"


def images_of(files: Sequence[InputFile]) -> tuple[ImagePart, ...]:
    """The images of this turn's files, in the order they were shared."""
    return tuple(f.image for f in files if f.image is not None)


def screenshot_lines(files: Sequence[InputFile]) -> str:
    """One line per screenshot: its file id (for ``source_ref``) and the label to cite."""
    return "\n".join(
        f'- {f.file.file_id}: {f.file.filename}, cite as "{image_label(f.file.filename)}"'
        for f in files
        if f.image is not None
    )


def image_excerpts(files: Sequence[InputFile]) -> list[RetrievedChunk]:
    """The screenshots as citable sources, so the reply's citations of them are kept."""
    return [
        RetrievedChunk(
            text=READ_BY_THE_MODEL,
            citation=Citation(kb=KnowledgeBaseKind.CASE, source=image_label(f.file.filename)),
            score=1.0,
        )
        for f in files
        if f.image is not None
    ]
