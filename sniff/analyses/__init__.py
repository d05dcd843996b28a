"""Provides the analyses: functions from requests to results, free of any presentation."""
