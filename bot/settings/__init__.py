"""Configuration: one `Settings` model read from the environment and `.env`, validated at start-up.

`fields` declares every setting (its variable, default, expected form and meaning), `rules` holds
what their values must look like, `model` checks each value by them and derives the rest, `loading`
reads and checks them and names every problem, `environment` holds the variables that keep
libraries offline. Nothing else in the project reads the environment.
"""

from bot.settings.environment import OFFLINE_DEFAULTS, mask_url, prepare_process_environment
from bot.settings.loading import known_variables, load_settings, variables
from bot.settings.model import Settings, SettingsError
from bot.settings.rules import LogLevel, s3_bucket

__all__ = [
    "OFFLINE_DEFAULTS",
    "LogLevel",
    "Settings",
    "SettingsError",
    "known_variables",
    "load_settings",
    "mask_url",
    "prepare_process_environment",
    "s3_bucket",
    "variables",
]
