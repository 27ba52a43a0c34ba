"""A fake Azure OpenAI: OpenAI's chat completions reached by deployment, over real HTTP."""

from __future__ import annotations

from typing import ClassVar

from aiohttp import web

from tests.fakes.models.llm_server import FakeLLMServer


class FakeAzureOpenAI(FakeLLMServer):
    """Azure OpenAI (``azure/<deployment>`` with ``api_base`` the resource's URL).

    The same chat completions and strict structured outputs as OpenAI, reached by deployment
    name with an ``api-version`` and an ``api-key`` header; without them Azure answers 404 and
    401 as shown here.
    """

    provider: ClassVar[str] = "azure"
    base_path: ClassVar[str] = ""

    def __init__(self, *, models: set[str] | None = None) -> None:
        super().__init__(models=models)
        self.deployments: list[str] = []
        """The deployment each request named."""

    async def __aenter__(self) -> FakeAzureOpenAI:
        await super().__aenter__()
        return self

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/openai/deployments/{deployment}/chat/completions", self._azure)

    async def _azure(self, request: web.Request) -> web.StreamResponse:
        if "api-version" not in request.query:
            return web.json_response(
                {"error": {"code": "404", "message": "Resource not found"}}, status=404
            )
        if not request.headers.get("api-key"):
            message = "Access denied due to missing subscription key."
            return web.json_response({"error": {"code": "401", "message": message}}, status=401)
        self.deployments.append(request.match_info["deployment"])
        return await self._handle(request)
