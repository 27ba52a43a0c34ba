"""What comes in and what follows: the durable inbox, alert groups, remediation strategies."""
