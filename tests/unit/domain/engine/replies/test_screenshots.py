"""Screenshots in the prompt: attached to the newest input, named for citing, in the hash."""

from __future__ import annotations

from domain.engine.inputs import InputFile, InputMessage, TurnInput
from domain.engine.prompting.prompts import PromptContext, prompt_kind_for, render_prompt
from domain.engine.prompting.screenshots import image_excerpts, image_label
from domain.investigation.evidence import UploadedFile
from domain.llm import ImagePart
from tests.fakes.clock import FakeClock
from tests.unit.domain.builders import OPENER, investigating_case

IMAGE = ImagePart(name="panel.png", media_type="image/png", data="iVBORw0KGgo=")


def screenshot(image: ImagePart | None = IMAGE) -> InputFile:
    file = UploadedFile(
        file_id="F1@case_1",
        filename="panel.png",
        content_type="image/png",
        size_bytes=8,
        uploaded_by=OPENER,
    )
    return InputFile(file=file, image=image)


def rendered(*files: InputFile):  # type: ignore[no-untyped-def]
    case = investigating_case()
    message = InputMessage(ts="1.1", author=OPENER, text="the panel", file_ids=["F1@case_1"])
    turn = TurnInput(messages=[message], files=list(files))
    context = PromptContext(case=case, turn=turn)
    return render_prompt(prompt_kind_for(case), context, clock=FakeClock())


def test_a_screenshot_rides_on_the_newest_input_with_its_file_id_and_label() -> None:
    prompt = rendered(screenshot())

    newest = prompt.messages[-1]
    assert newest.images == (IMAGE,)
    assert 'F1@case_1: panel.png, cite as "panel.png (image)"' in newest.content
    assert all(not m.images for m in prompt.messages[:-1])


def test_the_screenshots_part_is_in_the_prompt_hash_only_when_used() -> None:
    assert rendered(screenshot()).template_hash != rendered().template_hash
    assert rendered(screenshot(image=None)).template_hash == rendered().template_hash


def test_a_screenshot_is_a_source_the_reply_may_cite() -> None:
    (excerpt,) = image_excerpts([screenshot(), screenshot(image=None)])

    assert excerpt.citation.label() == image_label("panel.png") == "panel.png (image)"
