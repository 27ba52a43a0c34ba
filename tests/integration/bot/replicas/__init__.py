"""Replicas behind one load balancer: the shared inbox, thread ownership, start-up acks."""
