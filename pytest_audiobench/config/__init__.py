"""Options declared once, and the frozen settings a run resolves them into."""
