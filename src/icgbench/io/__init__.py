"""The edges: reading input that may come from a stranger (files, gzip, JSON), writing
all-or-nothing, where commands write, progress on a terminal, Arrow conversions, and the
named crash points tests use to kill a writer at an exact step."""
