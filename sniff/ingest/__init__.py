"""Reading logs into records: files in, `sniff.model` records out.

The rooms: `files/` finds and opens log files (discovery, format detection, lines, special
files, SQLite, following growing files); `formats/<format>/` reads one format each (its wire
schema, reader and activity); `index/` keeps what each file held so a run reads only what
changed; `providers/` holds the API bodies several formats carry. What several readers share
stays here: the record hand-off (`record`), plausibility (`plausible`), the activity log every
reader fills (`activity`), prompt text and blocks, Gemini's wire schema (Qwen Code reads it
too), the merge of files' results and their parallel reading.

`sniff.ingest.reading.read` is the way in. May use `sniff.model` and the modules below it;
never the analyses, lint, presenters or front ends (an import-linter contract). This package's
own module is kept empty so that importing a light part (discovery) does not import every
parser.
"""
