"""One module per command of the `sniff` command line (daily, weekly and monthly share
`periods`), each the function of its name: it parses its options, asks the Workspace, and hands
the result to `sniff.present`. What they share (the options, one-line errors, the progress bar,
the app itself) lives in `sniff.cli`.
"""
