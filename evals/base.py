"""The base of the harness's models: strict about unknown fields, so a typo in a scenario fails."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class EvalModel(BaseModel):
    """Pydantic model that forbids unknown fields."""

    model_config = ConfigDict(extra="forbid")
