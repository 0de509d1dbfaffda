"""The LLM half: theory documents in, reviewed generator modules out."""
