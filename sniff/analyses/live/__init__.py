"""What `sniff watch` reports as it happens: the events of each step of following the logs, and
when a session is idle.
"""
