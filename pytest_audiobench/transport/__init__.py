"""Talking to models: request and reply types, the OpenAI-compatible client, the response
cache, pacing, the event loop, and audio encoding."""
