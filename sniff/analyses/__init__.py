"""Provides the analyses: functions from records to results, free of any presentation.

One room per question: `cost/` (what it cost: the summary, periods, blocks, plans, branches,
commits), `cache/` (whether caching works: chains, breaks and their causes, simulation, TTL
advice, context growth), `latency/` (how fast: timings, peaks, the visible token), `drift/`
(what changed, when), `agents/` (how the agent works: tools, failures, attribution), `live/`
(what `watch` reports). At the top: the shared filters, the findings list, the cost report
that joins the rooms, its redaction, and the TUI's archive.

May use the records (`sniff.model`, `sniff.ingest`'s records), prices and the cache engine;
never lint, the presenters or the front ends. The rooms import each other one way only
(an import-linter `acyclic_siblings` contract).
"""
