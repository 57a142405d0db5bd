"""The Promptfoo side of runners: what the thin files under providers/ call."""
