"""Files shared in a case thread: logs and configs read into the case's evidence, screenshots
kept for a model that takes images, and the one record each file gets."""
