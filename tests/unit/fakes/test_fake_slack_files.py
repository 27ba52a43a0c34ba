"""Files: hosted like Slack (bot token or a 302 to a login page) and uploaded with the v2 flow."""

from __future__ import annotations

import aiohttp
import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from tests.fakes.slack.server import FakeSlack
from tests.unit.fakes.conftest import BOT_TOKEN

LOG = "2024-05-01 12:00:01 ERROR db-1 disk full\n2024-05-01 12:00:02 WARN retrying\n"


async def test_a_hosted_file_object_points_at_the_fake(slack: FakeSlack) -> None:
    file = slack.add_file("app.log", LOG)

    assert file["url_private_download"].startswith(
        f"{slack.base_url}/files-pri/T111-{file['id']}/download/"
    )
    assert file["url_private"].startswith(f"{slack.base_url}/files-pri/")
    assert (file["name"], file["mimetype"], file["filetype"], file["size"]) == (
        "app.log",
        "text/plain",
        "text",
        len(LOG),
    )
    assert file["mode"] == "hosted"


async def test_downloading_with_the_bot_token_returns_the_bytes(slack: FakeSlack) -> None:
    file = slack.add_file("app.log", LOG)

    async with (
        aiohttp.ClientSession() as session,
        session.get(
            file["url_private_download"], headers={"Authorization": f"Bearer {BOT_TOKEN}"}
        ) as response,
    ):
        assert response.status == 200
        assert await response.text() == LOG

    assert slack.calls_to("file_download") == [
        {"file": file["id"], "authorized": True, "download": True}
    ]


async def test_downloading_without_the_token_redirects_to_an_html_login_page(
    slack: FakeSlack,
) -> None:
    file = slack.add_file("app.log", LOG)

    async with aiohttp.ClientSession() as session:
        async with session.get(file["url_private_download"], allow_redirects=False) as redirect:
            assert redirect.status == 302
            assert redirect.headers["Location"].startswith(f"{slack.base_url}/?redir=")
        # Followed, it is a 200 HTML page: the trap a client checking only the status falls into.
        bad = {"Authorization": "Bearer xoxb-someone-else"}
        async with session.get(file["url_private_download"], headers=bad) as followed:
            assert followed.status == 200
            assert followed.content_type == "text/html"
            assert "Sign in" in await followed.text()


async def test_a_file_can_claim_a_size_other_than_its_bytes(
    slack: FakeSlack, client: AsyncWebClient
) -> None:
    file = slack.add_file("huge.log", "tiny", size=500_000_000)

    info = await client.files_info(file=file["id"])

    assert info["file"]["size"] == 500_000_000
    assert slack.file_content(file["id"]) == b"tiny"


async def test_upload_flow_stores_the_content_and_shares_it_in_the_thread(
    slack: FakeSlack, client: AsyncWebClient
) -> None:
    root = await client.chat_postMessage(channel="C1", text="Case 1")

    uploaded = await client.files_upload_v2(
        channel="C1",
        thread_ts=root["ts"],
        content="# Incident report\nRoot cause: disk full",
        filename="report.md",
        title="Incident report",
        initial_comment="Here is the report",
    )

    file_id = uploaded["file"]["id"]
    assert slack.file_content(file_id) == b"# Incident report\nRoot cause: disk full"
    shared = slack.messages("C1", thread_ts=root["ts"])[-1]
    assert shared["text"] == "Here is the report"
    assert [f["id"] for f in shared["files"]] == [file_id]
    assert shared["files"][0]["title"] == "Incident report"
    assert uploaded["file"]["shares"]["public"]["C1"][0]["thread_ts"] == root["ts"]
    assert [c.method for c in slack.calls] == [
        "chat.postMessage",
        "files.getUploadURLExternal",
        "file_upload",
        "files.completeUploadExternal",
    ]


async def test_completing_an_upload_that_never_happened_is_file_not_found(
    client: AsyncWebClient,
) -> None:
    ticket = await client.files_getUploadURLExternal(filename="a.txt", length=3)

    with pytest.raises(SlackApiError) as refused:
        await client.files_completeUploadExternal(files=[{"id": ticket["file_id"]}])

    assert refused.value.response["error"] == "file_not_found"


async def test_an_upload_url_also_takes_a_multipart_post(
    slack: FakeSlack, client: AsyncWebClient
) -> None:
    ticket = await client.files_getUploadURLExternal(filename="a.log", length=5)
    form = aiohttp.FormData()
    form.add_field("file", b"hello", filename="a.log")

    async with (
        aiohttp.ClientSession() as session,
        session.post(ticket["upload_url"], data=form) as response,
    ):
        assert response.status == 200
        assert await response.text() == "OK - 5"

    assert slack.file_content(ticket["file_id"]) == b"hello"


async def test_an_image_description_over_1000_characters_is_refused_as_slack_refuses_it(
    client: AsyncWebClient,
) -> None:
    with pytest.raises(SlackApiError) as refused:
        await client.files_getUploadURLExternal(filename="chart.png", length=10, alt_txt="x" * 1001)

    assert refused.value.response["error"] == "alt_txt_too_large"
    described = await client.files_getUploadURLExternal(
        filename="chart.png", length=10, alt_txt="x" * 1000
    )
    assert described["ok"]


async def test_an_upload_of_zero_bytes_is_refused_as_slack_refuses_it(
    client: AsyncWebClient,
) -> None:
    with pytest.raises(SlackApiError) as refused:
        await client.files_getUploadURLExternal(filename="empty.png", length=0)

    assert refused.value.response["error"] == "missing_argument"
