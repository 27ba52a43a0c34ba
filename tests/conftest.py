"""Every test runs offline: the variables that keep litellm, Hugging Face and LanceDB from
fetching anything are set before any of them is imported, as `fm` sets them."""

from __future__ import annotations

from bot.settings import prepare_process_environment

prepare_process_environment()
