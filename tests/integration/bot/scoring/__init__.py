"""/fm score and /fm calibration end to end: requests, the judge, the thread message, lists."""
