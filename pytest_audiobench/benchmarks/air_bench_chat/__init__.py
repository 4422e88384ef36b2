"""AIR-Bench Chat: open questions about speech, sound and music, graded by an LLM judge."""

NAME = "air_bench_chat"
